"""A fleet seen from outside its runs: the database a fleet needs, where a queued run's state
lives, who holds which unit, the roll call, and recovering a dead worker's work (its orphaned
agents killed first). `mergegate status`, `workers list` and `workers recover` call these, and
so does a worker (at start, at stop, and as a janitor)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from mergegate.config import Config
from mergegate.engine._context.orphans import (
    kill_orphans_of,
    note_unreachable_orphans,
    orphaned_agents,
)
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._records.run_report import OrphanEntry, RunReport
from mergegate.engine._runs.database import database_url_of
from mergegate.engine._runs.queries import run_report
from mergegate.errors import UsageError
from mergegate.ids import WorkflowId
from mergegate.store import (
    QUEUE,
    Roll,
    RunStore,
    WorkflowState,
    executor_work,
    recover_from_outside,
    tables,
    workflow_inputs,
)

__all__ = [
    "Recovery",
    "WorkerEntry",
    "fleet_database_url",
    "fleet_status",
    "fleet_workers",
    "recover_executor",
    "recover_worker",
    "run_state_dir",
    "settle_global_concurrency",
    "unit_holders",
]

_UNIT = "mergegate.unit"


def fleet_database_url(config: Config) -> str:
    """The fleet's database: `[engine] database_url` on Postgres (a usage error otherwise)."""
    found = config.engine.database_url
    if found is None or not found.is_postgres:
        raise UsageError(
            "the fleet needs a Postgres database: set [engine] database_url (or "
            "MERGEGATE_DATABASE_URL) to postgresql://… (docs/fleet.md)"
        )
    return found.get_secret_value()


def settle_global_concurrency(database_url: str, wanted: int | None) -> int | None:
    """The fleet's `global_concurrency` for its units queue, stored once: `wanted` is stored
    when no value is (the first `run --queue` or worker that names one), the stored value is
    returned when `wanted` is None or the same, and a different `wanted` is a usage error
    (exit 2) naming the stored value. None: no value was ever named (no cap)."""
    db = tables(database_url)
    if wanted is None:
        return db.queue_limit(QUEUE)
    stored = db.claim_queue_limit(QUEUE, wanted)
    if stored != wanted:
        raise UsageError(
            f"--global-concurrency {wanted} conflicts with the fleet's global concurrency "
            f"{stored}, stored for the queue {QUEUE} by the first run --queue or worker that "
            f"named one: give {stored}, or leave it out (docs/fleet.md)"
        )
    return stored


def run_state_dir(database_url: str, run_id: str) -> Path | None:
    """The state directory a queued run was created in (recorded with its fleet workflow)."""
    for args in workflow_inputs(database_url, WorkflowId.of_fleet_runs(run_id)):
        if args and isinstance(args[0], dict) and args[0].get("state_dir"):
            return Path(args[0]["state_dir"])
    return None


def recover_worker(config: Config, executor_id: str) -> Recovery:
    """A dead worker's units go to the live workers: its recorded agent groups on this host
    are killed, then its pending workflows are put back on their queues. Only for a worker
    that is really gone (a live one would run them twice)."""
    return recover_executor(fleet_database_url(config), executor_id, kill=True)


class WorkerEntry(NamedTuple):
    """One worker of the fleet as `mergegate workers list` shows it."""

    executor_id: str
    host: str
    """Empty for an executor that never beat."""
    pid: int
    state: str
    """Its last beat's state, or `unknown` for an executor that holds work and never beat."""
    started: float
    silent_s: float | None
    """Seconds since its last beat by the database's clock (None: it never beat)."""
    holds: int
    """Its pending workflows."""


def fleet_workers(config: Config) -> list[WorkerEntry]:
    """The fleet's workers: each one's last beat (`silent_s` by the database's clock, its
    `state`, host and pid) and how many pending workflows it holds (`holds`); an executor
    that holds work and never beat (an older mergegate) is listed with `state` `unknown`."""
    url = fleet_database_url(config)
    held: dict[str, int] = {}
    for work in executor_work(url):
        if work.status == WorkflowState.PENDING and work.executor_id:
            held[work.executor_id] = held.get(work.executor_id, 0) + 1
    roll = Roll(url)
    try:
        beats = roll.workers()
    finally:
        roll.close()
    found = [
        WorkerEntry(
            b.executor_id, b.host, b.pid, b.state, b.started_at, round(b.silent_s, 1),
            held.pop(b.executor_id, 0),
        )
        for b in beats
    ]  # fmt: skip
    found += [WorkerEntry(i, "", 0, "unknown", 0.0, None, n) for i, n in sorted(held.items())]
    return found


class Recovery(NamedTuple):
    """What recovering a dead worker did."""

    killed: int
    """Its agent groups signalled on this host."""
    recovered: list[str]
    """Its workflows put back on the queues."""
    orphaned: int
    """Its agent groups on a host this one cannot reach, recorded as `orphaned` (`status`)."""


def recover_executor(
    database_url: str, executor_id: str, *, kill: bool, noted_by: str = "workers recover"
) -> Recovery:
    """The recovery itself (`workers recover`, or a janitor, `noted_by` its id): the
    executor's recorded agent groups killed when `kill` (the ones that ran on this host:
    records of another host are never acted on, they are recorded as orphaned instead), then
    its pending workflows back on their queues."""
    killed = kill_orphans_of(database_url, executor_id) if kill else 0
    orphaned = note_unreachable_orphans(database_url, executor_id, noted_by)
    return Recovery(killed, recover_from_outside(database_url, executor_id), orphaned)


def unit_holders(database_url: str, run_id: str) -> dict[str, dict[str, str]]:
    """Which worker holds which unit of a queued run now: unit id → {worker, status}
    (units queued and not yet taken have no worker)."""
    held = {}
    for work in executor_work(database_url, prefix=WorkflowId.of_generations(run_id)):
        unit = WorkflowId.parse(work.workflow_id).generation_child_id
        if work.name == _UNIT and unit is not None:
            worker = work.executor_id if work.status == WorkflowState.PENDING else ""
            held[unit] = {"worker": worker or "", "status": work.status}
    return held


def fleet_status(state_dir: Path, run_id: str, config: Config) -> RunReport:
    """`status` of a run: its report, and for a queued run which worker holds which unit
    (`worker` of each unit) and the run itself (its phases and merges: `worker` of the run);
    "" where none does now."""
    url = database_url_of(config)
    report = run_report(state_dir, run_id, url)
    if RunStore(state_dir, url).load(run_id, EngineRunRecord).fleet and url is not None:
        holders = unit_holders(url, run_id)
        for unit in report.units:
            found = holders.get(unit.id)
            unit.worker = found["worker"] if found else ""
        runs = executor_work(url, prefix=WorkflowId.of_fleet_runs(run_id))
        report.worker = next(
            (w.executor_id or "" for w in runs if w.status == WorkflowState.PENDING), ""
        )
        orphans = orphaned_agents(RunStore(state_dir, url).rows(run_id))
        report.orphaned = [
            OrphanEntry(
                worker=o.executor_id,
                noted_by=o.noted_by,
                pid=o.record.pid,
                pgid=o.record.pgid,
                program=Path(o.record.argv[0]).name if o.record.argv else "",
                host=o.record.host,
                noted_on=o.noted_on,
            )
            for o in orphans
        ]
    return report
