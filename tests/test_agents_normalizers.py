"""Each CLI backend normalizes captured output (tests/data/agent_clis) into one AgentResult.

The captured transcripts are replayed by the fake agent through the real pipeline (argv,
supervisor, parser, judgement), with the exit codes the CLIs really gave, and with the exit
codes they are known to lie with.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mergegate.agents import AgentRequest, AgentResult, RunStatus
from mergegate.agents.aider import AiderBackend, parse_token_count
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.codex import CodexBackend
from mergegate.agents.gemini import GeminiBackend
from mergegate.agents.opencode import OpenCodeBackend

DATA = Path(__file__).parent / "data" / "agent_clis"
FAKE = Path(__file__).parent / "fakes" / "fake_agent.py"
BACKENDS: dict[str, Any] = {
    "claude": ClaudeBackend,
    "codex": CodexBackend,
    "gemini": GeminiBackend,
    "opencode": OpenCodeBackend,
    "aider": AiderBackend,
}


def replay(
    tmp_path: Path,
    backend: str,
    transcript: str | Path,
    exit_code: int = 0,
    *,
    hang: bool = False,
    instance: Any = None,
    **request: Any,
) -> AgentResult:
    path = transcript if isinstance(transcript, Path) else DATA / transcript
    be = instance or BACKENDS[backend](
        executable=[sys.executable, str(FAKE)], kill_grace_s=0.5, done_grace_s=0.3
    )
    values: dict[str, Any] = {
        "prompt": "do it",
        "cwd": tmp_path,
        "timeout_s": 10.0,
        "stall_timeout_s": 10.0,
        "attempt_dir": tmp_path / f"attempt-{path.stem}-{exit_code}",
        "env": {
            "FAKE_AGENT_MODE": "replay",
            "FAKE_AGENT_REPLAY": str(path),
            "FAKE_AGENT_EXIT": str(exit_code),
            "FAKE_AGENT_HANG": "1" if hang else "0",
        },
    }
    values.update(request)
    result: AgentResult = be.run(AgentRequest.model_validate(values))
    return result


def without_last_line(tmp_path: Path, name: str) -> Path:
    lines = (DATA / name).read_text().splitlines(keepends=True)
    out = tmp_path / f"cut-{name}"
    out.write_text("".join(lines[:-1]))
    return out


# ------------------------------------------------------------------ claude


def test_claude_success(tmp_path: Path) -> None:
    result = replay(tmp_path, "claude", "claude_success.jsonl")
    assert result.status is RunStatus.OK
    assert result.text == "MOCK_OK >>>HELP<<<"
    assert result.session_id == "eef7dc04-e947-4c0e-a1cc-2668971d77bf"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (2400, 24)
    assert result.cost_usd == pytest.approx(0.00756)
    assert result.turns == 2
    assert result.signals == ()  # the marker is mid-line: an embedded mention, not a signal
    assert result.log_path is not None
    assert result.log_path.read_text() == (DATA / "claude_success.jsonl").read_text()


def test_claude_success_with_a_lying_exit_code(tmp_path: Path) -> None:
    # An MCP server that fails to connect: exit 1 with a success result.
    assert replay(tmp_path, "claude", "claude_success.jsonl", 1).status is RunStatus.OK


@pytest.mark.parametrize("exit_code", [1, 0])
def test_claude_api_error_is_an_error_whatever_the_exit(tmp_path: Path, exit_code: int) -> None:
    result = replay(tmp_path, "claude", "claude_error_429.jsonl", exit_code)
    assert result.status is RunStatus.ERROR
    assert "429" in (result.error or "")
    assert result.session_id == "003d4c8e-4966-4ab9-8a46-5bf838bfe8c4"
    assert any("retr" in w for w in result.warnings)


def test_claude_max_turns(tmp_path: Path) -> None:
    result = replay(tmp_path, "claude", "claude_max_turns.json", 1)
    assert result.status is RunStatus.ERROR
    assert "max_turns" in (result.error or "")
    assert result.turns == 2
    assert result.text == ""


def test_claude_denied_tools_warn(tmp_path: Path) -> None:
    result = replay(tmp_path, "claude", "claude_tool_denied.json")
    assert result.status is RunStatus.OK
    assert any("denied (Bash)" in w for w in result.warnings)


@pytest.mark.parametrize(("exit_code", "status"), [(0, RunStatus.ERROR), (1, RunStatus.CRASHED)])
def test_claude_missing_result_event(tmp_path: Path, exit_code: int, status: RunStatus) -> None:
    cut = without_last_line(tmp_path, "claude_success.jsonl")
    result = replay(tmp_path, "claude", cut, exit_code)
    assert result.status is status
    assert "without a terminal event" in (result.error or "")
    assert result.session_id == "eef7dc04-e947-4c0e-a1cc-2668971d77bf"  # captured anyway
    assert (tmp_path / f"attempt-{cut.stem}-{exit_code}" / "session_id").read_text().strip() == (
        "eef7dc04-e947-4c0e-a1cc-2668971d77bf"
    )


def test_claude_hang_after_result_is_still_ok(tmp_path: Path) -> None:
    result = replay(tmp_path, "claude", "claude_success.jsonl", hang=True)
    assert result.status is RunStatus.OK
    assert result.duration_s < 5
    assert result.exit_code is not None
    assert result.exit_code < 0  # stopped by the supervisor after the done grace


def test_claude_help_on_its_own_line(tmp_path: Path) -> None:
    transcript = tmp_path / "help.jsonl"
    transcript.write_text(
        '{"type":"user","message":{"content":[{"type":"tool_result","content":">>>HELP<<<"}]}}\n'
        '{"type":"assistant","parent_tool_use_id":null,"message":{"id":"m1","content":'
        '[{"type":"text","text":"Stuck.\\n>>>HELP<<<\\n{\\"reason\\": \\"loop\\"}"}]}}\n'
        '{"type":"result","subtype":"success","is_error":false,"result":"Stuck."}\n'
    )
    result = replay(tmp_path, "claude", transcript)
    assert [(s.marker, s.context) for s in result.signals] == [(">>>HELP<<<", {"reason": "loop"})]


# ------------------------------------------------------------------ codex


def test_codex_success(tmp_path: Path) -> None:
    result = replay(tmp_path, "codex", "codex_success.jsonl")
    assert result.status is RunStatus.OK
    assert result.text == "MOCK_OK >>>HELP<<<"
    assert result.session_id == "01a2011e-7386-76d0-8a1c-ec13ebbe4900"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (4200, 30)
    assert result.cost_usd is None
    assert any("Model metadata" in w for w in result.warnings)  # non-fatal error item


@pytest.mark.parametrize("exit_code", [1, 0])
def test_codex_failed_turn(tmp_path: Path, exit_code: int) -> None:
    result = replay(tmp_path, "codex", "codex_turn_failed.jsonl", exit_code)
    assert result.status is RunStatus.ERROR
    assert "429" in (result.error or "")


@pytest.mark.parametrize("exit_code", [1, 0])
def test_real_5xx_captures_are_errors(tmp_path: Path, exit_code: int) -> None:
    claude = replay(tmp_path, "claude", "claude_error_500.jsonl", exit_code)
    assert claude.status is RunStatus.ERROR
    assert "500 scripted outage" in (claude.error or "")
    assert claude.session_id
    codex = replay(tmp_path, "codex", "codex_error_500.jsonl", exit_code)
    assert codex.status is RunStatus.ERROR
    assert "high demand" in (codex.error or "")  # Codex's words for any 5xx
    assert codex.session_id


def test_codex_unreachable_is_missing(tmp_path: Path) -> None:
    be = CodexBackend(executable=[sys.executable, str(FAKE)], max_reconnects=1, done_grace_s=0.3)
    result = replay(tmp_path, "codex", "codex_unreachable.jsonl", hang=True, instance=be)
    assert result.status is RunStatus.MISSING
    assert "unreachable" in (result.error or "")


def test_codex_resume_reports_the_usage_delta(tmp_path: Path) -> None:
    be = CodexBackend(executable=[sys.executable, str(FAKE)], done_grace_s=0.3)
    first = replay(tmp_path, "codex", "codex_success.jsonl", instance=be)
    resumed = tmp_path / "resumed.jsonl"
    resumed.write_text(
        (DATA / "codex_success.jsonl")
        .read_text()
        .replace('"input_tokens":4200', '"input_tokens":8400')
        .replace('"output_tokens":30', '"output_tokens":45')
    )
    second = replay(tmp_path, "codex", resumed, instance=be, resume_session_id=first.session_id)
    assert (second.usage.input_tokens, second.usage.output_tokens) == (4200, 15)
    fresh = CodexBackend(executable=[sys.executable, str(FAKE)], done_grace_s=0.3)
    unknown = replay(tmp_path, "codex", resumed, instance=fresh, resume_session_id=first.session_id)
    assert unknown.usage.input_tokens == 8400
    assert any("running total" in w for w in unknown.warnings)


# ------------------------------------------------------------------ gemini


def test_gemini_success(tmp_path: Path) -> None:
    result = replay(tmp_path, "gemini", "gemini_success.jsonl")
    assert result.status is RunStatus.OK
    assert result.text == "MOCK_OK >>>HELP<<<"  # deltas joined; the user echo is not text
    assert result.session_id == "46d8e20e-c10b-444c-8b48-3eb501b5352c"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (6000, 18)
    assert result.signals == ()


@pytest.mark.parametrize("exit_code", [144, 0])
def test_gemini_api_error(tmp_path: Path, exit_code: int) -> None:
    result = replay(tmp_path, "gemini", "gemini_error_400.jsonl", exit_code)
    assert result.status is RunStatus.ERROR
    assert "context too long" in (result.error or "")


def test_gemini_signal_split_across_deltas_but_never_in_the_echo(tmp_path: Path) -> None:
    transcript = tmp_path / "split.jsonl"
    transcript.write_text(
        '{"type":"init","session_id":"s1"}\n'
        '{"type":"message","role":"user","content":">>>HELP<<<"}\n'
        '{"type":"message","role":"assistant","content":"ok\\n>>>HE","delta":true}\n'
        '{"type":"message","role":"assistant","content":"LP<<<","delta":true}\n'
        '{"type":"result","status":"success","stats":{}}\n'
    )
    result = replay(tmp_path, "gemini", transcript)
    assert [s.marker for s in result.signals] == [">>>HELP<<<"]
    assert result.text == "ok\n>>>HELP<<<"


# ------------------------------------------------------------------ opencode


def test_opencode_success(tmp_path: Path) -> None:
    result = replay(tmp_path, "opencode", "opencode_success.jsonl")
    assert result.status is RunStatus.OK
    assert result.text == "MOCK_OK >>>HELP<<<"
    assert result.session_id == "ses_dfed865c1ffecJ7GmfK6tOtUpe"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (3600, 28)
    assert result.turns == 2
    assert result.cost_usd == 0.0


@pytest.mark.parametrize("exit_code", [1, 0])
def test_opencode_error(tmp_path: Path, exit_code: int) -> None:
    result = replay(tmp_path, "opencode", "opencode_error.jsonl", exit_code)
    assert result.status is RunStatus.ERROR
    assert (result.error or "").startswith("APIError: mock invalid request")
    assert result.session_id == "ses_dfed804d7ffeW2M6inOzp9321u"


def test_opencode_exit0_without_final_step_is_an_error(tmp_path: Path) -> None:
    result = replay(tmp_path, "opencode", without_last_line(tmp_path, "opencode_success.jsonl"))
    assert result.status is RunStatus.ERROR


# ------------------------------------------------------------------ aider


def test_aider_success(tmp_path: Path) -> None:
    result = replay(tmp_path, "aider", "aider_success.txt")
    assert result.status is RunStatus.OK
    assert result.text == "MOCK_OK >>>HELP<<<"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (1800, 14)
    assert result.session_id is None


def test_aider_api_error_with_exit_0(tmp_path: Path) -> None:
    result = replay(tmp_path, "aider", "aider_api_error.txt", 0)
    assert result.status is RunStatus.ERROR
    assert "litellm.BadRequestError" in (result.error or "")


def test_aider_cost_and_cache_tokens(tmp_path: Path) -> None:
    transcript = tmp_path / "priced.txt"
    transcript.write_text(
        "Aider v0.86.2\nModel: gpt-4o with diff edit format\n\nDone.\n>>>HELP<<<\n\n"
        "Tokens: 2.1k sent, 1.5k cache hit, 120 received. Cost: ignored\n"
        "Cost: $0.0097 message, $0.03 session.\n"
    )
    result = replay(tmp_path, "aider", transcript)
    assert result.ok
    assert result.text == "Done.\n>>>HELP<<<"
    assert result.usage.cache_read_tokens == 1500
    assert result.cost_usd == pytest.approx(0.0097)
    assert [s.marker for s in result.signals] == [">>>HELP<<<"]


@pytest.mark.parametrize(
    ("text", "count"), [("1.8k", 1800), ("14", 14), ("2.1M", 2_100_000), ("x", 0), ("", 0)]
)
def test_aider_token_counts(text: str, count: int) -> None:
    assert parse_token_count(text) == count


# ------------------------------------------------------------------ missing binaries


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_missing_cli_is_not_installed(tmp_path: Path, name: str) -> None:
    be = BACKENDS[name](executable="no-such-cli-here")
    result = be.run(AgentRequest(prompt="x", cwd=tmp_path))
    assert result.status is RunStatus.NOT_INSTALLED
    assert "not found" in (result.error or "")


def test_claude_api_error_is_the_error_not_also_a_warning(tmp_path: Path) -> None:
    result = replay(tmp_path, "claude", "claude_error_500.jsonl", 1)
    assert result.status is RunStatus.ERROR
    assert not any("API error message" in w for w in result.warnings)
    # Cut before the result event: the synthetic API-error message explains the failure.
    lines = (DATA / "claude_error_500.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(line for line in lines if '"type":"result"' not in line) + "\n")
    crashed = replay(tmp_path, "claude", cut, 1)
    assert crashed.status is RunStatus.CRASHED
    assert "500 scripted outage" in (crashed.error or "")
