"""`mergegate hooks install claude-code` inside the real, pinned Claude Code CLI.

The scripted main model (mergegate model-server) calls the `Agent` tool with a
`code-reviewer` subagent the way superpowers/spectacular orchestrators do — without
`run_in_background`, which Claude Code 2.1.330 treats as "run it in the background". The
scripted subagent answers (its request reaches the same server; the `match` marker in its
prompt selects its turn). The installed hooks run for real: PreToolUse keeps the review in the
foreground, PostToolUse parses its result, and the next request Claude Code sends to the model
carries mergegate's decision. That request is what these tests read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _realcli import RealCli

from mergegate.agents import RunStatus
from mergegate.testing.model_server import ModelServer, RecordedRequest, Script, ToolCall, Turn

pytestmark = pytest.mark.real_cli

BIN = Path(sys.executable).parent  # where the `mergegate` console script is installed
MALFORMED = "The implementation is solid. No blocking issues found."
MALFORMED_AGAIN = "Great work! The code quality is high and meets all standards."
APPROVE = (
    "### Assessment\n\n**Ready to merge? Yes**\n\n"
    "**Reasoning:** All acceptance criteria met, tests passing."
)
REVIEWER = """---
name: code-reviewer
description: Reviews a completed phase; ends with Ready to merge? Yes/No/With fixes.
tools: Read, Grep, Glob
---
You review code changes and end with **Ready to merge?** Yes, No or With fixes.
"""


def review_call(marker: str) -> ToolCall:
    return ToolCall(
        name="Agent",
        arguments={
            "description": "Review Phase 1 implementation",
            "prompt": f"{marker} Review the Phase 1 implementation against the plan.",
            "subagent_type": "code-reviewer",
        },
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a `code-reviewer` agent and mergegate's hooks installed."""
    root = tmp_path / "project"
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".claude" / "agents" / "code-reviewer.md").write_text(REVIEWER)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    install = subprocess.run(
        [str(BIN / "mergegate"), "hooks", "install", "claude-code", "--project"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    settings = json.loads((root / ".claude" / "settings.local.json").read_text())
    assert set(settings["hooks"]) == {"PreToolUse", "PostToolUse"}
    return root


def run_orchestrator(
    claude_cli: RealCli, project: Path, tmp_path: Path, turns: list[Turn]
) -> tuple[list[RecordedRequest], list[dict[str, Any]]]:
    """Run `claude -p MAIN` in the project; return the requests and mergegate's decision log."""
    state = tmp_path / "mergegate-state"
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "MERGEGATE_STATE_DIR": str(state),
    }
    with ModelServer(Script(turns=turns)) as server:
        result = claude_cli.run(
            server,
            "MAIN_ORCHESTRATOR: run the code review of Phase 1.",
            project,
            backend=claude_cli.backend(server, env=env),
            timeout_s=120.0,
        )
        requests = list(server.requests)
    assert result.status is RunStatus.OK, result
    assert result.text == "ORCHESTRATOR_DONE"
    log = state / "hooks" / "claude-code" / "decisions.jsonl"
    decisions = [json.loads(line) for line in log.read_text().splitlines()]
    return requests, decisions


def main_requests(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if "MAIN_ORCHESTRATOR" in r.prompt]


def tool_result_text(request: RecordedRequest) -> str:
    """Everything in the last message (the tool result and the hook's text beside it)."""
    last = request.body["messages"][-1]
    assert last["role"] == "user"
    return json.dumps(last["content"])


def test_a_malformed_review_asks_for_one_retry_and_no_fix_work(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_MALFORMED")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_MALFORMED", text=MALFORMED),
    ]
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    after_review = main_requests(requests)[1]
    seen = tool_result_text(after_review)
    assert "Retry the review ONCE" in seen
    assert "Do NOT derive issues or fix work from this output" in seen
    assert "hook blocking error" in seen  # Claude Code's wording for decision: block
    # The PreToolUse hook kept the review in the foreground, so its text came back here.
    assert "Subagent hand-back" in seen
    assert "Async agent launched" not in seen
    assert [(d["event"], d["action"], d["decision"]) for d in decisions] == [
        ("PreToolUse", "foreground", None),
        ("PostToolUse", "retry", "malformed"),
    ]
    session = after_review.headers["x-claude-code-session-id"]
    assert {d["session_id"] for d in decisions} == {session}


def test_an_approving_review_is_confirmed_in_context(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_APPROVE")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_APPROVE", text=APPROVE),
    ]
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    seen = tool_result_text(main_requests(requests)[1])
    assert "code review APPROVED" in seen
    assert "Ready to merge? Yes" in seen
    assert "hook additional context" in seen  # not a block
    assert "hook blocking error" not in seen
    assert decisions[-1]["action"] == "approve"
    assert decisions[-1]["decision"] == "approve"


def test_a_second_malformed_review_says_stop_and_shows_both_outputs(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_FIRST")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_RETRY")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_FIRST", text=MALFORMED),
        Turn(match="SUB_RETRY", text=MALFORMED_AGAIN),
    ]
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    first, second = (tool_result_text(r) for r in main_requests(requests)[1:3])
    assert "Retry the review ONCE" in first
    assert "STOP" not in first
    assert "STOP" in second
    assert "Code review failed twice with malformed output" in second
    assert MALFORMED in second
    assert MALFORMED_AGAIN in second
    assert "do NOT retry the review again" in second
    assert [d["action"] for d in decisions if d["event"] == "PostToolUse"] == ["retry", "stop"]


def test_a_retry_that_approves_says_so(claude_cli: RealCli, project: Path, tmp_path: Path) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_FIRST")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_RETRY")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_FIRST", text=MALFORMED),
        Turn(match="SUB_RETRY", text=APPROVE),
    ]
    requests, _decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    second = tool_result_text(main_requests(requests)[2])
    assert "code review APPROVED (retry succeeded)" in second


def test_a_hook_that_cannot_run_blocks_the_review_instead_of_passing_it(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    """mergegate missing where Claude Code looks for it: `onFailure: block` refuses the call."""
    reinstall = subprocess.run(
        [
            str(BIN / "mergegate"),
            "hooks",
            "install",
            "claude-code",
            "--mergegate",
            "/nonexistent/mergegate",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert reinstall.returncode == 0, reinstall.stderr
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_NEVER")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_NEVER", text=APPROVE),
    ]
    state = tmp_path / "mergegate-state"
    state.mkdir()
    (state / "hooks" / "claude-code").mkdir(parents=True)
    (state / "hooks" / "claude-code" / "decisions.jsonl").write_text("")
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    assert decisions == []
    assert not [r for r in requests if "SUB_NEVER" in r.prompt]  # the review never ran
    seen = tool_result_text(main_requests(requests)[1])
    assert "onFailure" in seen
    assert "/nonexistent/mergegate" in seen
