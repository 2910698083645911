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


def done(task: str) -> str:
    """The `agent-result` an implementer ends its task with."""
    return json.dumps({"task_id": task, "success": True, "completed_normally": True})


def result_call(task: str, result: str | None = None) -> ToolCall:
    """The `agent-result` given the way `--json-schema` asks for it: Claude Code's
    `StructuredOutput` tool, whose input is the run's typed answer."""
    return ToolCall(name="StructuredOutput", arguments=result or done(task))


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
            Turn(match="# Task T1:", tool_calls=[result_call("T1")]),
            write("bye.txt", "bye\n"),
            Turn(match="# Task T2:", tool_calls=[result_call("T2")]),
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
        report = execute_run(state, RUN_ID, config).dump()
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


def test_a_help_line_in_claude_codes_stream_consults_an_advisor_and_resumes_its_session(
    claude_cli: RealCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**isolated_env(claude_cli.home), "CLAUDE_CODE_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(KEY_ENV, DUMMY_KEY)
    repo = repo_with(tmp_path / "repo")
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    run_id = "real-claude-help"
    workspace = state / "worktrees" / run_id / "A"
    plan = make_plan({"P1": {"A": {"checks": {"T1": ["grep -qx hi hello.txt"]}}}})
    stuck = (
        "Two ways to do this and I cannot tell which one.\n>>>HELP<<<\n"
        '{"reason": "which file?", "question": "hello.txt or greeting.txt?"}\n'
    )
    claim = (
        '{"task_id": "T1", "success": false, "completed_normally": false, "requested_help": true}'
    )
    write = {"file_path": str(workspace / "hello.txt"), "content": "hi\n"}
    script = Script(
        turns=[
            Turn(
                match="You are the implementer of task T1",
                text=stuck,
                tool_calls=[result_call("T1", claim)],
            ),
            Turn(
                match="You asked for help on task T1",
                tool_calls=[ToolCall(name="Write", arguments=write)],
            ),
            Turn(match="You asked for help on task T1", tool_calls=[result_call("T1")]),
        ],
        chunk_chars=4,  # the marker arrives split across stream deltas
    )
    guidance = {"guidance": "GUIDANCE-7Q: write hi into hello.txt", "action": "continue"}
    advisor = agent(tmp_path, "adv", {"*": {"advise": [{"text": json.dumps(guidance)}]}})
    with ModelServer(script) as server:
        _configure(repo, claude_cli, server)
        config = load_config(repo)
        create_run(
            RunRequest(
                plan=plan,
                repo=repo,
                state_dir=state,
                agents=RunAgents(
                    implementer=AgentSpec(name="claude"),
                    reviewer=AgentSpec(cmd=agent(tmp_path, "rev")),
                    advisor_cmds=(advisor,),
                ),
                options=RunOptions.from_config(config),
                run_id=run_id,
            )
        )
        report = execute_run(state, run_id, config).dump()
        requests = list(server.requests)
    assert report["status"] == "completed", report
    [task] = report["units"][0]["tasks"]
    assert (task["decision"], task["help_requests"]) == ("approved", 1)
    assert git(repo, "show", f"{report['into']}:hello.txt") == "hi"
    # one session: the advice went to the implementer's own conversation, resumed
    assert len({r.headers["x-claude-code-session-id"] for r in requests}) == 1
    history = json.dumps(requests[-1].body["messages"])
    assert "hello.txt or greeting.txt?" in history
    assert "GUIDANCE-7Q" in history
    attempts = Path(report["run_dir"]) / "P1" / "A" / "T1" / "attempts"
    argv = json.loads((attempts / "02-implementer" / "process.json").read_text())["argv"]
    assert "--resume" in argv
