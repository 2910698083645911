"""What every real CLI backend must get right, run against both Claude Code and Codex through
`get_backend(...)` and a `ModelServer`: the normalized `AgentResult` of a plain answer, API
faults, resume, read-only runs (the CLI's own flags, and the git snapshot when those do not
hold), help signals, and a hang (stalled, nothing left alive)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _realcli import GitRepo, RealCli, processes_of

from mergegate.agents import RunStatus
from mergegate.testing.model_server import Fault, FaultKind, ModelServer, Script, Turn

pytestmark = pytest.mark.real_cli


def test_plain_answer_is_ok_with_session_and_usage(real_cli: RealCli, tmp_path: Path) -> None:
    with ModelServer(Script(turns=[Turn(text="PLAIN_OK from the scripted model")])) as server:
        result = real_cli.run(server, "say something", tmp_path)
    assert result.status is RunStatus.OK, result
    assert result.ok
    assert result.text == "PLAIN_OK from the scripted model"
    assert (result.exit_code, result.error, result.signals) == (0, None, ())
    assert result.session_id
    assert result.log_path is not None
    assert (result.log_path.parent / "session_id").read_text().strip() == result.session_id
    (request,) = server.requests
    assert "say something" in request.prompt
    assert request.headers.get("authorization", request.headers.get("x-api-key")) == "<redacted>"
    # The server's deterministic counts reach the normalized usage.
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0
    if real_cli.name == "claude":
        assert result.turns == 1
        assert result.cost_usd is not None
        assert result.cost_usd > 0
    else:
        assert (result.turns, result.cost_usd) == (None, None)  # Codex reports neither


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (Fault(kind=FaultKind.RATE_LIMIT, retry_after_s=0.1, message="scripted rate limit"), 429),
        (Fault(kind=FaultKind.HTTP_ERROR, status=500, message="scripted outage"), 500),
    ],
    ids=["429", "500"],
)
def test_api_fault_is_an_error_never_ok(
    real_cli: RealCli, tmp_path: Path, fault: Fault, status: int
) -> None:
    with ModelServer(Script(turns=[Turn(fault=fault)])) as server:
        result = real_cli.run(server, "hello", tmp_path)
    assert result.status is RunStatus.ERROR, result
    assert not result.ok
    assert result.error is not None
    if real_cli.name == "claude":
        assert str(status) in result.error, result.error
        assert fault.message in result.error  # Claude Code passes the body's message on
    elif status == 429:
        assert "429" in result.error, result.error  # "exceeded retry limit, last status: 429"
    else:
        # Codex 0.169 replaces a 5xx with a canned message, without the status or the body.
        assert "high demand" in result.error, result.error
    assert result.exit_code == 1
    assert result.session_id  # still known: the run can be resumed
    assert {r.status for r in server.requests} == {status}


def test_resume_continues_the_session_in_the_same_cwd(real_cli: RealCli, git_repo: GitRepo) -> None:
    script = Script(
        turns=[
            Turn(match="FIRST_ASK", text="first answer"),
            Turn(match="SECOND_ASK", text="second answer"),
        ]
    )
    with ModelServer(script) as server:
        backend = real_cli.backend(server)  # one instance: it keeps Codex thread totals
        first = real_cli.run(server, "FIRST_ASK", git_repo.path, backend=backend)
        assert first.ok, first
        second = real_cli.run(
            server,
            "SECOND_ASK",
            git_repo.path,
            backend=backend,
            resume_session_id=first.session_id,
        )
    assert second.status is RunStatus.OK, second
    assert (second.text, second.session_id) == ("second answer", first.session_id)
    last = server.requests[-1]
    assert last.prompt.endswith("SECOND_ASK")
    history = json.dumps(last.body)
    assert "FIRST_ASK" in history
    assert "first answer" in history
    assert second.usage.input_tokens > 0
    assert second.warnings == first.warnings  # no "running total" warning on Codex


@pytest.mark.parametrize("marker_line", [True, False], ids=["own-line", "embedded"])
def test_help_marker_only_as_a_whole_line(
    real_cli: RealCli, tmp_path: Path, marker_line: bool
) -> None:
    text = (
        'I am stuck.\n>>>HELP<<<\n{"reason": "need credentials"}'
        if marker_line
        else "No need to write >>>HELP<<< here, all done."
    )
    with ModelServer(Script(turns=[Turn(text=text)])) as server:
        result = real_cli.run(server, "ask for help if needed", tmp_path)
    assert result.ok, result
    assert result.text == text
    if marker_line:
        (signal,) = result.signals
        assert signal.marker == ">>>HELP<<<"
        assert signal.context == {"reason": "need credentials"}
        assert result.requested_help
    else:
        assert result.signals == ()


def test_read_only_flags_refuse_the_write(real_cli: RealCli, git_repo: GitRepo) -> None:
    target = git_repo.path / "intruder.txt"
    script = Script(
        turns=[
            Turn(match="REVIEW", tool_calls=[real_cli.write_call(target, "x")]),
            Turn(match="REVIEW", text="REVIEWED"),
        ]
    )
    with ModelServer(script) as server:
        result = real_cli.run(server, "REVIEW the code", git_repo.path, read_only=True)
    assert not target.exists()
    assert result.status is RunStatus.OK, result
    assert (result.ok, result.worktree_changed, result.text) == (True, False, "REVIEWED")
    # How the CLI refused: the tool result sent back to the model.
    refusal = json.dumps(server.requests[-1].body)
    if real_cli.name == "claude":
        assert "Write" not in server.requests[0].tool_names  # --tools Read,Grep,Glob
        assert "No such tool available: Write" in refusal
    else:
        assert "Read-only file system" in refusal  # --sandbox read-only


def test_snapshot_voids_a_read_only_run_whose_flags_did_not_hold(
    real_cli: RealCli, git_repo: GitRepo
) -> None:
    target = git_repo.path / "intruder.txt"
    script = Script(
        turns=[
            Turn(match="REVIEW", tool_calls=[real_cli.write_call(target, "x")]),
            Turn(match="REVIEW", text="REVIEWED"),
        ]
    )
    with ModelServer(script) as server:
        leaky = real_cli.backend(server, leaky=True)
        result = real_cli.run(
            server, "REVIEW the code", git_repo.path, read_only=True, backend=leaky
        )
    assert target.read_text() == "x"  # the CLI did write
    assert result.status is RunStatus.OK  # the agent's own verdict stays visible ...
    assert result.worktree_changed  # ... but the attempt is void
    assert not result.ok
    assert result.error is not None
    assert "intruder.txt" in result.error


def test_hang_is_stalled_and_leaves_no_process(real_cli: RealCli, tmp_path: Path) -> None:
    hang = Fault(kind=FaultKind.HANG, duration_s=60)
    with ModelServer(Script(turns=[Turn(fault=hang)])) as server:
        result = real_cli.run(server, "hello", tmp_path, stall_timeout_s=2.0)
        assert server.requests, "the CLI never reached the server"
    assert result.status is RunStatus.STALLED, result
    assert not result.ok
    assert result.pid is not None
    assert processes_of(result.pid) == []
    assert result.session_id  # captured before the hang: the run can be resumed
