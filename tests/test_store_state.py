"""mergegate's own tables beside DBOS's (`mergegate.store`): made from a blank database by
numbered migrations, a run's card and plan in one transaction, typed rows by kind and key
(no id mistaken for another, whatever its characters), the first writer winning where asked,
the stop request, the budget's spending and the process records; and a database that cannot
be used is one line, exit 4."""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from _cards import card
from mergegate import atomic_files
from mergegate.engine import EngineRunRecord
from mergegate.errors import UsageError
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import ProcessRecord
from mergegate.store import (
    SCHEMA_VERSION,
    DatabaseUnavailableError,
    RunStore,
    StateKind,
    Tables,
    sqlite_url,
    tables,
)

PLAN = Plan(format=PlanFormat.NATIVE, title="p")


class Note(BaseModel):
    text: str


def _record(run_id: str = "r1") -> EngineRunRecord:
    return card(run_id)


def _made(tmp_path: Path, run_id: str = "r1") -> RunStore:
    store = RunStore(tmp_path / "state")
    store.create(_record(run_id), PLAN)
    return store


def test_a_blank_database_gets_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "blank.sqlite"
    first = Tables(f"sqlite:///{path}")
    assert first.card("x") is None  # the first use makes the tables
    again = Tables(f"sqlite:///{path}")  # another process, later: nothing to apply
    assert again.card("x") is None
    with sqlite3.connect(path) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM mergegate_schema")]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert versions == list(range(1, SCHEMA_VERSION + 1))
    assert {"mergegate_runs", "mergegate_run_state", "mergegate_usage"} <= names
    assert "mergegate_processes" in names


def test_a_database_of_a_newer_mergegate_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE mergegate_schema (version INTEGER PRIMARY KEY)")
        conn.execute("INSERT INTO mergegate_schema VALUES (?)", (SCHEMA_VERSION + 1,))
    with pytest.raises(DatabaseUnavailableError, match="use a newer one"):
        Tables(f"sqlite:///{path}").card("x")


def test_a_garbled_database_is_one_line_exit_4(tmp_path: Path) -> None:
    path = tmp_path / "garbled.sqlite"
    path.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(DatabaseUnavailableError) as raised:
        Tables(f"sqlite:///{path}").card("x")
    assert raised.value.exit_code == 4
    assert "\n" not in str(raised.value)
    assert "cannot be used" in str(raised.value)


def test_a_run_is_its_card_and_plan_in_its_own_database(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "state")
    card = _record()
    store.create(card, PLAN)
    assert store.database_path("r1") == tmp_path / "state" / "db" / "r1.sqlite"
    assert store.database_path("r1").is_file()
    assert store.load("r1", EngineRunRecord) == card
    assert store.plan("r1") == PLAN
    with pytest.raises(UsageError, match="already exists"):
        store.create(card, PLAN)
    # the folder's copies are never what a load reads
    (store.run_dir("r1") / "run.json").write_text('{"run_id": "r1", "status": "completed"}')
    (store.run_dir("r1") / "plan.json").unlink()
    assert store.load("r1", EngineRunRecord).status == "running"
    assert store.plan("r1") == PLAN
    # a folder with no record is no run, whatever it holds
    (store.root / "r2").mkdir()
    (store.root / "r2" / "run.json").write_text(_record("r2").model_dump_json())
    with pytest.raises(UsageError, match="run r2 has no record in its database"):
        store.load("r2", EngineRunRecord)
    assert [r.run_id for r in store.list(EngineRunRecord)] == ["r1"]


def test_the_plan_snapshot_copy_is_written_durably(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plan.json` (and `run.json`) go through the one atomic writer with its fsyncs: the file
    and its directory, each."""
    synced: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    written: list[tuple[str, bool]] = []
    real_write = atomic_files.write_atomic

    def spying(path: str | os.PathLike[str], data: bytes | str, **kw: Any) -> None:
        written.append((Path(path).name, kw.get("durable", True)))
        real_write(path, data, **kw)

    monkeypatch.setattr(atomic_files, "write_atomic", spying)
    store = _made(tmp_path)
    assert ("plan.json", True) in written
    assert ("run.json", True) in written
    assert len(synced) >= 4  # two files, each with its directory
    assert (store.run_dir("r1") / "plan.json").is_file()


def test_a_garbled_database_of_one_run_hides_only_that_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "state")
    for run_id in ("r1", "r2"):
        store.create(_record(run_id), PLAN)
    # garbled once the process that wrote it let its connections go (a kept connection
    # keeps the file's WAL, where SQLite would still read the rows from)
    tables(sqlite_url(store.database_path("r1"))).dispose()
    store.database_path("r1").write_bytes(b"\x00garbage" * 512)
    again = RunStore(tmp_path / "state")
    assert [r.run_id for r in again.list(EngineRunRecord)] == ["r2"]
    with pytest.raises(DatabaseUnavailableError, match="cannot be used"):
        again.load("r1", EngineRunRecord)


def test_rows_first_writer_wins_and_stop_requests(tmp_path: Path) -> None:
    rows = _made(tmp_path).rows("r1")
    assert rows.put(StateKind.WORKSPACE, ("u",), Note(text="first"), replace=False)
    assert not rows.put(StateKind.WORKSPACE, ("u",), Note(text="second"), replace=False)
    assert rows.get(StateKind.WORKSPACE, ("u",), Note) == Note(text="first")
    assert rows.stop_request() is None
    rows.request_stop("on_escalation = stop: unit A escalated")
    rows.request_stop("another reason")  # an earlier request keeps its reason...
    assert rows.stop_request() == "on_escalation = stop: unit A escalated"
    rows.request_stop("cancelled by mergegate cancel", replace=True)  # ...but cancel's wins
    assert rows.stop_request() == "cancelled by mergegate cancel"


def test_usage_and_processes(tmp_path: Path) -> None:
    rows = _made(tmp_path).rows("r1")
    assert rows.usage() == (0, 0.0)
    rows.add_usage(10, 0.5)
    rows.add_usage(5, 0.25)
    assert rows.usage() == (15, 0.75)
    record = ProcessRecord(
        pid=1, pgid=1, start_ticks=1, boot_id="b", started_at=time.time(), argv=("x",), cwd="/"
    )
    rows.record_process(record, tmp_path / "a", executor_id="w1")
    assert rows.processes() == [(tmp_path / "a", record)]
    found = tables(rows.db.database_url).processes(executor_id="w1")
    assert found == [("r1", tmp_path / "a", record)]
    rows.forget_processes([record])
    assert rows.processes() == []


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    return tables(f"sqlite:///{tmp_path_factory.mktemp('keys') / 'keys.sqlite'}")


ids = st.text(max_size=12)


@settings(max_examples=60, deadline=None)
@given(first=st.tuples(ids, ids), second=st.tuples(ids, ids))
def test_no_key_is_mistaken_for_another(
    shared: Tables, first: tuple[str, str], second: tuple[str, str]
) -> None:
    """Whatever characters ids hold (`/`, quotes, NUL, look-alikes), a row is found by its own
    key only, and a prefix selects exactly the rows whose key starts with it."""
    run = uuid.uuid4().hex
    shared.put(run, StateKind.UNIT.value, first, "1", replace=True)
    shared.put(run, StateKind.UNIT.value, second, "2", replace=True)
    assert shared.get(run, StateKind.UNIT.value, first) == ("2" if first == second else "1")
    assert shared.get(run, StateKind.UNIT.value, second) == "2"
    found = shared.items(run, StateKind.UNIT.value, prefix=first[:1])
    assert {k for k, _ in found} == {k for k in (first, second) if k[:1] == first[:1]}
