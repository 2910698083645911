"""The processes a run starts: recorded in its database as they start, killed when a crash
left them running.

The supervisor reports each process it starts to the installed `ProcessLedger`; a run's
ledger writes the record into the run's rows (`RunRows.record_process`), with the executor
that started it (`local`, or a fleet worker's id), and deletes it once the process ended.
`cancel` and `resume` (`kill_orphans`), a fleet worker at its start and stop, at each beat
for its runs that were cancelled, the janitor and `workers recover` (`kill_orphans_of`) kill
from these rows only — never from a `process.json`
in the run's folder, which an agent can write — and `kill_recorded_group` signals a group only
while it is still the one the supervisor started: same boot and PID namespace, the leader's
start time, group and session, and the tree's tag in its environment.

A child's record is written once the child exists, so a SIGKILL between its start and that
write leaves a child no record names. Each process therefore records itself, as the
supervisor of the run's children, before its first one (`supervising`: a
`SupervisorRecord`, whose token begins every tag it gives a child); the same kills sweep,
for each recorded supervisor that is gone, every process still carrying one of its tags
(`SupervisorRecord.sweep_left`), and forget it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from mergegate.processes import (
    ProcessRecord,
    SupervisorRecord,
    host_name,
    kill_recorded_groups,
    made_here,
)
from mergegate.store import RunRows, StateKind, stopping_runs, tables

__all__ = [
    "OrphanedAgent",
    "PreviousGeneration",
    "RunProcesses",
    "WorkerProcesses",
    "kill_orphans",
    "kill_orphans_of",
    "note_unreachable_orphans",
    "orphaned_agents",
    "previous_generation",
]


def _under(folder: Path | None, root: Path) -> bool:
    return folder is not None and folder.is_relative_to(root)


class RunProcesses:
    """The process ledger of one run executed by this process (`ProcessLedger`)."""

    def __init__(self, rows: RunRows, executor_id: str = "local") -> None:
        self.rows = rows
        self.executor_id = executor_id
        self._noted = _Noted()

    def supervising(self, supervisor: SupervisorRecord) -> None:
        self._noted.once(
            (self.rows.run_id, supervisor.token),
            lambda: self.rows.record_supervisor(supervisor, executor_id=self.executor_id),
        )

    def started(self, record: ProcessRecord, attempt_dir: Path | None) -> None:
        self.rows.record_process(record, attempt_dir, executor_id=self.executor_id)

    def ended(self, record: ProcessRecord) -> None:
        self.rows.forget_processes([record])

    def recorded(self, root: Path) -> list[tuple[Path, ProcessRecord]]:
        return [(d, r) for d, r in self.rows.processes() if d is not None and _under(d, root)]


class WorkerProcesses:
    """A fleet worker's process ledger: each process goes to the rows of the run whose
    workflow started it (`rows_of`, None outside any run's workflow: nothing is recorded, as
    nothing of a run runs there)."""

    def __init__(self, executor_id: str, rows_of: Callable[[], RunRows | None]) -> None:
        self.executor_id = executor_id
        self.rows_of = rows_of
        self._noted = _Noted()

    def supervising(self, supervisor: SupervisorRecord) -> None:
        rows = self.rows_of()
        if rows is not None:
            self._noted.once(
                (rows.run_id, supervisor.token),
                lambda: rows.record_supervisor(supervisor, executor_id=self.executor_id),
            )

    def started(self, record: ProcessRecord, attempt_dir: Path | None) -> None:
        rows = self.rows_of()
        if rows is not None:
            RunProcesses(rows, self.executor_id).started(record, attempt_dir)

    def ended(self, record: ProcessRecord) -> None:
        rows = self.rows_of()
        if rows is not None:
            rows.forget_processes([record])

    def recorded(self, root: Path) -> list[tuple[Path, ProcessRecord]]:
        rows = self.rows_of()
        return [] if rows is None else RunProcesses(rows, self.executor_id).recorded(root)


class _Noted:
    """What a ledger has recorded once, durably: (run, supervisor token)."""

    def __init__(self) -> None:
        self._done: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def once(self, key: tuple[str, str], record: Callable[[], None]) -> None:
        """`record()` unless done for `key` already; a child waiting to start waits for the
        write (a failed one is tried again by the next)."""
        with self._lock:
            if key not in self._done:
                record()
                self._done.add(key)


def _sweep(supervisors: Iterable[SupervisorRecord]) -> tuple[int, set[str]]:
    """Kill what the gone supervisors among these left; (processes signalled, the tokens of
    those swept: gone, and nothing of theirs runs now). One sweep per token."""
    killed, swept = 0, set()
    for token, supervisor in {s.token: s for s in supervisors}.items():
        found = supervisor.sweep_left()
        if found is not None:
            killed += found
            swept.add(token)
    return killed, swept


def _kill(records: list[ProcessRecord]) -> tuple[int, list[ProcessRecord]]:
    """Kill what is still running of these records; (groups signalled, the records made on
    this system: their processes are gone now, or were never ours to kill)."""
    killed = kill_recorded_groups(records)
    return killed, [r for r in records if made_here(r)]


def kill_orphans(rows: RunRows) -> int:
    """Kill the agent and check process groups the run's earlier processes left running (a
    crash, a SIGKILL), by the run's recorded processes, and whatever else carries a tag of a
    gone supervisor of the run; how many groups and processes were signalled. The records
    made here are forgotten (another host's stay for that host's workers)."""
    killed, done = _kill([r for _, r in rows.processes()])
    rows.forget_processes(done)
    supervisors = rows.supervisors()
    swept, gone = _sweep(supervisors)
    rows.forget_supervisors([s for s in supervisors if s.token in gone])
    return killed + swept


def kill_orphans_of(database_url: str, executor_id: str, *, stopping_only: bool = False) -> int:
    """Kill the process groups an executor (a fleet worker) started and left running on this
    host, in every run of the fleet's database — with `stopping_only`, in the runs whose stop
    request stops running agents too (`cancel`, `stopping_runs`); how many groups were
    signalled."""
    db = tables(database_url)
    wanted = set(stopping_runs(db, executor_id)) if stopping_only else None
    if wanted is not None and not wanted:
        return 0
    by_run: dict[str, list[ProcessRecord]] = {}
    for run_id, _, record in db.processes(executor_id=executor_id):
        if wanted is None or run_id in wanted:
            by_run.setdefault(run_id, []).append(record)
    total = 0
    for run_id, records in by_run.items():
        killed, done = _kill(records)
        db.forget_processes(run_id, done)
        total += killed
    supervisors = [
        (run_id, s)
        for run_id, s in db.supervisors(executor_id=executor_id)
        if wanted is None or run_id in wanted
    ]
    swept, gone = _sweep(s for _, s in supervisors)
    for run_id, supervisor in supervisors:
        if supervisor.token in gone:
            db.forget_supervisors(run_id, [supervisor.token])
    return total + swept


class OrphanedAgent(BaseModel):
    """An agent group of a dead worker that the recovery could not kill: its record was made
    on another host (or boot), where only a worker of that host can check and kill it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    executor_id: str
    """The dead worker that started it."""
    noted_by: str
    """Who found it unreachable: a janitor's worker id, `workers recover`, or the worker
    itself started again on another host (`previous_generation`)."""
    record: ProcessRecord
    noted_on: str | None = Field(default=None, exclude_if=lambda host: host is None)
    """The host it was found from (None in a row written before hosts were recorded); the
    agent's own host is its record's `host`."""


def note_unreachable_orphans(database_url: str, executor_id: str, noted_by: str) -> int:
    """Record as `orphaned`, in each run's rows, the process groups `executor_id` left that
    this host cannot act on (made on another host or boot: `made_here` false); how many.
    They stay recorded for their own host: the worker restarted there under the same id
    kills them at its start (`kill_orphans_of`)."""
    db = tables(database_url)
    noted = 0
    for run_id, _, record in db.processes(executor_id=executor_id):
        if made_here(record):
            continue  # this host's: killed (or gone) by `kill_orphans_of`, never orphaned
        orphan = OrphanedAgent(
            executor_id=executor_id, noted_by=noted_by, record=record, noted_on=host_name()
        )
        key = (executor_id, str(record.pid), str(record.started_at))
        RunRows(db, run_id).put(StateKind.ORPHANED, key, orphan, replace=False)
        noted += 1
    return noted


class PreviousGeneration(NamedTuple):
    """What a worker found of its earlier process when it started."""

    killed: int
    """Agent groups its earlier process left running on this host, signalled."""
    orphaned: int
    """Agent groups its earlier process recorded on another host (or boot), recorded as
    `orphaned` in their runs (`status` names their host): only that host can act on them."""


def previous_generation(database_url: str, executor_id: str) -> PreviousGeneration:
    """What a fleet worker does before it launches, under its own id: kill the agent groups
    its previous generation (a crashed or SIGKILLed process of the same id) left on this host
    and forget them, and record the ones it left on another host as orphaned, found by
    itself. A worker restarted on another machine under the same id thereby shows, rather
    than signals, what its old host still runs; restarted on the old host, it kills them."""
    killed = kill_orphans_of(database_url, executor_id)
    return PreviousGeneration(
        killed, note_unreachable_orphans(database_url, executor_id, executor_id)
    )


def orphaned_agents(rows: RunRows) -> list[OrphanedAgent]:
    """The run's agents recorded as orphaned that are still recorded as running (their own
    host's worker has not killed and forgotten them yet)."""
    running = {r for _, r in rows.processes()}
    return [o for _, o in rows.items(StateKind.ORPHANED, OrphanedAgent) if o.record in running]
