"""Helpers for the hook tests: the recorded Claude Code inputs (tests/data/claude_code_hooks/)
and the real `mergegate hook claude-code` console script."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "claude_code_hooks"
BIN = Path(sys.executable).parent


def recorded(name: str, session: str | None = None, cwd: Path | None = None) -> dict[str, Any]:
    """A recorded hook input, moved to `session` and `cwd` when given."""
    data: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text())
    data = copy.deepcopy(data)
    if session is not None:
        data["session_id"] = session
    if cwd is not None:
        data["cwd"] = str(cwd)
    return data


def bash(command: str, session: str, cwd: Path) -> dict[str, Any]:
    """The recorded PreToolUse Bash input running `command` instead."""
    data = recorded("pre-tool-use-bash-status", session, cwd)
    data["tool_input"]["command"] = command
    return data


def review_result(
    text: str, session: str, cwd: Path, reviewer: str = "code-reviewer"
) -> dict[str, Any]:
    """The recorded PostToolUse input of a review subagent that answered `text`."""
    data = recorded("post-tool-use-malformed", session, cwd)
    data["tool_input"]["subagent_type"] = reviewer
    data["tool_response"]["content"] = [{"type": "text", "text": text}]
    return data


def run_hook(
    stdin: bytes | dict[str, Any], cwd: Path, *args: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run the real console script; return its one JSON answer (exit code 0 asserted)."""
    data = json.dumps(stdin).encode() if isinstance(stdin, dict) else stdin
    proc = subprocess.run(
        [str(BIN / "mergegate"), "hook", "claude-code", *args],
        input=data,
        cwd=cwd,
        capture_output=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert out.count("\n") == 1, out  # exactly one line
    assert b"Traceback" not in proc.stderr
    answer: dict[str, Any] = json.loads(out)
    return answer


def denied(answer: dict[str, Any]) -> str | None:
    """The PreToolUse denial's reason, or None when the call may run."""
    specific = answer.get("hookSpecificOutput", {})
    if specific.get("permissionDecision") == "deny":
        reason: str = specific["permissionDecisionReason"]
        return reason
    if answer.get("decision") == "block":  # Claude Code refuses a PreToolUse call on this too
        block: str = answer["reason"]
        return block
    return None
