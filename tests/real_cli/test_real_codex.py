"""The real Codex CLI (`codex exec --json`) against `ModelServer` through a custom provider with
`wire_api = "responses"`: text, a shell edit, an apply_patch edit, a fault, resume.

Observed on Codex 0.169.0: one `POST /v1/responses` (stream) per model turn; with an unknown
model the tools offered are `exec_command`, `write_stdin`, ... (no separate `apply_patch`
tool: an `apply_patch` heredoc sent through `exec_command` is intercepted and applied by Codex).
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

PATCH = """apply_patch <<'EOF'
*** Begin Patch
*** Update File: hello.txt
@@
-hello world
+hello from codex
*** End Patch
EOF
"""


def _final_text(run: Any) -> str:
    messages = [
        e["item"]["text"]
        for e in run.of_type("item.completed")
        if e["item"]["type"] == "agent_message"
    ]
    return messages[-1] if messages else ""


def test_plain_text_answer(codex: Any, tmp_path: Any) -> None:
    with ModelServer(Script(turns=[Turn(text="CODEX_OK from the script")])) as server:
        run = codex(server, "say something", cwd=tmp_path)
    assert run.exit_code == 0, run.describe()
    assert len(run.of_type("turn.completed")) == 1, run.describe()
    assert _final_text(run) == "CODEX_OK from the script"
    usage = run.of_type("turn.completed")[0]["usage"]
    assert usage["output_tokens"] > 0
    (request,) = server.requests
    assert (request.api, request.path, request.stream) == (Api.RESPONSES, "/v1/responses", True)
    assert request.prompt.endswith("say something")
    assert "exec_command" in request.tool_names
    thread = run.of_type("thread.started")[0]["thread_id"]
    assert request.headers["session-id"] == thread


def test_shell_tool_call_writes_a_file(codex: Any, git_repo: Any) -> None:
    command = ToolCall(
        name="exec_command", arguments={"cmd": "printf 'made by codex\\n' > made.txt"}
    )
    script = Script(
        turns=[Turn(match="MAKE_FILE", tool_calls=[command]), Turn(match="MAKE_FILE", text="MADE")]
    )
    with ModelServer(script) as server:
        run = codex(server, "MAKE_FILE now", cwd=git_repo.path)
    assert _final_text(run) == "MADE", run.describe()
    assert git_repo.read("made.txt") == "made by codex\n"
    executions = [
        e["item"] for e in run.of_type("item.completed") if e["item"]["type"] == "command_execution"
    ]
    assert [(x["exit_code"], x["status"]) for x in executions] == [(0, "completed")]
    # The second request carries the function call and its output back.
    kinds = [item.get("type") for item in server.requests[1].body["input"]]
    assert kinds[-2:] == ["function_call", "function_call_output"]


def test_apply_patch_edits_a_file(codex: Any, git_repo: Any) -> None:
    patch = ToolCall(name="exec_command", arguments={"cmd": PATCH})
    script = Script(
        turns=[Turn(match="PATCH_IT", tool_calls=[patch]), Turn(match="PATCH_IT", text="PATCHED")]
    )
    with ModelServer(script) as server:
        run = codex(server, "PATCH_IT", cwd=git_repo.path)
    assert _final_text(run) == "PATCHED", run.describe()
    assert git_repo.read("hello.txt") == "hello from codex\n"
    changes = [
        e["item"]["changes"]
        for e in run.of_type("item.completed")
        if e["item"]["type"] == "file_change"
    ]
    assert changes == [[{"path": str(git_repo.path / "hello.txt"), "kind": "update"}]]


def test_rate_limit_fails_the_turn(codex: Any, tmp_path: Any) -> None:
    fault = Fault(kind=FaultKind.RATE_LIMIT, retry_after_s=0.1, message="scripted rate limit")
    with ModelServer(Script(turns=[Turn(fault=fault)])) as server:
        run = codex(server, "hello", cwd=tmp_path, retries=0)
    failed = run.of_type("turn.failed")
    assert len(failed) == 1, run.describe()
    assert "429" in failed[0]["error"]["message"]
    assert run.of_type("turn.completed") == []
    assert run.exit_code == 1
    assert {r.status for r in server.requests} == {429}


def test_resume_keeps_the_thread(codex: Any, git_repo: Any) -> None:
    script = Script(
        turns=[
            Turn(match="FIRST_ASK", text="first answer"),
            Turn(match="SECOND_ASK", text="second"),
        ]
    )
    with ModelServer(script) as server:
        first = codex(server, "FIRST_ASK", cwd=git_repo.path)
        thread = first.of_type("thread.started")[0]["thread_id"]
        # Exec options go before `resume` (agent-clis.md §4).
        second = codex(server, "resume", thread, "SECOND_ASK", cwd=git_repo.path)
    assert second.of_type("thread.started")[0]["thread_id"] == thread, second.describe()
    assert _final_text(second) == "second"
    first_usage = first.of_type("turn.completed")[0]["usage"]["input_tokens"]
    second_usage = second.of_type("turn.completed")[0]["usage"]["input_tokens"]
    # Codex reports the thread total, so the resumed run's count includes the first run's.
    assert second_usage > first_usage
    assert server.requests[-1].prompt.endswith("SECOND_ASK")
