"""A run's event stream in its database (`mergegate_events`, through `mergegate.store`): each
event id once per run whichever worker appends it, in the order appended, on SQLite and on
PostgreSQL (`fleet`); and a process with nothing of the run but the database URL — another
HOME, another working directory, another state directory — reads its events, `status`,
`stats` (of the run, and of every run), `runs` and `report`."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.engine._context.journal import RunJournal, run_events
from mergegate.events import EVENTS_FILE, MAX_LINE_BYTES, Notice, TaskStarted, read_events
from mergegate.store import SCHEMA_VERSION, RecordKind, RunRows, StateKind, tables
from mergegate.store._tables import Tables


def _notice(run_id: str, event_id: str, message: str = "m") -> Notice:
    return Notice(run_id=run_id, event_id=event_id, message=message)


def test_each_event_id_is_appended_once_per_run_in_order(database_url: str) -> None:
    rows = RunRows(tables(database_url), "r1")
    assert [rows.append_event(_notice("r1", f"e{i}")) for i in range(3)] == [True] * 3
    # a replayed step appends the same ids again, here or on another worker
    assert rows.append_event(_notice("r1", "e1", "again")) is False
    second = Tables(database_url)  # a second process's connections
    try:
        other = RunRows(second, "r1")
        assert other.append_event(_notice("r1", "e2", "again")) is False
        assert other.append_event(_notice("r1", "e3")) is True
        # another run's stream is its own, even with the same ids
        assert RunRows(tables(database_url), "r2").append_event(_notice("r2", "e1")) is True
        stream = other.event_stream()
    finally:
        second.dispose()
    assert [e.event_id for e in stream.events] == ["e0", "e1", "e2", "e3"]
    assert [e.message for e in stream.known() if isinstance(e, Notice)] == ["m"] * 4
    assert stream.source is None
    with tables(database_url).begin() as conn:
        done = conn.execute(text("SELECT max(version) FROM mergegate_schema")).scalar()
    assert done == SCHEMA_VERSION


def test_an_event_over_the_bound_is_stored_cut_to_one_line(database_url: str) -> None:
    rows = RunRows(tables(database_url), "r1")
    huge = TaskStarted(run_id="r1", event_id="big", name="x" * 500_000)
    rows.append_event(huge)
    (line,) = [line for _, line in tables(database_url).event_lines("r1")]
    assert len(line.encode()) < MAX_LINE_BYTES
    (event,) = rows.event_stream().known()
    assert isinstance(event, TaskStarted)
    assert len(event.name) < 2_000


def test_two_workers_journals_append_each_event_once(database_url: str, tmp_path: Path) -> None:
    """Two workers of one run, each with its own folder: the run's stream in the database
    holds every event once; each worker's `events.jsonl` only what it wrote."""
    rows = RunRows(tables(database_url), "run1")
    second = Tables(database_url)  # the other worker's connections
    one = RunJournal(tmp_path / "host-a", fsync=False, rows=rows)
    two = RunJournal(tmp_path / "host-b", fsync=False, rows=RunRows(second, "run1"))
    try:
        for i in range(4):
            one.emit(_notice("run1", f"e{i}"))
        for i in range(2, 6):  # e2 and e3 again: a step both ran (a replay after a takeover)
            two.emit(_notice("run1", f"e{i}"))
    finally:
        second.dispose()
    assert [e.event_id for e in rows.event_stream().events] == [f"e{i}" for i in range(6)]
    assert len(read_events(tmp_path / "host-a").events) == 4
    assert len(read_events(tmp_path / "host-b").events) == 4
    # a process opening the run's journal afterwards knows every id, from the database
    again = RunJournal(tmp_path / "host-c", fsync=False, rows=rows)
    assert again.seen == {f"e{i}" for i in range(6)}
    assert not (tmp_path / "host-c" / EVENTS_FILE).exists()
    assert not one.failed
    assert not two.failed


def test_a_run_whose_events_were_only_in_its_file_moves_them_in(
    database_url: str, tmp_path: Path
) -> None:
    """A run begun by a mergegate that wrote only `events.jsonl`, continued by this one: its
    earlier events join the rows when the journal opens, so readers of the rows see them."""
    old = RunJournal(tmp_path, fsync=False)  # no rows: the file only
    old.emit(_notice("run1", "e0"))
    rows = RunRows(tables(database_url), "run1")
    assert len(run_events(tmp_path, rows).events) == 1  # read from the file meanwhile
    RunJournal(tmp_path, fsync=False, rows=rows).emit(_notice("run1", "e1"))
    assert [e.event_id for e in rows.event_stream().events] == ["e0", "e1"]


def test_records_for_people_are_rows_read_in_order(database_url: str) -> None:
    """A task's review and a unit's summary as rows: rewritten in place, read by any
    process in reading order (task 10 after task 2), their typed value back as written."""
    rows = RunRows(tables(database_url), "r1")
    first = Notice(run_id="r1", event_id="v1", message="first")
    for task in ("10", "2"):
        rows.put_record(RecordKind.TASK_REVIEW, ("P1", "A", task), first, f"review {task}")
    rows.put_record(RecordKind.UNIT_SUMMARY, ("P1", "A"), first, "old summary")
    again = Notice(run_id="r1", event_id="v1", message="again")
    rows.put_record(RecordKind.UNIT_SUMMARY, ("P1", "A"), again, "new summary")
    RunRows(tables(database_url), "r2").put_record(RecordKind.UNIT_SUMMARY, ("P1", "A"), first, "x")
    # a kind a newer mergegate wrote is left out
    tables(database_url).put_record("r1", "later_kind", ("P1",), "{}", "later")
    second = Tables(database_url)  # another process's connections
    try:
        documents = RunRows(second, "r1").documents()
        (summary,) = RunRows(second, "r1").records(RecordKind.UNIT_SUMMARY, Notice)
    finally:
        second.dispose()
    assert [(d.kind, d.key, d.markdown) for d in documents] == [
        (RecordKind.UNIT_SUMMARY, ("P1", "A"), "new summary"),
        (RecordKind.TASK_REVIEW, ("P1", "A", "2"), "review 2"),
        (RecordKind.TASK_REVIEW, ("P1", "A", "10"), "review 10"),
    ]
    assert summary == (("P1", "A"), again)


def test_a_value_and_its_record_are_written_in_one_transaction(database_url: str) -> None:
    """A unit's (phase's, verification's) outcome and the summary people read of it go in
    together: one transaction, so the write lock is taken once, and a record that cannot be
    written leaves the value as it was (never a summary of another value than the stored one)."""
    db = tables(database_url)
    rows = RunRows(db, "r1")
    first = Notice(run_id="r1", event_id="v1", message="first")
    assert rows.get(StateKind.UNIT, ("P1", "A"), Notice) is None  # the tables made
    begun: list[object] = []

    def began(conn: object) -> None:
        begun.append(conn)

    event.listen(db._engine, "begin", began)
    try:
        rows.put_with_record(StateKind.UNIT, RecordKind.UNIT_SUMMARY, ("P1", "A"), first, "one")
    finally:
        event.remove(db._engine, "begin", began)
    assert len(begun) == 1
    assert rows.get(StateKind.UNIT, ("P1", "A"), Notice) == first
    assert rows.records(RecordKind.UNIT_SUMMARY, Notice) == [(("P1", "A"), first)]
    again = Notice(run_id="r1", event_id="v1", message="again")
    with pytest.raises(IntegrityError):  # a markdown the table refuses (NOT NULL)
        db.put_with_record(
            "r1", ("unit", "unit_summary"), ("P1", "A"), again.model_dump_json(), None
        )  # type: ignore[arg-type]
    assert rows.get(StateKind.UNIT, ("P1", "A"), Notice) == first


def _mergegate(args: list[str], *, home: Path, url: str) -> subprocess.CompletedProcess[str]:
    """`python -m mergegate ARGS` with its own HOME, working directory and state directory,
    and only the database URL of the run's process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MERGEGATE_", "XDG_"))}
    env.update(
        HOME=str(home),
        MERGEGATE_DATABASE_URL=url,
        MERGEGATE_STATE_DIR=str(home / "state"),
        XDG_STATE_HOME=str(home / "xdg"),
    )
    return subprocess.run(
        [sys.executable, "-m", "mergegate", *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_process_with_only_the_database_url_sees_the_whole_run(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", database_url)
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl", {"*": {"implement": [{}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}, "B": {}}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    run_id = out["run_id"]
    # each agent attempt is a row too, its log by reference (host, path, hash, excerpt):
    # the implementers', and the reviewers' (their log is their raw output), each stage's
    attempts = RunRows(tables(database_url), run_id).attempts()
    assert sorted(a.role for a in attempts) == ["implementer"] * 3 + ["reviewer"] * 6
    assert all(a.log_sha256 and a.host for a in attempts)
    reviewed = [a for a in attempts if a.role == "reviewer"]
    assert all('"verdict": "approve"' in a.log_excerpt for a in reviewed), reviewed[0]
    # nothing of the run's process is left on disk but the database (and the repository's
    # git history): its state directory, with the run's folder and events.jsonl, is gone
    shutil.rmtree(tmp_path / ".mergegate-state")
    home = tmp_path / "elsewhere"
    home.mkdir()

    status = _mergegate(["status", run_id, "--format", "json"], home=home, url=database_url)
    assert status.returncode == 0, status.stderr
    shown = json.loads(status.stdout)
    assert shown["status"] == "completed"
    assert sorted((u["id"], u["status"]) for u in shown["units"]) == [
        ("A", "merged"),
        ("B", "merged"),
    ]

    text_status = _mergegate(["status", run_id], home=home, url=database_url)
    assert f"reports: not on this host; mergegate report {run_id}" in text_status.stdout

    stats = _mergegate(["stats", run_id, "--format", "json"], home=home, url=database_url)
    assert stats.returncode == 0, stats.stderr
    metrics = json.loads(stats.stdout)["metrics"]
    assert metrics["tasks"] == 3
    assert metrics["merges"] == 2

    # without RUN: the run started last in the database, as no run has a folder here
    latest = _mergegate(["status", "--format", "json"], home=home, url=database_url)
    assert latest.returncode == 0, latest.stderr
    assert json.loads(latest.stdout)["run_id"] == run_id

    # without RUN: every run of the database, though none has a folder here
    every = _mergegate(["stats", "--format", "json"], home=home, url=database_url)
    assert every.returncode == 0, every.stderr
    assert json.loads(every.stdout)["metrics"]["tasks"] == 3

    listed = _mergegate(["runs", "--format", "json"], home=home, url=database_url)
    assert listed.returncode == 0, listed.stderr
    assert [r["run_id"] for r in json.loads(listed.stdout)] == [run_id]

    report = _mergegate(["report", run_id], home=home, url=database_url)
    assert report.returncode == 0, report.stderr
    page = Path(report.stdout.strip())
    assert page.is_relative_to(home)
    shown_page = page.read_text()
    assert "T2" in shown_page
    # the records only the run's host had on disk: each task's review (its verdict per
    # stage), each unit's SUMMARY.md and each phase's summary, read from the database
    assert "Review of task P1/A/T2" in shown_page
    assert "**Verdict:** `approve`" in shown_page
    assert "Unit P1/B summary (SUMMARY.md)" in shown_page
    assert "# Unit B:" in shown_page
    assert "Phase P1 summary" in shown_page
    # and the phase's verification report (the verify ledger's result), criterion by criterion
    assert "Phase P1/g0001 verification (VERIFICATION.md)" in shown_page
    assert "— Verification" in shown_page
    assert "**Status:** passed — all 4 criteria pass" in shown_page
    assert "| `A.T2.check-1` | check |  | ✓ pass | exit 0 |" in shown_page
    # every implementer log was on the run's host (its state directory, gone here): each was
    # shipped into the database when its attempt ended, and `report` wrote the copy here,
    # checked against its row's SHA-256, and names it on the page
    assert shown_page.count("copy shipped from host") == len(attempts)
    assert "full log on host" not in shown_page
    for a in attempts:
        copy = page.parent / "shipped-logs" / f"{a.log_sha256}.log"
        assert hashlib.sha256(copy.read_bytes()).hexdigest() == a.log_sha256
        assert copy.stat().st_size == a.log_bytes
        assert str(escape(str(copy))) in shown_page


_RUNS = itertools.count()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    before=st.lists(st.tuples(st.booleans(), st.integers(0, 6)), max_size=8),
    after=st.lists(st.tuples(st.booleans(), st.integers(0, 12)), max_size=8),
)
def test_a_stream_read_again_from_a_read_before_is_the_whole_stream_read_afresh(
    database_url: str, before: list[tuple[bool, int]], after: list[tuple[bool, int]]
) -> None:
    """Two workers append (ids repeated: replays the database drops; another run's rows in
    between: gaps in the positions); a read, more appends, then a read from the first read:
    the same stream, position and row count as a read of everything."""
    run_id = f"run{next(_RUNS)}"
    second = Tables(database_url)
    workers = (RunRows(tables(database_url), run_id), RunRows(second, run_id))
    other = RunRows(tables(database_url), f"other-{run_id}")
    try:
        for n, (which, eid) in enumerate(before):
            workers[which].append_event(_notice(run_id, f"e{eid}", f"m{n}"))
            other.append_event(_notice(other.run_id, f"x{n}"))
        first = workers[0].read_stream()
        for n, (which, eid) in enumerate(after):
            workers[which].append_event(_notice(run_id, f"e{eid}", f"n{n}"))
            other.append_event(_notice(other.run_id, f"y{n}"))
        again = workers[1].read_stream(first)
        fresh = workers[0].read_stream()
    finally:
        second.dispose()
    assert again == fresh
    assert [e.event_id for e in again.stream.events] == list(
        dict.fromkeys(f"e{eid}" for _, eid in before + after)
    )


@pytest.mark.parametrize("change", ["committed late below", "removed"])
def test_a_read_from_a_read_before_reads_everything_when_rows_below_it_changed(
    database_url: str, change: str
) -> None:
    """A row that commits after a read at a position below the read's end (PostgreSQL hands
    out positions before commit, so commits can land out of order), or a row gone: the count
    of rows up to the read's end differs, and the whole stream is read again."""
    rows, other = RunRows(tables(database_url), "r1"), RunRows(tables(database_url), "r2")
    for i in range(3):
        rows.append_event(_notice("r1", f"e{i}"))
        other.append_event(_notice("r2", f"x{i}"))
    first = rows.read_stream()
    rows.append_event(_notice("r1", "e3"))
    with tables(database_url).begin() as conn:
        if change == "removed":
            conn.execute(text("DELETE FROM mergegate_events WHERE event_id = 'e1'"))
        else:  # r2's second row becomes r1's: a row of r1 below the read's end, seen late
            conn.execute(
                text(
                    "UPDATE mergegate_events SET run_id = 'r1', event_id = 'late', "
                    "line = replace(line, 'x1', 'late') WHERE event_id = 'x1'"
                )
            )
    again = rows.read_stream(first)
    assert again == rows.read_stream()
    expected = ["e0", "e2", "e3"] if change == "removed" else ["e0", "e1", "late", "e2", "e3"]
    assert [e.event_id for e in again.stream.events] == expected


def test_the_end_of_a_resumed_run_parses_only_the_events_after_its_start(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resumed process's journal reads the stream when it opens; the end of the run reads
    only what was appended since (its own events and any other worker's), and its stream is
    the whole one."""
    import mergegate.events._log as log_module
    from mergegate.engine._context.journal import close_stream

    rows = RunRows(tables(database_url), "run1")
    for i in range(20):
        rows.append_event(_notice("run1", f"before{i}"))
    journal = RunJournal(tmp_path, fsync=False, rows=rows)
    journal.emit(_notice("run1", "mine"))
    RunRows(tables(database_url), "run1").append_event(_notice("run1", "another worker's"))
    parsed: list[int] = []
    real = log_module._parse_line
    monkeypatch.setattr(
        log_module,
        "_parse_line",
        lambda *a: parsed.append(a[1]) or real(*a),  # type: ignore[func-returns-value]
    )
    end = close_stream(tmp_path, journal.rules, journal)
    monkeypatch.undo()
    assert (parsed, end.error) == ([21, 22], "")
    assert (
        end.metrics.model_dump() == close_stream(tmp_path, journal.rules, None).metrics.model_dump()
    )
    assert [e.event_id for e in run_events(tmp_path, rows).events][-2:] == [
        "mine",
        "another worker's",
    ]
