"""DBOS Transact behind one small seam: the only module of mergegate that imports `dbos`.

DBOS keeps workflow state in a system database: a SQLite file by default (embedded, no
server), or the PostgreSQL database `[engine] database_url` names, which a fleet of workers
shares (docs/fleet.md; a different `database_url`, nothing else). What
mergegate relies on, pinned by `tests/test_store_dbos.py` so a DBOS upgrade that changes it
fails loudly:

* a workflow re-runs from its last completed step after the process dies, and a completed step
  is never executed again (its recorded output is returned instead);
* recovery happens at launch, for this `executor_id` and this `application_version` only; both
  are therefore fixed (`local`, and mergegate's version plus `ENGINE_SCHEMA`), never DBOS's
  default hash of the workflow source, which would strand a run after any code change;
* a queue with `worker_concurrency` runs at most that many workflows at once, polled every
  0.1 s (DBOS's default of 1 s would add a second to every unit); the units queue's number is
  this process's own, not the one stored with the queue (`_dequeue_with_own_limit`); in a
  local run (not a fleet worker) a poll claims only when a unit may be waiting
  (`UnitsClaims`: after an `enqueue`, after the launch, and at least once a second);
* recovery puts pending workflows on DBOS's internal queue, which is polled every 0.1 s too
  (its default of 1 s would add a second to every resume, and to every child workflow a
  recovered parent waits for): set through DBOS's registry before launch, and back to 1 s
  once it has been empty for 2 s (`_poll_internal_queue_when_busy`); and a workflow
  that waits for a child another thread runs (a recovered unit and its recovered task) polls
  every 0.1 s, not 1 s (`dbos._core.DEFAULT_POLLING_INTERVAL`). These are the uses of
  private DBOS names, pinned by the contract tests;
* starting a workflow under an id that already finished returns its recorded result.

DBOS is a process-wide singleton; `DurableEngine` launches it for one database and shuts it
down again, so a process (or a test) can use several databases one after the other.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar, cast, get_args, get_type_hints

from dbos import DBOS, DBOSClient, DBOSConfig, SetWorkflowID, WorkflowHandle
from dbos import _core as dbos_core
from dbos._dbos import _get_dbos_instance, _get_or_create_dbos_registry
from dbos._outcome import NoResult
from dbos._queue import Queue
from dbos._utils import INTERNAL_QUEUE_NAME
from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from mergegate import __version__
from mergegate.config import DEFAULT_CONCURRENCY, redact_url
from mergegate.errors import AgentError, EscalationError
from mergegate.ids import APP, FLEET_APP, QUEUE, RUN_QUEUE, app_name_for_run, app_version

__all__ = [
    "APP_VERSION",
    "ENGINE_SCHEMA",
    "FLEET_APP",
    "IDLE_POLL_S",
    "POLL_S",
    "QUEUE",
    "RUN_QUEUE",
    "DatabaseUnavailableError",
    "DurableEngine",
    "EngineConfig",
    "ExecutorWork",
    "IdlePolls",
    "Queued",
    "Seam",
    "UnitsClaims",
    "WorkflowState",
    "app_name_for_run",
    "cancel_from_outside",
    "child_id",
    "driver_url",
    "enqueue",
    "enqueue_from_outside",
    "executor_work",
    "finished_result",
    "not_retried",
    "reachable",
    "recover_from_outside",
    "seam_of",
    "sqlite_url",
    "step",
    "wait_result",
    "workflow",
    "workflow_id",
    "workflow_inputs",
]

P = ParamSpec("P")
R = TypeVar("R")

# 4: the run reads its answers, outcomes and stop request from its rows; workspaces recorded
# with their identity, merges in two steps (CAS); 5: a task a person takes over reads its
# answers in a step; 6: a phase merges each unit as soon as it and the units before it are done
# (its waits and merges interleaved), and asks for any stop after the wave; 7: a unit starts in
# one step (`mergegate.start_unit`: the stop question and the workspace), and a merged unit's
# workspace is removed in its `mergegate.advance` step; 8: a task's commit and its first
# checks are one step (`mergegate.commit_check`, replacing the commit step and the first
# `mergegate.check`)
ENGINE_SCHEMA = 8
"""Bumped whenever workflow code changes the order of its steps: runs recorded by another
schema are not recovered by this one (DBOS matches the application version exactly)."""
# The names (queues, applications, versions) are composed in `mergegate.ids`.
APP_VERSION = app_version(__version__, ENGINE_SCHEMA)
POLL_S = 0.1
_MAX_RECOVERY_ATTEMPTS = 1000
_STORED_WORKER_CONCURRENCY = 0
"""The units queue's `worker_concurrency` as stored in the database. DBOS 3.4 keeps one per
queue and every process re-reads it on each poll, so the last worker to register would set it
for all; each process applies its own instead (`_dequeue_with_own_limit`). 0, not None: a
process that reads the row without applying its own number (a DBOS upgrade that reloads the
queue some other way; the moment between launch and the override) takes no unit, rather than
any number of them."""
_TERMINAL = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})
_QUIET_CHECK_S = 1.0
"""How often `DurableEngine.wait` reads the status of a workflow this process has not seen
return: an end that happens elsewhere (a cancel from another process) is seen this late."""
_SETTLE_S = 2.0
"""After the awaited workflow returned in this process, `wait` reads its status on every tick
this long: DBOS records the outcome just after the function returns."""


class _Returns:
    """The workflows of this process that returned (or raised), among those a `wait` watches,
    so that the waiter reads the database when its workflow may have ended instead of on
    every tick: each status read builds DBOS's query anew, about as much CPU as a step, ten
    times a second for a whole run."""

    def __init__(self) -> None:
        self._watched: dict[str, list[int]] = {}  # id -> [waiters, returns seen]
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def watching(self, wf_id: str) -> Iterator[None]:
        with self._changed:
            self._watched.setdefault(wf_id, [0, 0])[0] += 1
        try:
            yield
        finally:
            with self._changed:
                entry = self._watched[wf_id]
                entry[0] -= 1
                if not entry[0]:
                    del self._watched[wf_id]

    def note(self, wf_id: str | None) -> None:
        with self._changed:
            entry = None if wf_id is None else self._watched.get(wf_id)
            if entry is not None:
                entry[1] += 1
                self._changed.notify_all()

    def count(self, wf_id: str) -> int:
        with self._changed:
            entry = self._watched.get(wf_id)
            return 0 if entry is None else entry[1]

    def wait_past(self, wf_id: str, seen: int, timeout_s: float) -> None:
        """Sleep `timeout_s`, less when `wf_id` returns after `seen` was read."""
        with self._changed:
            self._changed.wait_for(lambda: self.count(wf_id) != seen, timeout=timeout_s)


_RETURNS = _Returns()


class DatabaseUnavailableError(AgentError):
    """The database of the durable state cannot be reached (exit 4: infrastructure)."""


@contextlib.contextmanager
def reachable(database_url: str) -> Iterator[None]:
    """A connection failure becomes one line naming the database (its password redacted):
    `DatabaseUnavailableError`, exit 4."""
    try:
        yield
    except OperationalError as exc:
        first = str(exc.orig or exc).strip().splitlines()[0] if str(exc.orig or exc) else ""
        raise DatabaseUnavailableError(
            f"the database {redact_url(database_url)} cannot be reached: {redact_url(first)}"
        ) from exc


class WorkflowState:
    """DBOS's workflow status names, as strings (so callers need not import dbos)."""

    PENDING = "PENDING"
    ENQUEUED = "ENQUEUED"
    SUCCESS = "SUCCESS"
    ERROR = "ERROR"
    CANCELLED = "CANCELLED"
    TERMINAL = _TERMINAL


@dataclass(frozen=True)
class EngineConfig:
    """Where the durable state lives and how the engine runs."""

    database_url: str
    """`sqlite:///<path>` (the embedded default) or a `postgresql://` URL."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Units (queued workflows) running at once on this executor: this process's own number,
    not stored with the queue, so every worker of a fleet keeps its own."""
    executor_id: str = "local"
    application_version: str = APP_VERSION
    polling_interval_s: float = POLL_S
    app_name: str = APP
    """DBOS scopes recovery and dequeuing by application name: on a database several runs
    share (Postgres), each local run has its own (`app_name_for_run`), so one run's process
    never recovers, or takes from a queue, another run's workflows."""
    queue: str = QUEUE
    """The units' queue (DBOS wants queue names unique across applications too)."""
    global_concurrency: int | None = None
    """Units running at once on the queue across every executor (None: no fleet-wide cap)."""
    run_queue: bool = False
    """Also take whole runs from `RUN_QUEUE` (a fleet worker)."""
    log_file: Path | None = None
    """Where DBOS's own log lines go (the run's `dbos.log`); None: nowhere. Never the
    console: a person reads mergegate's lines there, not the engine's."""


def sqlite_url(path: Path) -> str:
    """The database URL of a SQLite file, created in WAL mode when new.

    WAL lets `status` read while a run writes, and needs one fsync per commit instead of the
    rollback journal's several; it is a property of the file, so DBOS's own connections use it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        with contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
    return f"sqlite:///{path}"


class Seam:
    """How one workflow's or step's values cross into DBOS and back: the one place where the
    engine's typed values become what DBOS records, and are validated again when read.

    A parameter or result annotated with a pydantic model (or a type that holds one:
    `Model | None`, `list[Model]`) is recorded as the model's JSON form (`model_dump(mode=
    "json")`: plain dicts and lists, as the engine recorded before it was typed) and
    validated back into the model when it comes out of DBOS (a replayed step, a recovered
    workflow's inputs, a child's result); any other annotation passes through untouched, so
    what DBOS pickles is unchanged. Pinned by `tests/test_dbos_seam.py` against a run the
    untyped code recorded.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        self._func = func
        self._types: tuple[list[TypeAdapter[Any] | None], TypeAdapter[Any] | None] | None = None

    def _adapters(self) -> tuple[list[TypeAdapter[Any] | None], TypeAdapter[Any] | None]:
        # resolved on first use: a model the annotations name may be defined after the
        # function in its module
        if self._types is None:
            hints = get_type_hints(self._func)
            names = list(inspect.signature(self._func).parameters)
            params = [_adapter(hints.get(n)) for n in names]
            self._types = (params, _adapter(hints.get("return")))
        return self._types

    def dump_args(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Positional arguments as DBOS records them."""
        params, _ = self._adapters()
        return tuple(_dump(a, params[i] if i < len(params) else None) for i, a in enumerate(args))

    def load_args(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Recorded positional arguments as the function takes them."""
        params, _ = self._adapters()
        return tuple(_load(a, params[i] if i < len(params) else None) for i, a in enumerate(args))

    def dump_out(self, value: Any) -> Any:
        """A result as DBOS records it."""
        return _dump(value, self._adapters()[1])

    def load_out(self, raw: Any) -> Any:
        """A recorded result as the function's callers get it."""
        return _load(raw, self._adapters()[1])


def _holds_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_model(arg) for arg in get_args(annotation))


def _adapter(annotation: Any) -> TypeAdapter[Any] | None:
    return TypeAdapter(annotation) if _holds_model(annotation) else None


def _dump(value: Any, adapter: TypeAdapter[Any] | None) -> Any:
    return value if adapter is None else adapter.dump_python(value, mode="json")


def _load(raw: Any, adapter: TypeAdapter[Any] | None) -> Any:
    return raw if adapter is None else adapter.validate_python(raw)


_SEAMS: dict[Callable[..., Any], tuple[Callable[..., Any], Seam]] = {}
"""Each declared function's DBOS registration and seam, by the function callers hold."""


def seam_of(func: Callable[..., Any]) -> Seam:
    """The seam of a function declared with `workflow` or `step`."""
    return _SEAMS[func][1]


def _durable(func: Callable[..., Any]) -> tuple[Callable[..., Any], Seam]:
    found = _SEAMS.get(func)
    if found is None:  # pragma: no cover - a bug
        raise TypeError(f"{getattr(func, '__name__', func)!r} is not a declared workflow")
    return found


def _declare(
    func: Callable[P, R],
    decorator: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    is_workflow: bool = False,
) -> Callable[P, R]:
    """`func` registered with DBOS through its seam: DBOS records (and replays) the dumped
    values; the caller passes and gets the typed ones. A workflow's return (or raise) is
    noted for `DurableEngine.wait`."""
    seam = Seam(func)

    @functools.wraps(func)
    def durable(*args: Any, **kwargs: Any) -> Any:
        try:
            return seam.dump_out(func(*seam.load_args(args), **kwargs))
        finally:
            if is_workflow:
                _RETURNS.note(DBOS.workflow_id)

    registered = decorator(durable)

    @functools.wraps(func)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return cast(R, seam.load_out(registered(*seam.dump_args(args), **kwargs)))

    _SEAMS[call] = (registered, seam)
    return call


def workflow(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a durable workflow (deterministic: all I/O happens in steps). Its models are
    dumped and validated at the seam (`Seam`)."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        return _declare(
            func,
            DBOS.workflow(name=name, max_recovery_attempts=_MAX_RECOVERY_ATTEMPTS),
            is_workflow=True,
        )

    return decorate


_FINAL = threading.local()
"""The exception the running step's `not_retried` part raised last, in this thread."""


@contextlib.contextmanager
def not_retried() -> Iterator[None]:
    """The part of a step with `retries` that must run at most once per step: what it
    raises reaches the workflow as it is, never retried (`_transient`), as from a step of
    its own without retries. For a step that folds an idempotent part (retried: a git lock
    left for a moment) and one that must not run again on an error (a task's checks) into
    one recorded step."""
    try:
        yield
    except Exception as exc:
        _FINAL.raised = exc
        raise


def _transient(exc: BaseException) -> bool:
    """Whether a step that raised `exc` may be tried again: not for an `EscalationError` (a
    person must decide: the same step would refuse again, and the error must reach the
    workflow as it is, not as DBOS's "retries exceeded"), nor for what a `not_retried` part
    raised (DBOS asks in the thread that ran the step, right after it raised)."""
    if exc is getattr(_FINAL, "raised", None):
        _FINAL.raised = None
        return False
    return not isinstance(exc, EscalationError)


def step(name: str, *, retries: int = 0) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a step: its result is recorded once it returns, and never recomputed.

    `retries` re-runs a step that raised (after 0.5 s, then 1 s, ...): for idempotent git
    steps, which can meet a lock left for a moment by a git process of a crashed run. An
    `EscalationError` is never retried (`_transient`). A step's result crosses the seam as
    a workflow's does (`Seam`); its arguments are never recorded.
    """
    if retries:
        decorator = DBOS.step(
            name=name,
            retries_allowed=True,
            max_attempts=retries + 1,
            interval_seconds=0.5,
            should_retry=_transient,
        )
    else:
        decorator = DBOS.step(name=name)

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        return _declare(func, decorator)

    return decorate


def finished_result(workflow_id: str, of: Callable[..., R]) -> R | None:
    """The recorded result of the finished workflow `workflow_id` (a workflow `of`), read
    from inside a workflow (DBOS records the read as a step: a replay gets the same value),
    validated by `of`'s seam; None when there is no such workflow, or its result is not
    `of`'s (recorded by an older mergegate). Raises what that workflow raised."""
    if DBOS.get_workflow_status(workflow_id) is None:
        return None
    raw = DBOS.get_result(workflow_id)
    try:
        return cast(R, _durable(of)[1].load_out(raw))
    except ValidationError:
        return None


@contextlib.contextmanager
def child_id(workflow_id: str) -> Iterator[None]:
    """Start the next workflow (a call, or `enqueue`) under this id: idempotent by id."""
    with SetWorkflowID(workflow_id):
        yield


_units_queue = [QUEUE]
"""The units' queue of the engine launched in this process (one at a time)."""


@dataclass(frozen=True)
class Queued(Generic[R]):
    """A workflow put on a queue: its result comes through the workflow's seam."""

    handle: WorkflowHandle[Any]
    seam: Seam


def enqueue(func: Callable[..., R], workflow_id: str, *args: Any) -> Queued[R]:
    """Put a workflow on the concurrency-limited queue under `workflow_id` (its arguments
    dumped at its seam)."""
    queue = DBOS.retrieve_queue(_units_queue[0])
    if queue is None:  # pragma: no cover - launch registers it
        raise RuntimeError(f"queue {_units_queue[0]!r} is not registered")
    registered, seam = _durable(func)
    with SetWorkflowID(workflow_id):
        queued: Queued[R] = Queued(queue.enqueue(registered, *seam.dump_args(args)), seam)
    _UNITS_CLAIMS.enqueued()  # after the row is written: the next poll's claim sees it
    return queued


def wait_result(queued: Queued[R]) -> R:
    """The result of a queued workflow (inside a workflow: a durable, recorded wait),
    validated at its seam."""
    return cast(R, queued.seam.load_out(queued.handle.get_result(polling_interval_sec=POLL_S)))


def workflow_id() -> str | None:
    """The id of the workflow the caller runs in, if any."""
    return DBOS.workflow_id


_last_row: list[Queue | None] = [None]
"""The units queue's row as this process last read it (`_dequeue_with_own_limit`)."""


def _dequeue_with_own_limit(queue_name: str, limit: int, *, sole: bool = False) -> None:
    """Make this process dequeue `queue_name` with `limit` as its `worker_concurrency`,
    whatever the queue's row in the database says, and without writing the row: another
    worker keeps its own number, and `global_concurrency` stays the row's, fleet-wide.

    DBOS 3.4.0 has no per-process option for this (`DBOS.register_queue` persists the number
    with the queue: `_dbos.py:1261` -> `_sys_db.py:6653`). What this relies on, pinned by
    `tests/test_fleet_dbos.py::test_each_worker_keeps_its_own_concurrency` (two processes,
    PostgreSQL) and `tests/test_store_dbos.py::test_the_units_queue_row_holds_no_worker_limit`:

    * `_queue.py:711-724` (`queue_worker_thread`): before each poll's dequeue, the thread
      replaces its `Queue` with `dbos._sys_db.get_queue(name)`, an attribute looked up on
      this process's `SystemDatabase` at call time (which this replaces, for this process
      and this launch only: `_sys_db.py:6592` builds a fresh `Queue` from the row on every
      call, so the field set on it changes nothing stored);
    * `_queue.py:695` (`worker_budget`) and `_sys_db.py:5048-5054` (`start_queued_workflows`)
      read that object's `_worker_concurrency` against this process's running workflows of
      the queue (`_queue.py:744`, `_active_workflows_set.count_for_queue`), and its
      `_concurrency` (the row's `global_concurrency`, untouched) against every worker's
      (`_sys_db.py:5079`);
    * each poll reloads before it dequeues, and a reload that fails keeps the previous object
      (`_queue.py:718`): an object that did not pass through here carries the stored number,
      `_STORED_WORKER_CONCURRENCY` once an engine of this version registered the queue, so a
      poll that comes before this runs (the queue thread starts inside `DBOS.launch`) takes
      nothing.

    `sole`: this process is the only one that uses the queue (a local run), so its row
    changes only through `DurableEngine.limit_queue` here; while `_UNITS_CLAIMS` says the
    next poll claims nothing, a reload is a copy of the row last read (every poll reloads:
    a read transaction and about 1.5 ms of CPU, ten times a second, for a row that cannot
    have changed), and it is read from the database again at least every `IDLE_POLL_S`
    while a claim is due (`UnitsClaims.row_reusable`), and at the next poll after
    `limit_queue`. (Before, it was read before every poll with a claim due, which is every
    poll while the queue has no room: DBOS skips the claim, so the one that would find the
    queue empty never comes while a unit runs.)
    """
    sys_db = _get_dbos_instance()._sys_db
    read_row = sys_db.get_queue
    _last_row[0] = None

    def get_queue(name: str, **kwargs: Any) -> Queue | None:
        if name != queue_name:
            return read_row(name, **kwargs)
        last = _last_row[0]
        if sole and last is not None and not kwargs and _UNITS_CLAIMS.row_reusable():
            return copy.copy(last)
        _UNITS_CLAIMS.row_read()
        found = read_row(name, **kwargs)
        if found is not None:
            found._worker_concurrency = limit
        _last_row[0] = copy.copy(found) if sole and not kwargs else None
        return found

    sys_db.get_queue = get_queue  # type: ignore[method-assign]


IDLE_POLL_S = 1.0
"""How often the internal queue (recovery) is polled once it has been found empty for
`_IDLE_POLLS` polls in a row: DBOS's own default. At `POLL_S` each empty poll is a write
transaction (the SQLite write lock, taken ten times a second) and 2 to 3 ms of CPU, about 25 ms
of every second of a run, for a queue that has work only after a launch's recovery (or an
operator's `recover_from_outside`, which this process then sees up to a second later)."""
_IDLE_POLLS = 20


class IdlePolls:
    """The interval of a queue polled fast while it has work and slowly once idle: `fast_s`
    until `idle_polls` polls in a row claimed nothing, then `IDLE_POLL_S` until one claims."""

    def __init__(self, fast_s: float, idle_polls: int = _IDLE_POLLS) -> None:
        self.fast_s, self.idle_polls, self._idle = fast_s, idle_polls, 0

    def after(self, claimed: int) -> float:
        """The interval before the next poll, after one that claimed `claimed` workflows."""
        self._idle = 0 if claimed else self._idle + 1
        return self.fast_s if self._idle < self.idle_polls else max(self.fast_s, IDLE_POLL_S)


class UnitsClaims:
    """Whether a poll of the units queue may find a unit to claim, in a process that is the
    only one putting units there (a local run: its own database, or its own queue on a
    shared one; never a fleet worker, whose units other workers enqueue).

    DBOS's queue thread claims on every poll while this process has room for a unit: a
    write transaction and about 5 ms of CPU (the SQLite write lock taken ten times a
    second), which finds nothing but in the moments after `enqueue`. A claim is made on a
    poll when `enqueue` (or recovery, putting a crashed run's unit back on the queue) ran
    since the last claim that found the queue empty (read before that claim began, so an
    enqueue during it is never lost), during the first `_IDLE_POLLS` polls after the
    launch, and at least every `IDLE_POLL_S` whatever else happens (a unit put back by a
    path this class does not see starts that late at worst, never not at all). A unit
    this process enqueues therefore starts at the next poll, as before."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._enqueues = 0
        self._empty_at = -1  # `_enqueues` when a claim last found the queue empty
        self._launch_polls = _IDLE_POLLS
        self._claimed_at = -float("inf")
        self._row_read_at = -float("inf")

    def launched(self) -> None:
        """A launch: claim on every poll for a while (recovery may enqueue)."""
        with self._lock:
            self._empty_at, self._launch_polls = -1, _IDLE_POLLS

    def enqueued(self) -> None:
        with self._lock:
            self._enqueues += 1

    def _due(self, now: float) -> bool:
        return (
            self._enqueues != self._empty_at
            or self._launch_polls > 0
            or now - self._claimed_at >= IDLE_POLL_S
        )

    def idle(self) -> bool:
        """Whether the next poll would make no claim (as of now)."""
        with self._lock:
            return not self._due(self._clock())

    def row_read(self) -> None:
        """The units queue's row is being read from the database (before it, so a change
        made during the read is never taken as seen)."""
        with self._lock:
            self._row_read_at = self._clock()

    def row_reusable(self) -> bool:
        """Whether the units queue's row as last read may serve the next poll: no claim is
        due, or it was read less than `IDLE_POLL_S` ago. (A queue with no room skips every
        claim, so a claim stays due — the unit it claimed was enqueued since the queue was
        last found empty, or the timer lapsed — for as long as its units run: the row was
        read on each of those polls.)"""
        with self._lock:
            now = self._clock()
            return not self._due(now) or now - self._row_read_at < IDLE_POLL_S

    def claim(self, claim: Callable[[], tuple[list[str], Any]]) -> tuple[list[str], Any]:
        """`claim()` when a unit may be waiting; else no claim: nothing found."""
        with self._lock:
            seen = self._enqueues
            now = self._clock()
            due = self._due(now)
            self._launch_polls = max(0, self._launch_polls - 1)
            if not due:
                return [], None
            self._claimed_at = now
        found, stopped = claim()
        if not found and stopped is None:  # not a limit: the queue had nothing to claim
            with self._lock:
                self._empty_at = seen
        return found, stopped


_UNITS_CLAIMS = UnitsClaims()


def _claim_units_when_enqueued(queue_name: str) -> None:
    """Claim from the units queue `queue_name` only when `_UNITS_CLAIMS` says a unit may
    be waiting. Relies on what `_poll_internal_queue_when_busy` relies on (each poll claims
    through `SystemDatabase.start_queued_workflows`, looked up at call time), and on its
    second return value being the limit that stopped the claim, None when none did
    (`_sys_db.py` `start_queued_workflows`), and on recovery putting a workflow back on its
    queue through `SystemDatabase.reenqueue_for_recovery`; pinned by `tests/test_store_dbos.py`
    (`test_an_idle_units_queue_is_not_claimed_from_nor_read_on_every_poll`)."""
    sys_db = _get_dbos_instance()._sys_db
    claim = sys_db.start_queued_workflows
    _UNITS_CLAIMS.launched()

    def start_queued_workflows(polled: Queue, *args: Any, **kwargs: Any) -> Any:
        if polled.name != queue_name:
            return claim(polled, *args, **kwargs)
        return _UNITS_CLAIMS.claim(lambda: claim(polled, *args, **kwargs))

    sys_db.start_queued_workflows = start_queued_workflows  # type: ignore[method-assign,assignment]
    reenqueue = sys_db.reenqueue_for_recovery

    def reenqueue_for_recovery(workflow_id: str, *args: Any, **kwargs: Any) -> bool:
        # recovery puts a crashed run's unit back on its queue (`_recovery.py`): claimed at
        # the next poll, however long the launch's recovery of many workflows takes
        done = reenqueue(workflow_id, *args, **kwargs)
        if done:
            _UNITS_CLAIMS.enqueued()
        return done

    sys_db.reenqueue_for_recovery = reenqueue_for_recovery  # type: ignore[method-assign]


def _await_results_on_return() -> None:
    """Wait for a workflow's result (a phase for its units, `wait_result`) by reading its
    status when it returns in this process, not on every 0.1 s poll: each read is a query
    built anew, about 1 to 2 ms of CPU, ten times a second for as long as a phase runs. As
    `DurableEngine.wait` does (`_Returns`): read at once, every `_SETTLE_S` after the
    workflow returned here (DBOS records its outcome just after), and at least every
    `IDLE_POLL_S` (an end this process does not see, a cancel from outside, is seen that
    late). Only where this process runs every workflow it waits for (a local run). Relies on
    every wait for a result going through `SystemDatabase.await_workflow_result` (its
    callers in `_core.py` and `_dbos.py` look it up on this process's `SystemDatabase` at
    call time) and on `check_workflow_result` answering `NoResult` until the outcome is
    recorded; pinned by `tests/test_store_dbos.py`
    (`test_a_local_wait_for_a_result_reads_it_when_the_workflow_returns`)."""
    sys_db = _get_dbos_instance()._sys_db
    check = sys_db.check_workflow_result

    def await_workflow_result(workflow_id: str, polling_interval: float, **kwargs: Any) -> Any:
        settle_until = -float("inf")
        with _RETURNS.watching(workflow_id):
            seen = _RETURNS.count(workflow_id)
            while True:
                result = check(workflow_id, **kwargs)
                if not isinstance(result, NoResult):
                    return result
                now, returns = time.monotonic(), _RETURNS.count(workflow_id)
                if returns != seen:
                    seen, settle_until = returns, now + _SETTLE_S
                if now < settle_until:
                    time.sleep(polling_interval)
                else:
                    _RETURNS.wait_past(workflow_id, seen, max(polling_interval, IDLE_POLL_S))

    sys_db.await_workflow_result = await_workflow_result  # type: ignore[method-assign]


def _poll_internal_queue_when_busy(fast_s: float) -> None:
    """Poll DBOS's internal queue every `fast_s` while it has had work lately, and every
    `IDLE_POLL_S` once `_IDLE_POLLS` polls in a row found none (a launch's recovery enqueues
    its workflows within the first of them). Pinned by `tests/test_store_dbos.py`
    (`test_the_internal_queue_is_polled_slowly_once_idle`):

    * `_queue.py` (`queue_worker_thread`) reads the queue's `_polling_interval_sec` before
      each poll; the internal queue is not database-backed, so that is this very object
      (`_dbos.py` `get_internal_queue`), and setting the field changes its next wait;
    * each poll claims through `SystemDatabase.start_queued_workflows`, looked up on this
      process's `SystemDatabase` at call time (replaced here, for this launch only); its first
      return value is the list of workflows it claimed.
    """
    sys_db = _get_dbos_instance()._sys_db
    claim = sys_db.start_queued_workflows
    queue = _get_or_create_dbos_registry().get_internal_queue()
    polls = IdlePolls(fast_s)

    def start_queued_workflows(polled: Queue, *args: Any, **kwargs: Any) -> Any:
        found = claim(polled, *args, **kwargs)
        if polled.name == INTERNAL_QUEUE_NAME:
            queue._polling_interval_sec = polls.after(len(found[0]))
        return found

    sys_db.start_queued_workflows = start_queued_workflows  # type: ignore[method-assign,assignment]


def _read_latest_version_once_a_second(clock: Callable[[], float] = time.monotonic) -> None:
    """Answer whether this process's application version is the latest registered one from a
    reading at most `IDLE_POLL_S` old. DBOS asks it on every claim of every queue
    (`SystemDatabase._is_latest_version`, from `start_queued_workflows`), and builds its
    query anew each time (a union of two derived tables): about 4 ms of CPU a poll, the
    largest share of DBOS's own CPU in a run's process (py-spy `--gil` of `bench_run.py`'s
    parallel measure, session 23: 9 % of it), for an answer that changes only when another
    process registers a version on this database. Only in a local run (its database or its
    queue is its own: another version launched on it is seen up to a second later, as an
    enqueue from outside is). Relies on every caller looking the method up on this process's
    `SystemDatabase` at call time (`_sys_db.py`: `start_queued_workflows` and its
    partitioned twin, `_queue.py`: the sharded path); pinned by `tests/test_store_dbos.py`
    (`test_a_local_engine_reads_its_latest_version_at_most_once_a_second`)."""
    sys_db = _get_dbos_instance()._sys_db
    read = sys_db._is_latest_version
    lock = threading.Lock()
    known: dict[str, tuple[float, bool]] = {}

    def is_latest_version(app_version: str, c: Any = None) -> bool:
        now = clock()
        with lock:
            seen = known.get(app_version)
        if seen is not None and now - seen[0] < IDLE_POLL_S:
            return seen[1]
        latest = read(app_version, c)
        with lock:
            known[app_version] = (now, latest)
        return latest

    sys_db._is_latest_version = is_latest_version  # type: ignore[method-assign]


_LOG_HANDLER = "__mergegate_dbos_log__"


_DBOS_LOGGER = "dbos"
"""The one logger DBOS 3.4 writes to (`dbos._logger.dbos_logger`; its modules log through it,
never through a logger of their own): its "Could not connect to postgres database…" warning
of a migration, its "Error connecting to the DBOS system database", its pollers' warnings."""


def _route_dbos_log(log_file: Path | None) -> None:
    """DBOS's logger writes to `log_file` (or nowhere), never to the console: DBOS adds its
    console handler only to a logger without handlers (`init_logger`, on every `DBOS(…)`),
    so ours goes first and any console handler already there is removed. Its lines never
    propagate to the root logger either (whose last-resort handler is stderr)."""
    logger = logging.getLogger(_DBOS_LOGGER)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    for old in list(logger.handlers):
        if isinstance(old, logging.StreamHandler) or old.get_name() == _LOG_HANDLER:
            logger.removeHandler(old)
            old.close()
    handler: logging.Handler = logging.NullHandler()
    if log_file is not None:
        with contextlib.suppress(OSError):
            log_file.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.FileHandler(log_file, encoding="utf-8", delay=True)
            handler.setFormatter(
                logging.Formatter("%(asctime)s [%(levelname)s] %(name)s: %(message)s")
            )
    handler.set_name(_LOG_HANDLER)
    logger.addHandler(handler)


def _dbos_log_routed() -> bool:
    """Whether DBOS's logger writes only where `_route_dbos_log` sent it."""
    handlers = logging.getLogger(_DBOS_LOGGER).handlers
    return bool(handlers) and all(h.get_name() == _LOG_HANDLER for h in handlers)


# From the first import of the store on, DBOS's lines go nowhere until a launch names a file:
# a client call, or a DBOS that someone else configured first, never prints to the console
# before mergegate's own one-line error (issue 28).
_route_dbos_log(None)


class DurableEngine:
    """Launch DBOS on one database, start and watch workflows, shut it down.

    Only one engine can be launched per process at a time (DBOS is a singleton).
    """

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self._launched = False

    def launch(self) -> None:
        """Open the database (creating it), recover this executor's pending workflows,
        register the queue. Recovery starts in the background at once."""
        _route_dbos_log(self.config.log_file)
        config: DBOSConfig = {
            "name": "mergegate",
            "system_database_url": self.config.database_url,
            "application_version": self.config.application_version,
            "executor_id": self.config.executor_id,
            "log_level": "WARNING",
            "notification_listener_polling_interval_sec": self.config.polling_interval_s,
            "sys_db_pool_size": 8,
        }
        if self.config.app_name != APP:
            config["name"] = self.config.app_name
        with reachable(self.config.database_url):
            self._launch(config)

    def _launch(self, config: DBOSConfig) -> None:
        DBOS(config=config)
        dbos_core.DEFAULT_POLLING_INTERVAL = self.config.polling_interval_s
        # the internal queue (recovery) is made on first use with a 1 s polling interval; it
        # outlives a shutdown (the registry is kept), idle and slow: fast again for this launch
        internal = _get_or_create_dbos_registry()._register_internal_queue(
            INTERNAL_QUEUE_NAME, polling_interval_sec=self.config.polling_interval_s
        )
        internal._polling_interval_sec = self.config.polling_interval_s
        DBOS.launch()
        self._launched = True
        _units_queue[0] = self.config.queue
        _dequeue_with_own_limit(
            self.config.queue, self.config.concurrency, sole=not self.config.run_queue
        )
        _poll_internal_queue_when_busy(self.config.polling_interval_s)
        if not self.config.run_queue:  # a fleet worker's units come from other workers
            _claim_units_when_enqueued(self.config.queue)
            _await_results_on_return()
            _read_latest_version_once_a_second()
        self.limit_queue(self.config.global_concurrency)
        if self.config.run_queue:
            DBOS.register_queue(
                RUN_QUEUE,
                polling_interval_sec=self.config.polling_interval_s,
                on_conflict="always_update",
            )

    def limit_queue(self, global_concurrency: int | None) -> None:
        """Register the units queue with `global_concurrency` (None: no cap) in the database,
        where every worker's next poll reads it."""
        DBOS.register_queue(
            self.config.queue,
            worker_concurrency=_STORED_WORKER_CONCURRENCY,
            global_concurrency=global_concurrency,
            polling_interval_sec=self.config.polling_interval_s,
            on_conflict="always_update",
        )
        _last_row[0] = None  # read again at the next poll

    def shutdown(self) -> None:
        """Stop DBOS without waiting for workflows: pending ones stay pending and are
        recovered by the next launch on the same database."""
        if self._launched:
            DBOS.destroy(destroy_registry=False)
            self._launched = False

    def __enter__(self) -> DurableEngine:
        self.launch()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def start(self, func: Callable[..., Any], wf_id: str, *args: Any) -> str:
        """Start `func(*args)` in the background under `wf_id` (a no-op if it exists); the
        arguments dumped at `func`'s seam."""
        registered, seam = _durable(func)
        with SetWorkflowID(wf_id):
            DBOS.start_workflow(registered, *seam.dump_args(args))
        return wf_id

    def status(self, wf_id: str) -> str | None:
        """The workflow's status name, or None when there is no such workflow."""
        found = DBOS.get_workflow_status(wf_id)
        return None if found is None else str(found.status)

    def wait(
        self, wf_id: str, *, timeout_s: float | None = None, tick: Callable[[], None] = lambda: None
    ) -> str | None:
        """Poll until the workflow is terminal (or the timeout passes); its last status.

        `tick` runs every polling interval (the CLI refreshes its live view there). The
        status is read at once, then every `_QUIET_CHECK_S` (an end from outside, a cancel, is
        seen that late), and on every tick for `_SETTLE_S` after the workflow returned in
        this process.
        """
        with _RETURNS.watching(wf_id):
            return self._wait(wf_id, timeout_s, tick)

    def _wait(self, wf_id: str, timeout_s: float | None, tick: Callable[[], None]) -> str | None:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        read_at = settle_until = -float("inf")
        seen, state = 0, None
        while True:
            now = time.monotonic()
            if seen != _RETURNS.count(wf_id):
                seen, settle_until = _RETURNS.count(wf_id), now + _SETTLE_S
            if now < settle_until or now - read_at >= _QUIET_CHECK_S:
                state, read_at = self.status(wf_id), now
                if state in _TERMINAL:
                    return state
            if deadline is not None and now >= deadline:
                return state if read_at == now else self.status(wf_id)
            tick()
            _RETURNS.wait_past(wf_id, seen, self.config.polling_interval_s)

    def result(self, wf_id: str) -> Any:
        """The recorded result of a finished workflow (raises what the workflow raised)."""
        return DBOS.retrieve_workflow(wf_id).get_result(polling_interval_sec=POLL_S)

    def active(self) -> list[str]:
        """Ids of workflows still pending or enqueued in this database."""
        found = DBOS.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED],
            load_input=False,
            load_output=False,
        )
        return [w.workflow_id for w in found]

    def stranded(self, prefix: str) -> dict[str, str]:
        """Workflows under `prefix` still pending or enqueued that another application version
        recorded (another mergegate version or engine schema), by id: this one's. DBOS
        recovers only its own version's, and replaying another's steps in this code's order
        would hand a step another step's recorded result, so none of them ever goes on."""
        found = DBOS.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED],
            workflow_id_prefix=prefix,
            load_input=False,
            load_output=False,
        )
        mine = self.config.application_version
        return {w.workflow_id: w.app_version or "" for w in found if w.app_version != mine}

    def cancel_all(self) -> list[str]:
        """Cancel every pending or enqueued workflow; returns their ids."""
        ids = self.active()
        for wf_id in ids:
            DBOS.cancel_workflow(wf_id)
        return ids


_migrated: set[str] = set()


def driver_url(database_url: str) -> str:
    """SQLAlchemy's URL for the driver DBOS uses (psycopg 3) when none is named."""
    scheme, sep, rest = database_url.partition("://")
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg{sep}{rest}"
    return database_url


def _must_exist(database_url: str) -> None:
    """Connect to the PostgreSQL database `database_url` names, before DBOS's migration,
    which creates a missing one: a typo in a fleet's URL would otherwise start an empty fleet
    of its own (`workers list` showing no worker, `workers recover` recovering nothing) where
    every other command says the database does not exist. `OperationalError` when it cannot
    be reached (`reachable` makes it one line)."""
    if not database_url.startswith(("postgresql", "postgres")):
        return  # a SQLite file is made by whoever writes first, as a run's own file is
    engine = create_engine(driver_url(database_url), poolclass=NullPool)
    try:
        with engine.connect():
            pass
    finally:
        engine.dispose()


@contextlib.contextmanager
def _client(database_url: str, app_name: str) -> Iterator[DBOSClient]:
    """A DBOS client on a database whose tables exist: a client alone never creates them,
    and a fleet's database may be read (`run --queue`, a worker's orphan check) before any
    process launched DBOS on it. The migration is idempotent, checked once per process."""
    if not _dbos_log_routed():
        _route_dbos_log(None)  # a client's log lines never reach the console either
    with reachable(database_url):
        if database_url not in _migrated:
            _must_exist(database_url)
            DBOS.migrate(database_url)
            _migrated.add(database_url)
        client = DBOSClient(system_database_url=database_url, application_name=app_name)
        try:
            yield client
        finally:
            client.destroy()


def cancel_from_outside(
    database_url: str, *, app_name: str = APP, prefix: str | None = None
) -> list[str]:
    """Cancel every pending or enqueued workflow of a database (of one application; with
    `prefix`, only the workflows whose id starts with it) without launching DBOS here (a
    launch would recover them into this process). A running orchestrator sees the
    cancellation at its next step; a crashed one's workflows are never recovered again."""
    with _client(database_url, app_name) as client:
        found = client.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED],
            load_input=False,
            load_output=False,
            workflow_id_prefix=prefix,
        )
        ids = [w.workflow_id for w in found]
        if ids:
            client.cancel_workflows(ids)
        return ids


@dataclass(frozen=True)
class ExecutorWork:
    """One workflow of a shared database as `status` and recovery see it."""

    workflow_id: str
    name: str
    status: str
    executor_id: str | None
    queue: str | None


def executor_work(
    database_url: str,
    *,
    app_name: str = FLEET_APP,
    prefix: str | None = None,
    executor_id: str | None = None,
    active_only: bool = True,
) -> list[ExecutorWork]:
    """The workflows of an application (whose id starts with `prefix`, held by
    `executor_id`), read without launching DBOS: which executor holds which workflow."""
    with _client(database_url, app_name) as client:
        found = client.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED] if active_only else None,
            workflow_id_prefix=prefix,
            executor_id=executor_id,
            load_input=False,
            load_output=False,
        )
        return [
            ExecutorWork(
                workflow_id=w.workflow_id,
                name=str(w.name),
                status=str(w.status),
                executor_id=w.executor_id,
                queue=w.queue_name,
            )
            for w in found
        ]


def workflow_inputs(database_url: str, prefix: str, *, app_name: str = FLEET_APP) -> list[Any]:
    """The recorded positional arguments of every workflow whose id starts with `prefix`."""
    with _client(database_url, app_name) as client:
        found = client.list_workflows(workflow_id_prefix=prefix, load_input=True, load_output=False)
        return [list(w.input["args"]) for w in found if w.input is not None]


def enqueue_from_outside(
    database_url: str,
    workflow_name: str,
    wf_id: str,
    *args: Any,
    queue: str = RUN_QUEUE,
    app_name: str = FLEET_APP,
) -> str:
    """Put a workflow on a fleet queue without launching DBOS here (a launched process
    would take queued work itself): the workers take it. Idempotent by id. A model among
    `args` is recorded in its JSON form, as the workflow's seam records it (`Seam`)."""
    args = tuple(a.model_dump(mode="json") if isinstance(a, BaseModel) else a for a in args)
    with _client(database_url, app_name) as client:
        handle: WorkflowHandle[Any] = client.enqueue(
            {
                "workflow_name": workflow_name,
                "queue_name": queue,
                "workflow_id": wf_id,
                "app_version": APP_VERSION,
            },
            *args,
        )
        return handle.get_workflow_id()


def recover_from_outside(
    database_url: str, executor_id: str, *, app_name: str = FLEET_APP
) -> list[str]:
    """Put the pending workflows of a dead executor back on their queues (the internal one
    for those that were not queued) without launching DBOS here: any live executor of the
    application takes them. What `DBOS._recover_pending_workflows` does, on DBOS 3.4's
    system database (private names, pinned by a contract test). Only for an executor that is
    really gone: one still running would run them twice."""
    with _client(database_url, app_name) as client:
        sys_db = client._sys_db
        recovered = []
        for pending in sys_db.get_pending_workflows(executor_id, APP_VERSION):
            if sys_db.reenqueue_for_recovery(
                pending.workflow_id, [executor_id], INTERNAL_QUEUE_NAME
            ):
                recovered.append(pending.workflow_id)
        return recovered
