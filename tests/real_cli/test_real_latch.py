"""The latch and the restatement inside the real, pinned Claude Code CLI.

The scripted main model (mergegate model-server) runs a review subagent, then tries to commit
with its Bash tool; mergegate's hooks (installed with `mergegate hooks install claude-code`)
run for real. After a "With fixes" review the commit is denied before it runs; after an
approving re-review it runs. A malformed review is asked for the verdict object: the hook
adds the request (with its review_id) to the re-dispatched reviewer's prompt, the scripted
reviewer copies the id (`Turn.echo`), and the hook decides from the object.
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

BIN = Path(sys.executable).parent
FIXES = (
    "### Issues\n\n#### Important (Should Fix)\n\n"
    "1. **Missing test coverage for error cases** (app.py:12) - add tests.\n\n"
    "### Assessment\n\n**Ready to merge? With fixes**\n"
)
APPROVE = "### Assessment\n\n**Ready to merge? Yes**\n\n**Reasoning:** All criteria met."
MALFORMED = "The implementation is solid. No blocking issues found."
RESTATED = (
    '{"review_id": "RID", "scope": "restated review", "verdict": "approve", "conditions": [], '
    '"findings": [], "summary": "All acceptance criteria met.", "confidence": 0.9}'
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


def commit_call(message: str) -> ToolCall:
    command = f"git commit --allow-empty -q -m {message}"
    return ToolCall(name="Bash", arguments={"command": command, "description": "Commit"})


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".claude" / "agents" / "code-reviewer.md").write_text(REVIEWER)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    git(root, "commit", "--allow-empty", "-q", "-m", "base")
    install = subprocess.run(
        [str(BIN / "mergegate"), "hooks", "install", "claude-code"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    return root


def run_orchestrator(
    claude_cli: RealCli, project: Path, tmp_path: Path, turns: list[Turn]
) -> tuple[list[RecordedRequest], list[dict[str, Any]]]:
    state = tmp_path / "mergegate-state"
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "MERGEGATE_STATE_DIR": str(state),
    }
    with ModelServer(Script(turns=turns)) as server:
        backend = claude_cli.backend(server, env=env, allowed_tools=["Bash", "Agent"])
        result = claude_cli.run(
            server,
            "MAIN_ORCHESTRATOR: review, then commit.",
            project,
            backend=backend,
            timeout_s=180.0,
        )
        requests = list(server.requests)
    assert result.status is RunStatus.OK, result
    assert result.text == "ORCHESTRATOR_DONE"
    log = state / "hooks" / "claude-code" / "decisions.jsonl"
    decisions = [json.loads(line) for line in log.read_text().splitlines()]
    return requests, decisions


def main_requests(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if "MAIN_ORCHESTRATOR" in r.prompt]


def last_message(request: RecordedRequest) -> str:
    return json.dumps(request.body["messages"][-1]["content"])


def test_a_commit_is_denied_after_with_fixes_and_runs_after_the_approving_re_review(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_FIXES")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[commit_call("too-early")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_APPROVE")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[commit_call("reviewed")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_FIXES", text=FIXES),
        Turn(match="SUB_APPROVE", text=APPROVE),
    ]
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    seen = [last_message(r) for r in main_requests(requests)]
    assert "WITH FIXES" in seen[1]
    assert "mergegate review gate: DENIED" in seen[2]  # the commit was refused before it ran
    assert "Missing test coverage for error cases" in seen[2]
    assert "code review APPROVED" in seen[3]
    assert "DENIED" not in seen[4]
    assert git(project, "log", "--format=%s").split() == ["reviewed", "base"]
    assert [
        (d["event"], d["tool_name"], d["action"])
        for d in decisions
        if d["action"] in ("block", "deny", "approve")
    ] == [
        ("PostToolUse", "Agent", "block"),
        ("PreToolUse", "Bash", "deny"),
        ("PostToolUse", "Agent", "approve"),
    ]


def test_a_malformed_review_is_restated_as_the_verdict_object(
    claude_cli: RealCli, project: Path, tmp_path: Path
) -> None:
    turns = [
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_FIRST")]),
        Turn(match="MAIN_ORCHESTRATOR", tool_calls=[review_call("SUB_RETRY")]),
        Turn(match="MAIN_ORCHESTRATOR", text="ORCHESTRATOR_DONE"),
        Turn(match="SUB_FIRST", text=MALFORMED),
        Turn(match="SUB_RETRY", text=RESTATED, echo={"RID": '"review_id": "'}),
    ]
    requests, decisions = run_orchestrator(claude_cli, project, tmp_path, turns)
    first, second = (last_message(r) for r in main_requests(requests)[1:3])
    assert "Retry the review ONCE, asking for the verdict as a structured object" in first
    assert "JSON Schema" in first
    retry_prompt = next(r for r in requests if "SUB_RETRY" in r.prompt).prompt
    assert "nothing but one JSON object" in retry_prompt  # added by the hook, not the model
    assert "code review APPROVED (retry succeeded)" in second
    post = [d for d in decisions if d["event"] == "PostToolUse"]
    assert [(d["action"], d["decision"]) for d in post] == [
        ("retry", "malformed"),
        ("approve", "approve"),
    ]
    assert post[-1]["dialect"] == "verdict-object"
