"""Issue 22 with the real CLIs: `mergegate review --reviewer claude|codex` against the model
server, the reviewer's answer asked for through the CLI's own structured-output flag.

* Claude Code `--json-schema`: it offers a `StructuredOutput` tool (the server records it) and
  the answer is that call's input, read from the raw stream; text the model writes beside the
  call is text beside the object.
* Codex `--output-schema`: it sends the schema as the Responses API's `text.format` (the
  server checks it is strict) and the last message is the answer.

Every hostile class the issue names is refused; the object alone approves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _realcli import CLAUDE_MODEL, CODEX_MODEL, DUMMY_KEY, RealCli, isolated_env
from click.testing import CliRunner

from _gitrepo import change_repo
from _verdict_object import finding, verdict_object
from mergegate.cli import cli
from mergegate.testing.model_server import (
    Api,
    ModelServer,
    Script,
    StructuredField,
    ToolCall,
    Turn,
)

pytestmark = pytest.mark.real_cli

KEY_ENV = "MG_REAL_VERDICT_KEY"
SCOPE = "task-3"
ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}
RID, SCP = "{{review_id}}", "{{scope}}"
GOOD = verdict_object(review_id=RID, scope=SCP, summary="spread() is right")
DUPLICATE = GOOD.replace('"verdict": "approve"', '"verdict": "reject", "verdict": "approve"')


def obj(**kwargs: Any) -> str:
    return verdict_object(**{"review_id": RID, "scope": SCP, **kwargs})


@pytest.fixture
def change(tmp_path: Path) -> Path:
    original = "def mean(values):\n    return sum(values) / len(values)\n"
    changed = original + "\n\ndef spread(values):\n    return max(values) - min(values)\n"
    repo = change_repo(tmp_path / "repo", {"stats.py": original}, {"stats.py": changed})
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")
    return repo


def _config(cli_: RealCli, server: ModelServer) -> str:
    common = (
        f"executable = {json.dumps(str(cli_.binary))}\n"
        f'api_key_env = "{KEY_ENV}"\n'
        f"config_home = {json.dumps(str(cli_.config_home))}\n"
        "kill_grace_s = 3.0\ndone_grace_s = 5.0\n"
    )
    if cli_.name == "claude":
        return (
            f"[agents.backends.claude]\n{common}"
            f"base_url = {json.dumps(server.url)}\nmodel = {json.dumps(CLAUDE_MODEL)}\n"
        )
    return (
        f"[agents.backends.codex]\n{common}"
        f"base_url = {json.dumps(server.openai_base_url)}\nmodel = {json.dumps(CODEX_MODEL)}\n"
    )


def review(
    cli_: RealCli, script: Script, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, Any], ModelServer]:
    for name, value in {**isolated_env(cli_.home), "CLAUDE_CODE_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(KEY_ENV, DUMMY_KEY)
    with ModelServer(script) as server:
        (repo / "mergegate.toml").write_text(
            "[agents]\ndefault_timeout_s = 120.0\ndefault_stall_timeout_s = 60.0\n\n"
            '[review]\nstages = ["quality"]\n\n' + _config(cli_, server)
        )
        args = ["review", "--repo", str(repo), "--base", "HEAD~1", "--scope", SCOPE]
        args += ["--config", str(repo / "mergegate.toml")]  # not the change's: never read
        args += ["--reviewer", cli_.name, "--report-dir", str(repo.parent / "reports")]
        result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.stdout.strip(), result.output
    return result.exit_code, json.loads(result.stdout), server


def twin(out: dict[str, Any], n: int = 0) -> dict[str, Any]:
    attempt = [a for r in out["rounds"] for a in r["attempts"]][n]
    loaded: dict[str, Any] = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
    return loaded


def decisions(out: dict[str, Any]) -> list[str]:
    return [a["decision"] for r in out["rounds"] for a in r["attempts"]]


# ------------------------------------------------------------------ Claude Code


def call(arguments: str) -> ToolCall:
    return ToolCall(name="StructuredOutput", arguments=arguments)


def echoes(*texts: str) -> dict[str, str]:
    """The `ECHO` entries whose placeholder a turn uses."""
    return {p: m for p, m in ECHO.items() if any(p in t for t in texts)}


def claude_turn(text: str = "", *calls: ToolCall) -> Turn:
    arguments = [c.arguments for c in calls if isinstance(c.arguments, str)]
    return Turn(text=text, tool_calls=calls, echo=echoes(text, *arguments))


CLAUDE_CLASSES: dict[str, tuple[Turn, tuple[int, ...]]] = {
    "prose-beside": (claude_turn("Looks good, approving.", call(GOOD)), (3,)),
    "fenced-then-text": (
        claude_turn(f"```json\n{GOOD}\n```\nStrike that: -1.", call(GOOD)),
        (3,),
    ),
    "two-objects": (claude_turn("", call(GOOD), call(obj(verdict="reject"))), (3,)),
    "duplicate-key": (claude_turn("", call(DUPLICATE)), (3,)),
    # Claude Code itself refuses an id or scope the pinned schema does not allow, and gives up
    # after its retries: an agent failure (4), or malformed (3) — never an approval.
    "wrong-review-id": (claude_turn("", call(obj(review_id="mg-0000000000000000"))), (3, 4)),
    "wrong-scope": (claude_turn("", call(obj(scope="task-9"))), (3, 4)),
    "condition": (claude_turn("", call(obj(conditions=["after #512 lands"]))), (1,)),
    "blocking-finding": (claude_turn("", call(obj(findings=[finding("F-1", "critical")]))), (1,)),
}


@pytest.mark.parametrize("name", sorted(CLAUDE_CLASSES))
def test_claude_code_reviewer_is_approved_by_nothing_but_an_approving_object(
    name: str, claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn, codes = CLAUDE_CLASSES[name]
    script = Script(turns=[turn], when_exhausted="repeat_last")
    code, out, _ = review(claude_cli, script, change, monkeypatch)
    assert code in codes, out
    assert out["decision"] != "approve"
    assert "approve" not in decisions(out)
    if code == 3:
        assert twin(out)["parsed"]["answer_via"] == "claude_json_schema"


def test_claude_code_that_never_calls_the_tool_is_malformed(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSON object written as text is not the structured answer (Claude Code asks for the
    tool once more, then ends without `structured_output`)."""
    turns = [
        Turn(text=GOOD, echo=ECHO),
        Turn(match="[structured-output-enforce]", text="No tool: the object above is my answer."),
    ]
    script = Script(turns=turns, when_exhausted="repeat_last")
    code, out, _ = review(claude_cli, script, change, monkeypatch)
    assert (code, decisions(out)) == (3, ["malformed", "malformed"]), out
    assert "StructuredOutput tool was not called" in twin(out)["parsed"]["reasons"][0]


def test_claude_code_approves_through_json_schema(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(turns=[claude_turn("", call(GOOD))], check_structured=True)
    code, out, server = review(claude_cli, script, change, monkeypatch)
    assert (code, out["decision"]) == (0, "approve"), out
    record = twin(out)
    assert record["answer_via"] == "claude_json_schema"
    assert record["summary"] == "spread() is right"
    [request] = [r for r in server.requests if r.api is Api.ANTHROPIC_MESSAGES]
    assert request.structured is not None
    assert request.structured.field is StructuredField.ANTHROPIC_TOOL
    assert request.structured.json_schema is not None
    properties = request.structured.json_schema["properties"]
    assert properties["scope"]["enum"] == [SCOPE]
    assert properties["review_id"]["enum"] == [record["review_id"]]


# ------------------------------------------------------------------ Codex


CODEX_CLASSES: dict[str, tuple[str, int]] = {
    "prose-before": ("Looks good, approving.\n" + GOOD, 3),
    "prose-after": (GOOD + "\nApprove, but only after #512 lands.", 3),
    "fenced-then-text": (f"```json\n{GOOD}\n```\nStrike that: -1.", 3),
    "two-objects": (GOOD + "\n" + obj(verdict="reject"), 3),
    "duplicate-key": (DUPLICATE, 3),
    "wrong-review-id": (obj(review_id="mg-0000000000000000"), 3),
    "wrong-scope": (obj(scope="task-9"), 3),
    "condition": (obj(conditions=["after #512 lands"]), 1),
    "blocking-finding": (obj(findings=[finding("F-1", "important")]), 1),
}


@pytest.mark.parametrize("name", sorted(CODEX_CLASSES))
def test_codex_reviewer_is_approved_by_nothing_but_an_approving_object(
    name: str, codex_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server replays each answer as written (as an endpoint ignoring the schema would)."""
    text, expected = CODEX_CLASSES[name]
    script = Script(turns=[Turn(text=text, echo=echoes(text))], when_exhausted="repeat_last")
    code, out, _ = review(codex_cli, script, change, monkeypatch)
    assert code == expected, out
    assert "approve" not in decisions(out)
    assert twin(out)["parsed"]["answer_via"] == "codex_output_schema"


def test_codex_approves_through_output_schema(
    codex_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(turns=[Turn(text=GOOD, echo=ECHO)], check_structured=True)
    code, out, server = review(codex_cli, script, change, monkeypatch)
    assert (code, out["decision"]) == (0, "approve"), out
    assert twin(out)["answer_via"] == "codex_output_schema"
    [request] = [r for r in server.requests if r.api is Api.RESPONSES]
    assert request.structured is not None
    assert request.structured.field is StructuredField.RESPONSES_TEXT_FORMAT
    assert request.structured.strict
