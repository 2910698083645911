"""Claude Code through `ClaudeBackend`: what only Claude does (the wire protocol it speaks,
Write/Read/Edit tool calls, cost and turns, resume scoped by directory) and the
`mergegate agent run` command.

Observed on Claude Code 2.1.330: one `POST /v1/messages?beta=true` (stream) per model turn;
no `count_tokens` call in `-p` mode; tools offered include `Bash`, `Edit`, `Read`, `Write`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _realcli import CLAUDE_MODEL, DUMMY_KEY, GitRepo, RealCli, isolated_env
from click.testing import CliRunner

from mergegate.agents import RunStatus
from mergegate.cli import cli
from mergegate.testing.model_server import Api, ModelServer, Script, ToolCall, Turn

pytestmark = pytest.mark.real_cli


def test_write_read_edit_change_the_files(claude_cli: RealCli, git_repo: GitRepo) -> None:
    notes = str(git_repo.path / "notes.txt")
    hello = str(git_repo.path / "hello.txt")
    write = {"file_path": notes, "content": "d\n"}
    read = {"file_path": hello}
    edit = {"file_path": hello, "old_string": "hello world", "new_string": "hello from claude"}
    script = Script(
        turns=[
            Turn(match="EDIT_FILES", tool_calls=[ToolCall(name="Write", arguments=write)]),
            # Claude Code refuses to Edit a file it has not Read in this session.
            Turn(match="EDIT_FILES", tool_calls=[ToolCall(name="Read", arguments=read)]),
            Turn(match="EDIT_FILES", tool_calls=[ToolCall(name="Edit", arguments=edit)]),
            Turn(match="EDIT_FILES", text="EDITS_DONE"),
        ]
    )
    with ModelServer(script) as server:
        result = claude_cli.run(server, "EDIT_FILES please", git_repo.path)
    assert result.status is RunStatus.OK, result
    assert (result.text, result.turns, result.warnings) == ("EDITS_DONE", 4, ())
    assert git_repo.read("notes.txt") == "d\n"
    assert git_repo.read("hello.txt") == "hello from claude\n"
    assert result.cost_usd is not None
    assert result.cost_usd > 0
    assert result.usage.output_tokens > 0
    # The wire protocol, as Claude Code speaks it.
    assert [r.turn for r in server.requests] == [0, 1, 2, 3]
    first = server.requests[0]
    assert (first.api, first.path, first.query, first.stream, first.model) == (
        Api.ANTHROPIC_MESSAGES,
        "/v1/messages",
        "beta=true",
        True,
        CLAUDE_MODEL,
    )
    assert {"Bash", "Edit", "Read", "Write"} <= set(first.tool_names)
    assert {r.headers["x-claude-code-session-id"] for r in server.requests} == {result.session_id}
    tool_results = [
        block
        for message in server.requests[-1].body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(tool_results) == 3
    assert not any(block.get("is_error") for block in tool_results)


def test_resume_of_an_unknown_session_is_an_error_and_other_dirs_are_found(
    claude_cli: RealCli, git_repo: GitRepo, tmp_path: Path
) -> None:
    script = Script(turns=[Turn(text="an answer")], when_exhausted="repeat_last")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    unknown = "00000000-0000-4000-8000-000000000000"
    with ModelServer(script) as server:
        first = claude_cli.run(server, "FIRST", git_repo.path)
        lost = claude_cli.run(server, "AGAIN", git_repo.path, resume_session_id=unknown)
        moved = claude_cli.run(server, "MOVED", elsewhere, resume_session_id=first.session_id)
    assert first.ok, first
    # An unknown id: a `result` with error_during_execution, exit 1, no model call.
    assert lost.status is RunStatus.ERROR, lost
    assert lost.error is not None
    assert "No conversation found" in lost.error
    assert lost.session_id == unknown
    # 2.1.330 finds a session started in another directory (older builds did not, see
    # agent-clis.md §2.10) and runs it in the new one: mergegate resumes in the same cwd
    # itself rather than relying on either behaviour.
    assert moved.status is RunStatus.OK, moved
    assert moved.session_id == first.session_id
    assert "FIRST" in json.dumps(server.requests[-1].body)
    assert len(server.requests) == 2


def test_agent_run_command_json_and_resume(
    claude_cli: RealCli, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in isolated_env(claude_cli.home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MG_TEST_KEY", DUMMY_KEY)
    script = Script(
        turns=[Turn(match="FIRST_ASK", text="first"), Turn(match="SECOND_ASK", text="second")]
    )
    runner = CliRunner()
    with ModelServer(script) as server:
        common = [*claude_cli.cli_args(server, "MG_TEST_KEY"), "--cwd", str(git_repo.path)]
        common += ["--timeout", "60", "--stall-timeout", "30", "--format", "json"]
        first = runner.invoke(cli, ["agent", "run", *common, "--prompt", "FIRST_ASK"])
        assert first.exit_code == 0, first.output
        session = json.loads(first.output)["session_id"]
        second = runner.invoke(
            cli, ["agent", "run", *common, "--prompt", "SECOND_ASK", "--resume", session]
        )
    assert second.exit_code == 0, second.output
    result = json.loads(second.output)
    assert (result["backend"], result["status"], result["text"]) == ("claude", "ok", "second")
    assert result["session_id"] == session
    assert result["turns"] == 1
    assert result["usage"]["input_tokens"] > 0
    assert server.requests[-1].headers["x-api-key"] == "<redacted>"
