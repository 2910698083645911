"""`mergegate gc` deletes a finished run's shipped agent logs (issue 28): its copies in the
database and their files in a `file:///` log store; a copy another run still names is kept
until the last run naming it is collected; `--dry-run` lists them and deletes nothing; on
SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from _cards import card
from _plan_runs import repo_with
from mergegate.cli import cli
from mergegate.engine._context.attempt_rows import report_logs, ship_log
from mergegate.plans import Plan, PlanFormat
from mergegate.store import AttemptRecord, LogCopies, RunRows, RunState, RunStore, tables

RUN = "20261101-120000-aaaa"
OTHER = "20261102-120000-bbbb"
RUNNING = "20261103-120000-cccc"


def _ship(
    tmp_path: Path, rows: RunRows, name: str, data: bytes, store_url: str | None = None
) -> str:
    path = tmp_path / "worker" / rows.run_id / name / "agent.stdout.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    record = AttemptRecord(
        attempt=f"P1/U1/T1/attempts/{name}",
        role="implementer",
        backend="command",
        status="ok",
        host="worker-1",
        log_path=str(path),
        log_bytes=len(data),
        log_sha256=sha,
    )
    rows.record_attempt(record)
    assert ship_log(rows, record, store_url)
    return sha


def _stored(database_url: str) -> set[str]:
    with tables(database_url).begin() as conn:
        return {str(r[0]) for r in conn.execute(text("SELECT sha256 FROM mergegate_blobs"))}


@pytest.fixture
def runs(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, str]]:
    """RUN and OTHER completed, RUNNING running, all in one database; their logs shipped:
    RUN's own (`own`, and `in_store` to a file:// log store), one `shared` with OTHER, OTHER's
    own, RUNNING's own and one RUNNING shares with RUN (`with_running`)."""
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", database_url)
    repo = repo_with(tmp_path / "repo")
    store = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url)
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    done = "2026-11-0{}T13:00:00+00:00"
    store.create(card(RUN, status=RunState.COMPLETED, finished=done.format(1)), plan)
    store.create(card(OTHER, status=RunState.COMPLETED, finished=done.format(2)), plan)
    store.create(card(RUNNING, status=RunState.RUNNING), plan)
    bucket = (tmp_path / "bucket").as_uri()
    run, other, running = (store.rows(r) for r in (RUN, OTHER, RUNNING))
    logs = {
        "own": _ship(tmp_path, run, "01-implementer", b"run's own log\n" * 50),
        "in_store": _ship(tmp_path, run, "02-implementer", b"in the store\n" * 50, bucket),
        "shared": _ship(tmp_path, run, "03-implementer", b"the same bytes\n" * 50),
        "with_running": _ship(tmp_path, run, "04-implementer", b"also running\n" * 50),
        "other": _ship(tmp_path, other, "01-implementer", b"other's own\n" * 50),
        "running": _ship(tmp_path, running, "01-implementer", b"running's own\n" * 50),
    }
    _ship(tmp_path, other, "02-implementer", b"the same bytes\n" * 50)
    _ship(tmp_path, running, "02-implementer", b"also running\n" * 50)
    assert _stored(database_url) == set(logs.values())
    return repo, logs


def _gc(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["gc", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_runs_own_logs_go_with_it_and_shared_ones_stay(
    runs: tuple[Path, dict[str, str]], database_url: str, tmp_path: Path
) -> None:
    repo, logs = runs
    (in_store,) = (tmp_path / "bucket").rglob("*.zz")
    code, out, err = _gc(repo, RUN, "--format", "json")
    assert code == 0, err
    [found] = json.loads(out)
    assert sorted(log["sha256"] for log in found["logs"]) == sorted([logs["own"], logs["in_store"]])
    by_sha = {log["sha256"]: log for log in found["logs"]}
    assert by_sha[logs["in_store"]]["location"] == in_store.as_uri()
    assert by_sha[logs["own"]]["location"] is None  # its bytes were in the row
    assert not in_store.exists()
    gone = {logs["own"], logs["in_store"]}
    assert _stored(database_url) == set(logs.values()) - gone
    # the copies RUN shared are whole and still read back, for the runs that name them
    assert LogCopies(tables(database_url)).fetch(logs["shared"], 15 * 50).data == (
        b"the same bytes\n" * 50
    )

    # OTHER collected later: the copy it shared with RUN (collected) goes with it
    code, out, err = _gc(repo, OTHER)
    assert code == 0, err
    assert f"{OTHER}: deleted log {logs['shared']} (750 bytes, in the database)\n" in out
    assert f"{OTHER}: deleted log {logs['other']} " in out
    assert "1 run(s), 0 branch(es) and 2 log(s) deleted" in err
    # a running run's logs, and the one RUN shared with it, are never touched
    assert _stored(database_url) == {logs["running"], logs["with_running"]}
    # again: nothing left to delete
    code, _out, err = _gc(repo, RUN)
    assert code == 0, err
    assert "0 log(s) deleted" in err


def test_dry_run_lists_the_logs_and_deletes_nothing(
    runs: tuple[Path, dict[str, str]], database_url: str, tmp_path: Path
) -> None:
    repo, logs = runs
    before = _stored(database_url)
    code, out, err = _gc(repo, RUN, "--dry-run")
    assert code == 0, err
    assert f"{RUN}: would delete log {logs['own']} (700 bytes, in the database)\n" in out
    assert f"{RUN}: would delete log {logs['in_store']} (650 bytes, file://" in out
    assert logs["shared"] not in out  # OTHER names it and is not collected
    assert "2 log(s) to delete (a dry run: nothing deleted)" in err
    # collected together, a copy shared by the two is listed once (under the first)
    code, out, err = _gc(repo, "--finished-before", "2026-11-10", "--dry-run")
    assert code == 0, err
    assert out.count(logs["shared"]) == 1
    assert f"{RUN}: would delete log {logs['shared']} " in out
    assert logs["with_running"] not in out
    assert "2 run(s), 0 branch(es) and 4 log(s) to delete" in err
    assert _stored(database_url) == before
    assert len(list((tmp_path / "bucket").rglob("*.zz"))) == 1
    # and the real one deletes what the dry run listed
    code, _out, err = _gc(repo, "--finished-before", "2026-11-10")
    assert code == 0, err
    assert _stored(database_url) == {logs["running"], logs["with_running"]}


def test_a_copy_named_by_another_run_meanwhile_is_kept(
    runs: tuple[Path, dict[str, str]], database_url: str, tmp_path: Path
) -> None:
    """The check that no other run names a copy is part of the delete statement: a run that
    shipped the same bytes between the listing and the delete keeps its copy."""
    _repo, logs = runs
    rows = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url).rows(RUN)
    db = rows.db
    listed = db.sole_blobs(RUN, [logs["own"]], "logs_collected")
    assert [sha for sha, _, _ in listed] == [logs["own"]]
    late = RunRows(db, RUNNING)
    _ship(tmp_path, late, "03-implementer", b"run's own log\n" * 50)  # the same content
    assert db.drop_sole_blob(RUN, logs["own"], "logs_collected") is None
    assert logs["own"] in _stored(database_url)


def test_the_report_says_a_log_gc_deleted_was_deleted_and_when(
    runs: tuple[Path, dict[str, str]], database_url: str
) -> None:
    """A host that did not run the attempt (its logs were on `worker-1`) reads a collected
    run's page: a log whose copy `gc` deleted says so, with the time `gc` recorded, not "not
    shipped"; a copy another run still names is read as before."""
    repo, logs = runs
    code, _out, err = _gc(repo, RUN)
    assert code == 0, err
    rows = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url).rows(RUN)
    collected = rows.logs_collected()
    assert collected is not None
    copies = Path(os.environ["MERGEGATE_STATE_DIR"]) / "copies"
    shown = {log.sha256: log for log in report_logs(rows, copies)}
    assert shown[logs["own"]].problem == (
        f"its shipped copy was deleted by mergegate gc at {collected.at}"
    )
    assert not shown[logs["own"]].here
    assert (shown[logs["shared"]].here, shown[logs["shared"]].problem) == (True, "")
