"""Contract tests for the DBOS behaviours mergegate relies on (pinned `dbos` version).

If a DBOS upgrade changes any of these, these tests fail before a run loses work.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from _cards import card
from mergegate.engine import EngineRunRecord
from mergegate.errors import UsageError
from mergegate.plans import Plan, PlanFormat
from mergegate.store import (
    APP_VERSION,
    IDLE_POLL_S,
    POLL_S,
    QUEUE,
    DurableEngine,
    EngineConfig,
    IdlePolls,
    RunState,
    RunStore,
    UnitsClaims,
    child_id,
    enqueue,
    new_run_id,
    not_retried,
    sqlite_url,
    step,
    wait_result,
    workflow,
)

CONTRACT = Path(__file__).parent / "fakes" / "dbos_contract.py"

_calls: list[str] = []
_spans: list[tuple[float, float]] = []
_lock = threading.Lock()


@step("test.count")
def _count(name: str) -> str:
    _calls.append(name)
    return name.upper()


@workflow("test.once")
def _once(name: str) -> str:
    return _count(name)


_tries: list[str] = []


@step("test.retried_then_once", retries=2)
def _retried_then_once(fail_in: str) -> str:
    _tries.append("retried")
    if fail_in == "retried" and _tries.count("retried") < 2:
        raise OSError("a git lock left for a moment")
    with not_retried():
        _tries.append("once")
        if fail_in == "once":
            raise OSError("the checks' sandbox failed")
    return "done"


@workflow("test.folded")
def _folded(fail_in: str) -> str:
    try:
        return _retried_then_once(fail_in)
    except OSError as exc:
        return f"raised: {exc}"


@step("test.sleep")
def _sleep_step(seconds: float) -> None:
    start = time.monotonic()
    time.sleep(seconds)
    with _lock:
        _spans.append((start, time.monotonic()))


@workflow("test.sleeper")
def _sleeper(seconds: float) -> None:
    _sleep_step(seconds)


@workflow("test.fan_out")
def _fan_out(n: int, seconds: float) -> int:
    handles = [enqueue(_sleeper, f"sleeper-{i}", seconds) for i in range(n)]
    for handle in handles:
        wait_result(handle)
    return n


def _engine(tmp_path: Path, concurrency: int = 2) -> DurableEngine:
    return DurableEngine(EngineConfig(sqlite_url(tmp_path / "db.sqlite"), concurrency=concurrency))


def _contract(db: Path, markers: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CONTRACT), str(db), str(markers), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_sqlite_file_is_created_in_wal_mode(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "x" / "db.sqlite")
    assert url == f"sqlite:///{tmp_path / 'x' / 'db.sqlite'}"
    import sqlite3

    with sqlite3.connect(tmp_path / "x" / "db.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_finished_workflow_id_returns_its_recorded_result(tmp_path: Path) -> None:
    _calls.clear()
    with _engine(tmp_path) as engine:
        engine.start(_once, "w-1", "x")
        assert engine.wait("w-1", timeout_s=30) == "SUCCESS"
        with child_id("w-1"):
            again = _once("y")  # same id: not run again, the recorded result comes back
        assert again == "X"
        assert engine.result("w-1") == "X"
    assert _calls == ["x"]


@pytest.mark.parametrize(
    ("fail_in", "tries", "result"),
    [
        ("nothing", ["retried", "once"], "done"),
        ("retried", ["retried", "retried", "once"], "done"),
        ("once", ["retried", "once"], "raised: the checks' sandbox failed"),
    ],
)
def test_a_not_retried_part_of_a_step_runs_once_and_its_error_reaches_the_workflow(
    tmp_path: Path, fail_in: str, tries: list[str], result: str
) -> None:
    """A step that folds a retried part (a commit) and a part that must not run again on an
    error (a task's checks): the first part is retried as the step's `retries` say, what the
    second raises reaches the workflow as it is, after one try."""
    _tries.clear()
    with _engine(tmp_path) as engine:
        engine.start(_folded, f"folded-{fail_in}", fail_in)
        assert engine.wait(f"folded-{fail_in}", timeout_s=30) == "SUCCESS"
        assert engine.result(f"folded-{fail_in}") == result
    assert _tries == tries


def test_recovery_after_a_kill_reruns_only_the_step_in_flight(tmp_path: Path) -> None:
    db, markers = tmp_path / "db.sqlite", tmp_path / "markers"
    Path(str(markers) + ".block").write_text("")
    first = _contract(db, markers, "start")
    try:
        _wait_for(lambda: markers.exists() and "b " in markers.read_text())
        first.send_signal(signal.SIGKILL)
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate(timeout=10)
    Path(str(markers) + ".block").unlink()
    second = _contract(db, markers, "recover")
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert out.split() == ["SUCCESS", "ABC"]
    steps = [line.split()[0] for line in markers.read_text().splitlines()]
    # a: done before the kill, never again; b: in flight, run again; c: once, after recovery.
    assert steps == ["a", "b", "b", "c"]
    pids = [line.split()[1] for line in markers.read_text().splitlines()]
    assert pids[0] == pids[1] != pids[2] == pids[3]


def test_the_queue_runs_at_most_its_concurrency_at_once(tmp_path: Path) -> None:
    _spans.clear()
    with _engine(tmp_path, concurrency=2) as engine:
        engine.start(_fan_out, "fan", 4, 0.6)
        assert engine.wait("fan", timeout_s=60) == "SUCCESS"
    assert len(_spans) == 4
    events = sorted([(s, 1) for s, _ in _spans] + [(e, -1) for _, e in _spans])
    running = peak = 0
    for _, delta in events:
        running += delta
        peak = max(peak, running)
    assert peak == 2  # parallel, and never more than the queue's concurrency


def test_the_units_queue_row_holds_no_worker_limit(tmp_path: Path) -> None:
    """Each process keeps its own `worker_concurrency` for the units queue (`mergegate.store.
    _dbos._dequeue_with_own_limit`): the queue's row holds 0, this process's reload of it
    (what DBOS's queue thread dequeues with, `dbos._sys_db.get_queue`) holds the engine's
    number, and DBOS's dequeue with the row as stored has room for no unit. The test above
    (the queue reaches its concurrency, on the stored 0) pins the rest end to end."""
    from dbos import DBOS, DBOSClient

    url = sqlite_url(tmp_path / "db.sqlite")
    with DurableEngine(EngineConfig(url, concurrency=3)):
        client = DBOSClient(system_database_url=url, application_name="mergegate")
        try:
            stored = client.retrieve_queue(QUEUE)
            assert stored is not None
            assert stored.worker_concurrency == 0
            mine = DBOS.retrieve_queue(QUEUE)
            assert mine is not None
            assert mine._worker_concurrency == 3
            assert mine is not DBOS.retrieve_queue(QUEUE)  # a fresh object on every read
            claimed = client._sys_db.start_queued_workflows(stored, "other", APP_VERSION, None)
            assert claimed == ([], "worker_concurrency")
        finally:
            client.destroy()


def test_another_application_version_is_not_recovered(tmp_path: Path) -> None:
    db, markers = tmp_path / "db.sqlite", tmp_path / "markers"
    Path(str(markers) + ".block").write_text("")
    first = _contract(db, markers, "start")
    _wait_for(lambda: markers.exists() and "b " in markers.read_text())
    first.kill()
    first.communicate(timeout=10)
    Path(str(markers) + ".block").unlink()
    config = EngineConfig(sqlite_url(db), application_version="some-other-version")
    with DurableEngine(config) as engine:
        time.sleep(0.5)
        assert engine.status("wf-1") == "PENDING"
        assert engine.active() == ["wf-1"]
    assert markers.read_text().count("c ") == 0


def test_run_records_round_trip_and_list_in_start_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    first = card(new_run_id(), into="mergegate/x")
    store.create(first, plan)
    second = card("z-later", into="main", base_sha="1" * 40, started_epoch=first.started_epoch + 1)
    store.create(second, plan)
    loaded = store.load(first.run_id, EngineRunRecord)
    assert loaded == first
    second.status = RunState.COMPLETED
    store.save(second)
    assert [r.run_id for r in store.list(EngineRunRecord)] == [first.run_id, "z-later"]
    assert store.list(EngineRunRecord)[1].summary()["status"] == "completed"
    with pytest.raises(UsageError, match="already exists"):
        store.create(first, plan)
    with pytest.raises(UsageError, match="no run"):
        store.load("missing", EngineRunRecord)
    with pytest.raises(UsageError, match="not a run id"):
        store.run_dir("../etc")


def test_recovery_and_awaited_children_are_polled_as_often_as_the_queue(tmp_path: Path) -> None:
    """Two private DBOS names the engine sets (see mergegate.store._dbos): the internal queue
    recovery uses, and the interval a workflow polls a child another thread runs. At DBOS's
    defaults (1 s each) every resume, and every recovered task a unit waits for, took a second
    longer. An upgrade that renames them fails here, not in a benchmark."""
    from dbos import _core as dbos_core
    from dbos._dbos import _get_or_create_dbos_registry
    from dbos._utils import INTERNAL_QUEUE_NAME

    config = EngineConfig(sqlite_url(tmp_path / "db.sqlite"))
    with DurableEngine(config):
        queue = _get_or_create_dbos_registry().internal_queue_map[INTERNAL_QUEUE_NAME]
        assert queue._polling_interval_sec == POLL_S
        assert dbos_core.DEFAULT_POLLING_INTERVAL == POLL_S


def test_the_internal_queue_is_polled_slowly_once_idle(tmp_path: Path) -> None:
    """Each empty poll of the internal queue is a write transaction and 2 to 3 ms of CPU: at
    0.1 s for a whole run, about 25 ms of every second. It is polled fast after the launch
    (a resume's recovery enqueues there at once) and whenever a poll claimed something, and
    at DBOS's default of 1 s once it has been empty for a while. An upgrade that renames the
    names this relies on (see `_poll_internal_queue_when_busy`) fails here."""
    from dbos._dbos import _get_or_create_dbos_registry
    from dbos._utils import INTERNAL_QUEUE_NAME

    with DurableEngine(EngineConfig(sqlite_url(tmp_path / "db.sqlite"))):
        queue = _get_or_create_dbos_registry().internal_queue_map[INTERNAL_QUEUE_NAME]
        assert queue._polling_interval_sec == POLL_S
        _wait_for(lambda: queue._polling_interval_sec == IDLE_POLL_S, timeout=15)


def test_idle_polls_slow_down_after_empty_polls_and_speed_up_on_a_claim() -> None:
    polls = IdlePolls(0.1, idle_polls=3)
    assert [polls.after(0) for _ in range(4)] == [0.1, 0.1, IDLE_POLL_S, IDLE_POLL_S]
    assert polls.after(2) == 0.1
    assert polls.after(0) == 0.1


def _counting_status(engine: DurableEngine, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The times `engine.status` is read, from now on."""
    reads: list[float] = []
    status = engine.status

    def counted(wf_id: str) -> str | None:
        reads.append(time.monotonic())
        return status(wf_id)

    monkeypatch.setattr(engine, "status", counted)
    return reads


def test_wait_reads_the_status_about_once_a_second_while_the_workflow_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each status read builds DBOS's query anew: ten a second for a whole run cost as much
    CPU as a unit's steps. The live view still ticks every polling interval."""
    with _engine(tmp_path) as engine:
        reads = _counting_status(engine, monkeypatch)
        ticks: list[float] = []
        engine.start(_sleeper, "slow", 2.5)
        assert engine.wait("slow", timeout_s=30, tick=lambda: ticks.append(0)) == "SUCCESS"
    # at once, after 1 s and 2 s, then on the ticks after it returned (DBOS records the
    # outcome just after the function returns); at 0.1 s polling it was about 25
    assert len(reads) <= 8, len(reads)
    assert len(ticks) >= 15


def test_wait_sees_its_workflow_end_within_a_tick_of_its_return(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(tmp_path) as engine:
        reads = _counting_status(engine, monkeypatch)
        _spans.clear()
        engine.start(_sleeper, "quick-end", 1.4)
        assert engine.wait("quick-end", timeout_s=30) == "SUCCESS"
        done = time.monotonic()
    returned = _spans[-1][1]
    # the quiet reads come at 0 s and 1 s: the end at 1.4 s is seen on the ticks after it
    assert done - returned < 0.5 + POLL_S, done - returned
    assert len(reads) <= 8


def test_wait_sees_a_cancel_from_elsewhere_within_the_quiet_interval(tmp_path: Path) -> None:
    """A workflow cancelled by another process never returns here: the quiet reads see it."""
    from dbos import DBOS

    _spans.clear()
    with _engine(tmp_path) as engine:
        engine.start(_sleeper, "cancelled", 3)
        threading.Timer(0.3, DBOS.cancel_workflow, args=("cancelled",)).start()
        t0 = time.monotonic()
        assert engine.wait("cancelled", timeout_s=10) == "CANCELLED"
        assert time.monotonic() - t0 < 2.5
        _wait_for(lambda: _spans)  # its step ends before DBOS is shut down


def test_wait_returns_the_last_status_when_its_timeout_passes(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        engine.start(_sleeper, "timed-out", 3)
        t0 = time.monotonic()
        assert engine.wait("timed-out", timeout_s=0.5) == "PENDING"
        assert time.monotonic() - t0 < 1.5
        assert engine.wait("timed-out", timeout_s=30) == "SUCCESS"


def test_units_claims_claim_after_an_enqueue_and_at_least_every_idle_interval() -> None:
    """`UnitsClaims`: after the launch's polls, a poll claims only when a unit was enqueued
    since the last claim that found the queue empty, or `IDLE_POLL_S` after the last
    claim; an enqueue while a claim runs is never lost; a claim stopped by a limit does not
    count as an empty queue."""
    now = [0.0]
    claims = UnitsClaims(clock=lambda: now[0])
    calls: list[int] = []

    def poll(found: list[str], stopped: str | None = None) -> bool:
        before = len(calls)

        def claim() -> tuple[list[str], str | None]:
            calls.append(1)
            return found, stopped

        claims.claim(claim)
        return len(calls) > before

    claims.launched()
    assert all(poll([]) for _ in range(20))  # the launch's polls: recovery may enqueue
    assert not poll([])
    claims.enqueued()
    assert poll(["u1"])  # found one: the queue may hold more
    assert poll([], "worker_concurrency")  # a limit, not an empty queue
    assert poll([])
    assert not poll([])

    def enqueue_during_claim() -> tuple[list[str], str | None]:
        calls.append(1)
        claims.enqueued()  # after the claim's query: the claim found nothing
        return [], None

    claims.enqueued()
    claims.claim(enqueue_during_claim)
    assert poll([])  # the enqueue during the claim is claimed at the next poll
    assert not poll([])
    now[0] += IDLE_POLL_S
    assert poll([])  # at least every IDLE_POLL_S
    assert not poll([])


def test_units_claims_let_a_row_read_within_the_idle_interval_serve() -> None:
    """`UnitsClaims.row_reusable`: the units queue's row as last read serves a poll with no
    claim due; with one due (an enqueue the full queue has not claimed, or the timer), only
    while it is younger than `IDLE_POLL_S`; never before it was first read."""
    now = [0.0]
    claims = UnitsClaims(clock=lambda: now[0])
    claims.launched()
    assert not claims.row_reusable()  # never read
    claims.row_read()
    assert claims.row_reusable()  # the launch's polls are due, and the row is fresh
    claims.enqueued()  # a unit waits behind a full queue: a claim stays due
    now[0] += IDLE_POLL_S * 0.9
    assert claims.row_reusable()
    now[0] += IDLE_POLL_S * 0.2
    assert not claims.row_reusable()  # read again, at least once an IDLE_POLL_S
    claims.row_read()
    assert claims.row_reusable()


def test_an_idle_units_queue_is_not_claimed_from_nor_read_on_every_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local engine's units queue, with room for units and none enqueued, is claimed from
    (and its row read) at most about once a second after the launch's polls (each claim is
    a write transaction and ~5 ms of CPU, each read ~1.5 ms; DBOS does both on every 0.1 s
    poll), and a unit enqueued then still
    starts at the next poll, not at the next idle claim (made a minute long here). Pins the
    DBOS names `_claim_units_when_enqueued` relies on: an upgrade that claims another way
    fails here."""
    from dbos import DBOS
    from dbos._sys_db import SystemDatabase

    from mergegate.store import _dbos

    claims: list[str] = []
    reads: list[str] = []
    claim, read = SystemDatabase.start_queued_workflows, SystemDatabase.get_queue

    def counted(self: SystemDatabase, queue: object, *args: object, **kwargs: object) -> object:
        claims.append(getattr(queue, "name", ""))
        return claim(self, queue, *args, **kwargs)  # type: ignore[arg-type]

    def counted_read(self: SystemDatabase, name: str, **kwargs: object) -> object:
        reads.append(name)
        return read(self, name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SystemDatabase, "start_queued_workflows", counted)
    monkeypatch.setattr(SystemDatabase, "get_queue", counted_read)
    with _engine(tmp_path, concurrency=2) as engine:
        time.sleep(2.5 + POLL_S * 20)  # past the launch's polls
        monkeypatch.setattr(_dbos, "IDLE_POLL_S", 60.0)
        idle_from, read_from = claims.count(QUEUE), reads.count(QUEUE)
        time.sleep(1.5)
        assert claims.count(QUEUE) - idle_from <= 1
        assert reads.count(QUEUE) - read_from <= 1  # the row is not read on every poll
        engine.limit_queue(5)  # this process changes the row: it is read again
        queue = DBOS.retrieve_queue(QUEUE)
        assert queue is not None
        assert (queue._concurrency, queue._worker_concurrency) == (5, 2)
        started = time.monotonic()
        engine.start(_fan_out, "fan-out-idle", 1, 0.0)
        assert engine.wait("fan-out-idle", timeout_s=30) == "SUCCESS"
        assert time.monotonic() - started < 10  # not the minute an idle claim waits


def test_a_local_engine_reads_its_latest_version_at_most_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DBOS asks whether this process runs the latest application version on every claim of
    every queue, building the query anew (about 4 ms of CPU; the internal queue alone is
    polled ten times a second after a launch). A local engine reads it at most once a second.
    Pins the DBOS name `_read_latest_version_once_a_second` relies on: an upgrade that asks
    another way fails here."""
    from dbos._sys_db import SystemDatabase

    reads: list[float] = []
    read = SystemDatabase._latest_application_version

    def counted(self: SystemDatabase, *args: object, **kwargs: object) -> object:
        reads.append(time.monotonic())
        return read(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SystemDatabase, "_latest_application_version", counted)
    with _engine(tmp_path) as engine:
        started = time.monotonic()
        time.sleep(1.5)  # the launch's fast polls: every 0.1 s
        during = [t for t in reads if t >= started]
        assert len(during) <= 3, len(during)  # about 15 before
        engine.start(_fan_out, "fan-out-version", 2, 0.0)  # claims still claim
        assert engine.wait("fan-out-version", timeout_s=30) == "SUCCESS"


def test_a_full_units_queue_row_is_not_read_on_every_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a local engine's units queue has no room (its one slot taken by a running unit,
    the usual state of a run), DBOS skips the claim but still reloads the queue's row on
    every 0.1 s poll (~1.5 ms of CPU each): reloaded at most about once an `IDLE_POLL_S`
    instead (made 60 s here), and the unit queued behind the full slot still starts when the
    slot frees (at the next poll: its enqueue makes a claim due, with the row read again)."""
    from dbos._sys_db import SystemDatabase

    from mergegate.store import _dbos

    reads: list[str] = []
    read = SystemDatabase.get_queue

    def counted_read(self: SystemDatabase, name: str, **kwargs: object) -> object:
        reads.append(name)
        return read(self, name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SystemDatabase, "get_queue", counted_read)
    _spans.clear()
    with _engine(tmp_path, concurrency=1) as engine:
        time.sleep(POLL_S * 25)  # past the launch's polls
        monkeypatch.setattr(_dbos, "IDLE_POLL_S", 60.0)
        started = time.monotonic()
        engine.start(_fan_out, "fan-out-full", 2, 3.0)
        time.sleep(1.0)  # the first sleeper runs (3 s), the second waits for the slot
        full_from = reads.count(QUEUE)
        time.sleep(1.0)
        assert not _spans  # the slot was full all along
        assert reads.count(QUEUE) - full_from <= 1  # not the ~10 of a 0.1 s poll
        assert engine.wait("fan-out-full", timeout_s=30) == "SUCCESS"
        assert time.monotonic() - started < 20  # not the minute an idle claim waits
    assert len(_spans) == 2


def test_a_local_wait_for_a_result_reads_it_when_the_workflow_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workflow waiting for a queued child's result (a phase for its units) reads the
    child's status when the child returns in this process, not on every 0.1 s poll (each
    read is a query, 1 to 2 ms of CPU), and at least every `IDLE_POLL_S` otherwise (made a
    minute long here: a wait that missed the return would take that long). Pins the DBOS
    names `_await_results_on_return` relies on."""
    from dbos._sys_db import SystemDatabase

    from mergegate.store import _dbos

    checks: list[str] = []
    check = SystemDatabase.check_workflow_result

    def counted(self: SystemDatabase, workflow_id: str, **kwargs: bool) -> object:
        checks.append(workflow_id)
        return check(self, workflow_id, **kwargs)

    monkeypatch.setattr(SystemDatabase, "check_workflow_result", counted)
    monkeypatch.setattr(_dbos, "IDLE_POLL_S", 60.0)
    _spans.clear()
    with _engine(tmp_path, concurrency=2) as engine:
        started = time.monotonic()
        engine.start(_fan_out, "fan-out-wait", 1, 1.5)
        assert engine.wait("fan-out-wait", timeout_s=30) == "SUCCESS"
        assert engine.result("fan-out-wait") == 1
        assert time.monotonic() - started < 20  # not the minute a quiet wait lasts
    assert len(_spans) == 1
    assert 1 <= checks.count("sleeper-0") <= 4  # not the ~15 of a 0.1 s poll over 1.5 s


def test_a_unit_recovery_puts_back_on_the_queue_is_claimed_at_the_next_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recovery puts a crashed run's pending unit back on its queue through
    `SystemDatabase.reenqueue_for_recovery` (a stand-in here, answering whether it put the
    workflow back); once it did, the next poll claims, past the launch's polls and
    whatever the idle interval (a minute here)."""
    from dbos._sys_db import SystemDatabase

    from mergegate.store import _dbos

    claims: list[str] = []
    claim = SystemDatabase.start_queued_workflows

    def counted(self: SystemDatabase, queue: object, *args: object, **kwargs: object) -> object:
        claims.append(getattr(queue, "name", ""))
        return claim(self, queue, *args, **kwargs)  # type: ignore[arg-type]

    def put_back(self: SystemDatabase, workflow_id: str, *args: object) -> bool:
        return workflow_id == "put-back"

    monkeypatch.setattr(SystemDatabase, "start_queued_workflows", counted)
    monkeypatch.setattr(SystemDatabase, "reenqueue_for_recovery", put_back)
    with _engine(tmp_path):
        time.sleep(2.5 + POLL_S * 20)  # past the launch's polls
        monkeypatch.setattr(_dbos, "IDLE_POLL_S", 60.0)
        time.sleep(1.2)  # the last idle claim (at the old interval) is behind
        sys_db = _dbos._get_dbos_instance()._sys_db
        idle_from = claims.count(QUEUE)
        assert not sys_db.reenqueue_for_recovery("elsewhere", ["local"], "q")
        time.sleep(0.5)
        assert claims.count(QUEUE) == idle_from  # nothing was put back: no claim
        assert sys_db.reenqueue_for_recovery("put-back", ["local"], "q")
        _wait_for(lambda: claims.count(QUEUE) > idle_from, timeout=10)
