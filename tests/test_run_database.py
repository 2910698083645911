"""Where a run keeps its durable state: its own SQLite file by default, or the database
`[engine] database_url` / `MERGEGATE_DATABASE_URL` names (one SQLite file for every run here;
PostgreSQL in the `fleet` tests); and the fleet's commands refusing to start without
PostgreSQL (exit 2, one line, nothing made)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from _gitrepo import git
from _plan_runs import agent, invoke, make_plan, repo_with, run_args, trailers
from mergegate.cli import cli
from mergegate.engine import EngineRunRecord
from mergegate.store import RunState, RunStore


def _args(repo: Path, tmp_path: Path) -> list[str]:
    impl = agent(tmp_path, "impl", {"*": {"implement": [{}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    return run_args(repo, impl, rev)


def test_runs_share_the_configured_database_and_keep_to_their_own_workflows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared" / "dbos.sqlite"
    shared.parent.mkdir()
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", f"sqlite:///{shared}")
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    reports = []
    for name in ("one", "two"):
        repo = repo_with(tmp_path / name)
        code, out, err = invoke(_args(repo, tmp_path), plan, tmp_path)
        assert code == 0, err
        assert out is not None
        reports.append((repo, out))
    for repo, out in reports:
        assert sorted(trailers(repo, out["into"])) == [
            f"Mergegate-Unit: {out['run_id']}/A",
            f"Mergegate-Unit: {out['run_id']}/B",
        ]
        record = json.loads((Path(out["run_dir"]) / "run.json").read_text())
        assert record["database"] == f"sqlite:///{shared}"
    # both runs' state is in the one file; no run made a file of its own
    assert shared.is_file()
    assert [p for p in tmp_path.rglob("*.sqlite") if p != shared] == []


def _interrupted(state: Path, run_id: str, database_url: str | None) -> None:
    """Make a finished run look stopped by a crash (its card says `running`)."""
    store = RunStore(state, database_url)
    record = store.load(run_id, EngineRunRecord)
    record.status, record.exit_code = RunState.RUNNING, None
    store.save(record)


def test_a_run_does_not_continue_on_another_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "dbos.sqlite"
    url = f"sqlite:///{shared}"
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", url)
    repo = repo_with(tmp_path / "repo")
    code, out, err = invoke(_args(repo, tmp_path), make_plan({"P1": {"A": {}}}), tmp_path)
    assert code == 0, err
    assert out is not None
    _interrupted(tmp_path / ".mergegate-state", out["run_id"], url)
    # resumed without the database configured: the run is nowhere this process looks
    monkeypatch.delenv("MERGEGATE_DATABASE_URL")
    result = CliRunner().invoke(cli, ["resume", out["run_id"], "--repo", str(repo)])
    assert result.exit_code == 2
    assert "keeps its state in a database this process is not configured for" in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_a_run_on_its_own_file_does_not_continue_on_a_configured_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MERGEGATE_DATABASE_URL", raising=False)
    repo = repo_with(tmp_path / "repo")
    code, out, err = invoke(_args(repo, tmp_path), make_plan({"P1": {"A": {}}}), tmp_path)
    assert code == 0, err
    assert out is not None
    _interrupted(tmp_path / ".mergegate-state", out["run_id"], None)
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", f"sqlite:///{tmp_path / 'shared.sqlite'}")
    # status reads it where it is...
    status = CliRunner().invoke(cli, ["status", out["run_id"], "--repo", str(repo)])
    assert status.exit_code == 0, status.output
    # ...but it goes on only on the database it started on
    result = CliRunner().invoke(cli, ["resume", out["run_id"], "--repo", str(repo)])
    assert result.exit_code == 2
    assert "keeps its state in its own SQLite file" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "argv",
    [["worker", "--id", "w1"], ["workers", "recover", "w1"]],
)
def test_fleet_commands_need_postgres(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite'}")
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2, result.output
    assert "the fleet needs a Postgres database" in result.stderr
    assert not (tmp_path / "x.sqlite").exists()


def test_run_queue_without_postgres_is_a_usage_error_and_makes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MERGEGATE_DATABASE_URL", raising=False)
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}}})
    code, out, err = invoke([*_args(repo, tmp_path), "--queue"], plan, tmp_path)
    assert code == 2
    assert out is None
    assert "the fleet needs a Postgres database" in err
    state = Path(tmp_path / ".mergegate-state")
    assert not (state / "runs").exists() or list((state / "runs").iterdir()) == []


@pytest.mark.parametrize("argv", [["worker", "--id", "../x"], ["workers", "recover", "a b"]])
def test_a_worker_id_is_checked(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2, result.output
    assert "not a worker id" in result.stderr


@pytest.mark.parametrize("argv", [["worker", "--id", "w1"], ["workers", "recover", "w1"]])
def test_an_unreachable_database_is_one_line_and_exit_4(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", f"postgresql://u:hunter2@127.0.0.1:{port}/x")
    extra = ["--workdir", str(tmp_path / "w")] if argv[0] == "worker" else []
    result = CliRunner().invoke(cli, [*argv, *extra])
    assert result.exit_code == 4, result.output
    assert f"the database postgresql://u:***@127.0.0.1:{port}/x cannot be reached" in result.stderr
    assert "hunter2" not in result.output
    assert "Traceback" not in result.output


def test_run_queue_refuses_manual_review_before_making_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing listens there: the refusal comes before any connection
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", "postgresql://u@127.0.0.1:1/x")
    monkeypatch.setenv("MERGEGATE_REVIEW__MODE", "manual")
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}}})
    code, out, err = invoke([*_args(repo, tmp_path), "--queue"], plan, tmp_path)
    assert code == 2
    assert out is None
    assert "a fleet worker has none: nothing was queued" in err
    assert "mergegate/" not in git(repo, "branch", "--list")
