"""Codex through `CodexBackend`: what only Codex does (the Responses protocol through a `-c`
custom provider, shell and apply_patch edits, usage as a thread total turned into per-run
deltas) and the `mergegate agent run` command.

Observed on Codex 0.169.0: one `POST /v1/responses` (stream) per model turn; the tools offered
are `exec_command`, `write_stdin`, ... (no separate `apply_patch` tool, even for gpt-5 model
names: an `apply_patch` heredoc sent through `exec_command` is intercepted and applied).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _realcli import CODEX_MODEL, DUMMY_KEY, GitRepo, RealCli, isolated_env
from click.testing import CliRunner

from mergegate.agents import RunStatus, Usage
from mergegate.cli import cli
from mergegate.testing.model_server import Api, ModelServer, Script, ToolCall, Turn

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


def _events(log: Path | None, kind: str) -> list[dict[str, Any]]:
    assert log is not None
    events = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [e for e in events if e.get("type") == kind]


def test_shell_and_apply_patch_edit_the_files(codex_cli: RealCli, git_repo: GitRepo) -> None:
    shell = ToolCall(name="exec_command", arguments={"cmd": "printf 'made\\n' > made.txt"})
    patch = ToolCall(name="exec_command", arguments={"cmd": PATCH})
    script = Script(
        turns=[
            Turn(match="EDIT_FILES", tool_calls=[shell]),
            Turn(match="EDIT_FILES", tool_calls=[patch]),
            Turn(match="EDIT_FILES", text="EDITS_DONE"),
        ]
    )
    with ModelServer(script) as server:
        result = codex_cli.run(server, "EDIT_FILES now", git_repo.path)
    assert result.status is RunStatus.OK, result
    assert (result.text, result.exit_code) == ("EDITS_DONE", 0)
    assert git_repo.read("made.txt") == "made\n"
    assert git_repo.read("hello.txt") == "hello from codex\n"
    # The only warning is Codex's own note about the unknown model name.
    assert [w for w in result.warnings if "Model metadata" not in w] == []
    # The wire protocol, through the provider mergegate defined with -c overrides.
    assert [r.turn for r in server.requests] == [0, 1, 2]
    first = server.requests[0]
    assert (first.api, first.path, first.stream, first.model) == (
        Api.RESPONSES,
        "/v1/responses",
        True,
        CODEX_MODEL,
    )
    assert "exec_command" in first.tool_names
    assert first.headers["authorization"] == "<redacted>"  # api_key → the provider's env_key
    assert {r.headers["session-id"] for r in server.requests} == {result.session_id}
    items = [e["item"] for e in _events(result.log_path, "item.completed")]
    changes = [item["changes"] for item in items if item["type"] == "file_change"]
    assert changes == [[{"path": str(git_repo.path / "hello.txt"), "kind": "update"}]]


def test_resumed_usage_is_this_runs_share_of_the_thread_total(
    codex_cli: RealCli, git_repo: GitRepo
) -> None:
    script = Script(
        turns=[Turn(match="FIRST_ASK", text="first"), Turn(match="SECOND_ASK", text="second")]
    )
    repo = git_repo.path
    with ModelServer(script) as server:
        backend = codex_cli.backend(server)
        first = codex_cli.run(server, "FIRST_ASK", repo, backend=backend)
        session = first.session_id
        second = codex_cli.run(
            server, "SECOND_ASK", repo, backend=backend, resume_session_id=session
        )
        # A fresh backend instance has not seen the thread's earlier total.
        third = codex_cli.run(server, "SECOND_ASK", repo, resume_session_id=session)
    assert (first.ok, second.ok, third.ok) == (True, True, True)
    (completed,) = _events(second.log_path, "turn.completed")
    raw = completed["usage"]
    # Codex reports the thread total; mergegate reports the delta against the first run.
    assert raw["input_tokens"] > first.usage.input_tokens
    assert second.usage.input_tokens == raw["input_tokens"] - first.usage.input_tokens
    assert second.usage.output_tokens == raw["output_tokens"] - first.usage.output_tokens
    assert second.usage != Usage()
    assert any("running total" in w for w in third.warnings)
    assert not any("running total" in w for w in second.warnings)


def test_agent_run_command_json(
    codex_cli: RealCli, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in isolated_env(codex_cli.home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MG_TEST_KEY", DUMMY_KEY)
    with ModelServer(Script(turns=[Turn(text="CODEX_OK\n>>>HELP<<<")])) as server:
        args = [*codex_cli.cli_args(server, "MG_TEST_KEY"), "--cwd", str(git_repo.path)]
        args += ["--prompt", "hi", "--read-only", "--format", "json"]
        outcome = CliRunner().invoke(cli, ["agent", "run", *args])
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.output)
    assert (result["backend"], result["status"], result["text"]) == (
        "codex",
        "ok",
        "CODEX_OK\n>>>HELP<<<",
    )
    assert [s["marker"] for s in result["signals"]] == [">>>HELP<<<"]
    assert result["session_id"]
    assert result["worktree_changed"] is False
    assert server.requests[0].headers["authorization"] == "<redacted>"
