"""`mergegate run` with the real Claude Code CLI as the implementer, against an in-test
`mergegate model-server` whose scripted turns make Claude Code's own `Write` tool create the
task's files in the unit's workspace.

Two tasks of one unit: the second implementer run resumes the first one's session (Claude
Code sends its session id on every request), mergegate commits each task, runs its check,
has it reviewed (a scripted command reviewer), merges the unit and verifies the phase.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _realcli import CLAUDE_MODEL, DUMMY_KEY, RealCli, isolated_env

from _gitrepo import git
from _plan_runs import agent, make_plan, repo_with, trailers
from mergegate.config import load_config
from mergegate.engine import AgentSpec, RunAgents, RunOptions, RunRequest, create_run, execute_run
from mergegate.testing.model_server import ModelServer, Script, ToolCall, Turn

pytestmark = pytest.mark.real_cli

KEY_ENV = "MG_REAL_RUN_KEY"
RUN_ID = "real-claude-run"


def _configure(repo: Path, claude: RealCli, server: ModelServer) -> None:
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
    # the config file is this test's: keep it out of the unit's commits
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")


def test_claude_code_implements_two_tasks_in_one_session(
    claude_cli: RealCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**isolated_env(claude_cli.home), "CLAUDE_CODE_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(KEY_ENV, DUMMY_KEY)
    repo = repo_with(tmp_path / "repo")
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    workspace = state / "worktrees" / RUN_ID / "A"
    checks = {"T1": ["grep -qx hi hello.txt"], "T2": ["grep -qx bye bye.txt"]}
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"], "checks": checks}}})

    def write(name: str, content: str) -> Turn:
        arguments = {"file_path": str(workspace / name), "content": content}
        return Turn(
            match=f"# Task T{1 if name == 'hello.txt' else 2}:",
            tool_calls=[ToolCall(name="Write", arguments=arguments)],
        )

    script = Script(
        turns=[
            write("hello.txt", "hi\n"),
            Turn(match="# Task T1:", text="Wrote hello.txt."),
            write("bye.txt", "bye\n"),
            Turn(match="# Task T2:", text="Wrote bye.txt."),
        ]
    )
    reviewer = agent(tmp_path, "rev")
    with ModelServer(script) as server:
        _configure(repo, claude_cli, server)
        config = load_config(repo)
        create_run(
            RunRequest(
                plan=plan,
                repo=repo,
                state_dir=state,
                agents=RunAgents(
                    implementer=AgentSpec(name="claude"), reviewer=AgentSpec(cmd=reviewer)
                ),
                options=RunOptions.from_config(config),
                run_id=RUN_ID,
            )
        )
        report = execute_run(state, RUN_ID, config)
        requests = list(server.requests)
    assert report["status"] == "completed", report
    [unit_report] = report["units"]
    assert [t["decision"] for t in unit_report["tasks"]] == ["approved", "approved"]
    into = report["into"]
    assert git(repo, "show", f"{into}:hello.txt") == "hi"
    assert git(repo, "show", f"{into}:bye.txt") == "bye"
    assert trailers(repo, into) == [f"Mergegate-Unit: {RUN_ID}/A"]
    # one commit per task, made by mergegate (Claude Code was told not to commit)
    subjects = git(repo, "log", "--format=%s", f"{into}^2", "--not", f"{into}^1").splitlines()
    assert subjects == ["T2: do T2", "T1: do T1"]
    # the second task resumed the first task's session
    sessions = {r.headers["x-claude-code-session-id"] for r in requests}
    assert len(sessions) == 1, sessions
    assert len(requests) == 4
    assert report["phases"][0]["verification"]["status"] == "passed"
