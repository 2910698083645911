"""`mergegate review` with the real Claude Code CLI as reviewer (and implementer), against an
in-test `mergegate model-server`.

The CLI is picked by name (`--reviewer claude`) and pointed at the server from `mergegate.toml`
(`[agents.backends.claude]`: `executable`, `base_url`, `api_key_env`, `config_home`, `model`).
Scripted answers are verdict objects given the way `--json-schema` asks for them (a call of
Claude Code's `StructuredOutput` tool), carrying the prompt's own `review_id` and `scope`
through `Turn.echo`, so mergegate reads them exactly as it would a real model's.

Turns are selected by markers that occur in exactly one kind of prompt (a turn whose marker is
in a prompt joins that prompt's group, so markers must not overlap):

* spec stage: "STAGE 1 of 2";
* first quality review: its template text right after "None." as the open findings (a later
  round lists the open findings there instead);
* a retry: the retry template's first words;
* the fix prompt: the fix template's first words;
* a scoped re-review: its preamble.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _realcli import CLAUDE_MODEL, DUMMY_KEY, RealCli, isolated_env
from click.testing import CliRunner

from _gitrepo import change_repo, git
from _verdict_object import finding, verdict_object
from mergegate.cli import cli
from mergegate.testing.model_server import Api, ModelServer, RecordedRequest, Script, ToolCall, Turn

pytestmark = pytest.mark.real_cli

SPEC = "STAGE 1 of 2"
QUALITY = "earlier rounds\n\nNone.\n\n## The project's own conventions"
RETRY = "Your previous answer could not be used"
FIX = "A code review of your change found problems"
SCOPED = "SCOPED RE-REVIEW"
ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}
KEY_ENV = "MG_REAL_REVIEW_KEY"

ORIGINAL = "def mean(values):\n    return sum(values) / len(values)\n"
CHANGED = ORIGINAL + "\n\ndef spread(values):\n    return max(values) - min(values)\n"
TASK = """# Task: add spread()

Add `spread(values)` to stats.py: the difference between the largest and smallest value.

Acceptance criteria:
- `spread([1, 5, 3])` returns 4.
"""
FINDING = finding(
    "empty-input",
    "important",
    "spread() raises ValueError on an empty list",
    file="stats.py",
    line=5,
    detail="max() of an empty sequence raises; return 0 for no values.",
)


def answer(verdict: str, findings: list[dict[str, Any]]) -> str:
    """The verdict object, as the arguments of Claude Code's `StructuredOutput` call."""
    return verdict_object(verdict, findings, review_id="{{review_id}}", scope="{{scope}}")


APPROVE = answer("approve", [])
WITH_FIXES = answer("request_changes", [FINDING])


def reviewer_turn(marker: str, arguments: str) -> Turn:
    call = ToolCall(name="StructuredOutput", arguments=arguments)
    return Turn(match=marker, tool_calls=[call], echo=ECHO)


@pytest.fixture
def change(tmp_path: Path) -> Path:
    """A repository whose last commit adds `spread()` to stats.py."""
    repo = change_repo(
        tmp_path / "repo", {"stats.py": ORIGINAL}, {"stats.py": CHANGED}, message="add spread"
    )
    # The config file is local to this test run: keep it out of fix commits and diffs.
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")
    return repo


def run_review(
    claude: RealCli,
    server: ModelServer,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    *extra: str,
) -> tuple[int, dict[str, Any]]:
    """`mergegate review --reviewer claude --spec ... --format json` through the CLI."""
    for name, value in {**isolated_env(claude.home), "CLAUDE_CODE_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(KEY_ENV, DUMMY_KEY)
    (repo / "mergegate.toml").write_text(
        "[agents]\n"
        "default_timeout_s = 120.0\n"
        "default_stall_timeout_s = 60.0\n\n"
        "[agents.backends.claude]\n"
        f"executable = {json.dumps(str(claude.binary))}\n"
        f"base_url = {json.dumps(server.url)}\n"
        f'api_key_env = "{KEY_ENV}"\n'
        f"config_home = {json.dumps(str(claude.config_home))}\n"
        f'model = "{CLAUDE_MODEL}"\n'
        "kill_grace_s = 3.0\n"
        "done_grace_s = 5.0\n"
    )
    spec = repo.parent / "task.md"
    spec.write_text(TASK)
    args = ["review", "--repo", str(repo), "--base", "HEAD~1", "--spec", str(spec)]
    args += ["--reviewer", "claude", "--report-dir", str(repo.parent / "reports")]
    args += ["--config", str(repo / "mergegate.toml")]  # local to this run, not in the change
    result = CliRunner().invoke(cli, [*args, "--format", "json", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def attempts(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for r in out["rounds"] for a in r["attempts"]]


def twin(attempt: dict[str, Any]) -> dict[str, Any]:
    """The attempt report's JSON twin."""
    loaded: dict[str, Any] = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
    return loaded


def model_requests(server: ModelServer) -> list[RecordedRequest]:
    return [r for r in server.requests if r.api is Api.ANTHROPIC_MESSAGES]


def test_both_stages_approve(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(turns=[reviewer_turn(SPEC, APPROVE), reviewer_turn(QUALITY, APPROVE)])
    with ModelServer(script) as server:
        code, out = run_review(claude_cli, server, change, monkeypatch)
    assert (code, out["decision"], out["status"]) == (0, "approve", "approved"), out
    spec, quality = attempts(out)
    assert [(a["stage"], a["decision"]) for a in (spec, quality)] == [
        ("spec", "approve"),
        ("quality", "approve"),
    ]
    # One real Claude Code run per stage, each answered by its own turn, read-only tools only.
    requests = model_requests(server)
    assert [r.turn for r in requests] == [0, 1]
    # (and the tool --json-schema adds for the answer)
    assert all(set(r.tool_names) == {"Read", "Grep", "Glob", "StructuredOutput"} for r in requests)
    assert all(r.headers["x-api-key"] == "<redacted>" for r in requests)
    for attempt, request in zip((spec, quality), requests, strict=True):
        review_id = attempt["review_id"]
        assert review_id.startswith("mg-")
        assert f'"review_id": "{review_id}"' in request.prompt  # the nonce asked for ...
        report = twin(attempt)
        assert review_id in report["output"]  # ... is the nonce echoed
        assert report["answer_via"] == "claude_json_schema"
        assert report["agent"]["backend"] == "claude"
        assert report["agent"]["status"] == "ok"
        assert attempt["usage"]["input_tokens"] > 0  # the server's counts, via Claude Code
    assert "Acceptance criteria" in requests[0].prompt
    assert "+def spread(values):" in requests[1].prompt
    # Reports on disk: a markdown report per attempt, its prompt, and the summary.
    run_dir = Path(out["report_dir"])
    names = {p.name for p in run_dir.iterdir()}
    assert {"r01-spec-a1.md", "r01-quality-a1.md", "r01-quality-a1.prompt.md"} <= names
    assert {"summary.md", "summary.json"} <= names
    frontmatter = (run_dir / "r01-quality-a1.md").read_text().split("---\n")[1]
    assert f'review_id: "{quality["review_id"]}"' in frontmatter
    assert 'backend: "claude"' in frontmatter
    assert out["usage"]["reviewer"]["runs"] == 2


def test_malformed_answer_is_retried_in_the_same_claude_session(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(
        turns=[
            reviewer_turn(SPEC, APPROVE),
            Turn(match=QUALITY, text="MALFORMED_REVIEW: the code looks good overall."),
            # Claude Code asks once more for the tool, then ends without structured output.
            Turn(match="[structured-output-enforce]", text="Still no verdict object."),
            reviewer_turn(RETRY, APPROVE),
        ]
    )
    with ModelServer(script) as server:
        code, out = run_review(claude_cli, server, change, monkeypatch)
    assert (code, out["decision"]) == (0, "approve"), out
    spec, first, retry = attempts(out)
    assert [a["decision"] for a in (spec, first, retry)] == ["approve", "malformed", "approve"]
    assert (first["attempt"], retry["attempt"]) == (1, 2)
    assert first["review_id"] != retry["review_id"]  # a fresh nonce for the retry
    # The retry resumed the quality reviewer's Claude session (--resume) ...
    session = twin(first)["agent"]["session_id"]
    assert session
    assert twin(retry)["agent"]["session_id"] == session
    assert twin(spec)["agent"]["session_id"] != session
    # ... so its request carries that conversation: the first prompt, the malformed answer,
    # then the retry prompt with the parse error fed back.
    last = model_requests(server)[-1]
    assert RETRY in last.prompt
    assert "StructuredOutput tool was not called" in last.prompt
    assert f'"review_id": "{retry["review_id"]}"' in last.prompt
    assert last.headers["x-claude-code-session-id"] == session
    history = json.dumps(last.body["messages"])
    assert "MALFORMED_REVIEW" in history
    assert "STAGE 2 of 2" in history
    assert history.index("STAGE 2 of 2") < history.index("MALFORMED_REVIEW")


def test_with_fixes_and_an_important_finding_exits_1(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(turns=[reviewer_turn(SPEC, APPROVE), reviewer_turn(QUALITY, WITH_FIXES)])
    with ModelServer(script) as server:
        code, out = run_review(claude_cli, server, change, monkeypatch)
    assert (code, out["exit_code"], out["decision"]) == (1, 1, "fixes"), out
    assert out["status"] == "changes_requested"
    assert [a["decision"] for a in attempts(out)] == ["approve", "fixes"]
    (finding,) = out["findings"]
    assert (finding["severity"], finding["status"], finding["stage"]) == (
        "important",
        "open",
        "quality",
    )
    assert finding["title"] == FINDING["title"]
    assert finding["file"] == "stats.py"
    assert git(change, "rev-list", "--count", "HEAD") == "2"  # no fix without --fix


def test_fix_round_by_the_real_claude_implementer_then_scoped_approval(
    claude_cli: RealCli, change: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = str(change / "stats.py")
    old = "    return max(values) - min(values)\n"
    new = "    if not values:\n        return 0\n    return max(values) - min(values)\n"
    edit = {"file_path": stats, "old_string": old, "new_string": new}
    script = Script(
        turns=[
            reviewer_turn(SPEC, APPROVE),
            reviewer_turn(QUALITY, WITH_FIXES),
            # The implementer: Claude Code edits only a file it has read in the session.
            Turn(match=FIX, tool_calls=[ToolCall(name="Read", arguments={"file_path": stats})]),
            Turn(match=FIX, tool_calls=[ToolCall(name="Edit", arguments=edit)]),
            Turn(match=FIX, text="empty-input: spread() now returns 0 for no values."),
            reviewer_turn(SCOPED, APPROVE),
        ]
    )
    before = git(change, "rev-parse", "HEAD")
    with ModelServer(script) as server:
        code, out = run_review(
            claude_cli, server, change, monkeypatch, "--fix", "--implementer", "claude"
        )
    assert (code, out["decision"], out["status"]) == (0, "approve", "approved"), out
    # One fix commit, made by mergegate from the real CLI's edit.
    fix_commit = out["rounds"][0]["fix_commit"]
    assert fix_commit == git(change, "rev-parse", "HEAD")
    assert git(change, "rev-parse", "HEAD~1") == before
    assert git(change, "log", "-1", "--format=%s") == "mergegate: fix round 1"
    assert (change / "stats.py").read_text() == CHANGED.replace(old, new)
    assert git(change, "status", "--porcelain") == ""
    # Round 2 re-reviewed only the quality stage, scoped to the fix commit.
    assert [r["scoped"] for r in out["rounds"]] == [False, True]
    assert out["rounds"][1]["base_sha"] == before
    assert [(a["stage"], a["decision"]) for a in attempts(out)] == [
        ("spec", "approve"),
        ("quality", "fixes"),
        ("quality", "approve"),
    ]
    rereview = model_requests(server)[-1]
    assert SCOPED in rereview.prompt
    assert "+    if not values:" in rereview.prompt
    assert "+def spread(values):" not in rereview.prompt  # only the fix diff
    (finding,) = out["findings"]
    assert f"[{finding['id']}] (important)" in rereview.prompt  # the still-open finding
    assert finding["status"] == "resolved"
    # The implementer ran with its write tools (not the reviewer's read-only set).
    fix_requests = [r for r in model_requests(server) if FIX in r.prompt]
    assert len(fix_requests) == 3
    assert {"Edit", "Write"} <= set(fix_requests[0].tool_names)
    assert out["usage"]["implementer"]["runs"] == 1
