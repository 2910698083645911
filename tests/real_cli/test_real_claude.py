"""The real Claude Code CLI (`claude -p`) against `ModelServer`: text, file edits, faults, resume.

Observed on Claude Code 2.1.330: one `POST /v1/messages?beta=true` (stream) per model turn;
no `count_tokens` call in `-p` mode; tools offered include `Bash`, `Edit`, `Read`, `Write`.
"""

from __future__ import annotations

from typing import Any

import pytest

from mergegate.agents.model_server import (
    Api,
    Fault,
    FaultKind,
    ModelServer,
    Script,
    ToolCall,
    Turn,
)

pytestmark = pytest.mark.real_cli


def _result(run: Any) -> dict[str, Any]:
    results = run.of_type("result")
    assert len(results) == 1, run.describe()
    result: dict[str, Any] = results[0]
    return result


def test_plain_text_answer(claude: Any, tmp_path: Any) -> None:
    script = Script(turns=[Turn(text="PLAIN_OK from the scripted model")])
    with ModelServer(script) as server:
        run = claude(server, "say something", cwd=tmp_path)
    result = _result(run)
    assert run.exit_code == 0, run.describe()
    assert (result["subtype"], result["is_error"]) == ("success", False)
    assert result["result"] == "PLAIN_OK from the scripted model"
    init = run.of_type("system")[0]
    assert result["session_id"] == init["session_id"]
    (request,) = server.requests
    assert (request.api, request.path, request.query, request.stream) == (
        Api.ANTHROPIC_MESSAGES,
        "/v1/messages",
        "beta=true",
        True,
    )
    assert "say something" in request.prompt
    assert {"Bash", "Edit", "Read", "Write"} <= set(request.tool_names)
    assert request.headers["x-claude-code-session-id"] == init["session_id"]
    # Usage normalization input: the server's deterministic counts reach the result.
    assert result["usage"]["output_tokens"] > 0


def test_write_and_edit_tool_calls_change_the_file(claude: Any, git_repo: Any) -> None:
    target = str(git_repo.path / "notes.txt")
    hello = str(git_repo.path / "hello.txt")
    script = Script(
        turns=[
            Turn(
                match="EDIT_FILES",
                tool_calls=[
                    ToolCall(name="Write", arguments={"file_path": target, "content": "draft\n"})
                ],
            ),
            # Claude Code refuses to Edit a file it has not Read in this session.
            Turn(
                match="EDIT_FILES",
                tool_calls=[ToolCall(name="Read", arguments={"file_path": hello})],
            ),
            Turn(
                match="EDIT_FILES",
                tool_calls=[
                    ToolCall(
                        name="Edit",
                        arguments={
                            "file_path": hello,
                            "old_string": "hello world",
                            "new_string": "hello from a real CLI",
                        },
                    )
                ],
            ),
            Turn(match="EDIT_FILES", text="EDITS_DONE"),
        ]
    )
    with ModelServer(script) as server:
        run = claude(
            server, "EDIT_FILES please", "--permission-mode", "acceptEdits", cwd=git_repo.path
        )
    result = _result(run)
    assert (result["is_error"], result["result"]) == (False, "EDITS_DONE"), run.describe()
    assert git_repo.read("notes.txt") == "draft\n"
    assert git_repo.read("hello.txt") == "hello from a real CLI\n"
    tool_uses = [
        block["name"]
        for event in run.of_type("assistant")
        for block in event["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert tool_uses == ["Write", "Read", "Edit"]
    tool_errors = [
        block
        for event in run.of_type("user")
        for block in event["message"]["content"]
        if block.get("is_error")
    ]
    assert tool_errors == []
    assert [r.turn for r in server.requests] == [0, 1, 2, 3]
    assert result["permission_denials"] == []


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (Fault(kind=FaultKind.RATE_LIMIT, retry_after_s=0.1, message="scripted rate limit"), 429),
        (Fault(kind=FaultKind.HTTP_ERROR, status=500, message="scripted outage"), 500),
    ],
)
def test_api_fault_is_reported_as_an_error(
    claude: Any, tmp_path: Any, fault: Fault, status: int
) -> None:
    with ModelServer(Script(turns=[Turn(fault=fault)])) as server:
        run = claude(server, "hello", cwd=tmp_path, env={"CLAUDE_CODE_MAX_RETRIES": "1"})
    result = _result(run)
    # Claude Code 2.1.330: subtype "success" but is_error true, and exit 1 (agent-clis.md §3).
    assert result["is_error"] is True, run.describe()
    assert result["api_error_status"] == status
    assert result["terminal_reason"] == "api_error"
    assert run.exit_code == 1
    # One try plus the one retry allowed, all answered with the fault.
    assert [r.status for r in server.requests] == [status, status]
    if status == 429:
        assert run.of_type("system")[1]["subtype"] == "api_retry"


def test_resume_keeps_the_session(claude: Any, git_repo: Any) -> None:
    script = Script(
        turns=[
            Turn(match="FIRST_ASK", text="first answer"),
            Turn(match="SECOND_ASK", text="second"),
        ]
    )
    with ModelServer(script) as server:
        first = claude(server, "FIRST_ASK", cwd=git_repo.path)
        session = _result(first)["session_id"]
        second = claude(server, "SECOND_ASK", "--resume", session, cwd=git_repo.path)
    result = _result(second)
    assert (result["result"], result["session_id"]) == ("second", session), second.describe()
    last = server.requests[-1]
    # The resumed request carries the whole conversation.
    assert [m["role"] for m in last.body["messages"]] == ["user", "assistant", "user"]
