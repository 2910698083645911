"""A fleet seen from outside its runs: the database a fleet needs, where a queued run's state
lives, who holds which unit, the roll call, and recovering a dead worker's work (its orphaned
agents killed first). `mergegate status`, `workers list` and `workers recover` call these, and
so does a worker (at start, at stop, and as a janitor)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from mergegate.config import Config
from mergegate.engine._api import database_url_of, run_report
from mergegate.errors import UsageError
from mergegate.processes import ProcessRecord, kill_recorded_groups
from mergegate.store import (
    Roll,
    RunStore,
    WorkflowState,
    executor_work,
    recover_from_outside,
    workflow_inputs,
)

__all__ = [
    "fleet_database_url",
    "fleet_status",
    "fleet_workers",
    "kill_orphans_of",
    "recover_executor",
    "recover_worker",
    "run_state_dir",
    "unit_holders",
]

_UNIT = "mergegate.unit"
_TASK = "mergegate.task"
_PHASE = "mergegate.phase"


def fleet_database_url(config: Config) -> str:
    """The fleet's database: `[engine] database_url` on Postgres (a usage error otherwise)."""
    found = config.engine.database_url
    if found is None or not found.is_postgres:
        raise UsageError(
            "the fleet needs a Postgres database: set [engine] database_url (or "
            "MERGEGATE_DATABASE_URL) to postgresql://… (docs/fleet.md)"
        )
    return found.get_secret_value()


def run_state_dir(database_url: str, run_id: str) -> Path | None:
    """The state directory a queued run was created in (recorded with its fleet workflow)."""
    for args in workflow_inputs(database_url, f"{run_id}/fleet/"):
        if args and isinstance(args[0], dict) and args[0].get("state_dir"):
            return Path(args[0]["state_dir"])
    return None


def _folders(run_dir: Path, name: str, wf_id: str) -> list[Path]:
    """Where a held workflow's processes run: a unit's folder (a unit or one of its tasks),
    or a phase's verification."""
    parts = wf_id.split("/")
    if name == _UNIT and len(parts) == 3:
        return list(run_dir.glob(f"*/{parts[2]}"))
    if name == _TASK and len(parts) == 3:
        return list(run_dir.glob(f"*/{parts[1]}/{parts[2]}"))
    if name == _PHASE and len(parts) == 3:
        return [run_dir / parts[2] / "verify"]
    return []


def kill_orphans_of(database_url: str, executor_id: str) -> int:
    """Kill the agent and check process groups recorded for the units, tasks and
    verifications the executor holds (pending, so not finished): what a dead worker left
    running on this host. `kill_recorded_group` checks each pid is still the same process.
    Returns how many groups were signalled."""
    records = []
    locations: dict[str, Path | None] = {}
    for work in executor_work(database_url, executor_id=executor_id):
        if work.status != WorkflowState.PENDING:
            continue
        run_id = work.workflow_id.split("/", 1)[0]
        if run_id not in locations:
            locations[run_id] = run_state_dir(database_url, run_id)
        state = locations[run_id]
        if state is None:
            continue
        run_dir = RunStore(state).run_dir(run_id)
        for folder in _folders(run_dir, work.name, work.workflow_id):
            for record_file in folder.rglob("process.json"):
                with contextlib.suppress(OSError, ValueError):
                    records.append(
                        ProcessRecord.model_validate_json(record_file.read_text("utf-8"))
                    )
    return kill_recorded_groups(records)


def recover_worker(config: Config, executor_id: str) -> dict[str, Any]:
    """A dead worker's units go to the live workers: its recorded agent groups on this host
    are killed, then its pending workflows are put back on their queues. Only for a worker
    that is really gone (a live one would run them twice)."""
    killed, recovered = recover_executor(fleet_database_url(config), executor_id, kill=True)
    return {"executor_id": executor_id, "killed_groups": killed, "recovered": recovered}


def fleet_workers(config: Config) -> list[dict[str, Any]]:
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
        {
            "executor_id": b.executor_id,
            "host": b.host,
            "pid": b.pid,
            "state": b.state,
            "started": b.started_at,
            "silent_s": round(b.silent_s, 1),
            "holds": held.pop(b.executor_id, 0),
        }
        for b in beats
    ]
    found += [
        {"executor_id": i, "host": "", "pid": 0, "state": "unknown", "started": 0.0,
         "silent_s": None, "holds": n}
        for i, n in sorted(held.items())
    ]  # fmt: skip
    return found


def recover_executor(database_url: str, executor_id: str, *, kill: bool) -> tuple[int, list[str]]:
    """The recovery itself (`workers recover`, or a janitor): the executor's recorded agent
    groups killed when `kill` (they ran on this host: process groups are per host), then its
    pending workflows back on their queues; (groups signalled, workflows moved)."""
    killed = kill_orphans_of(database_url, executor_id) if kill else 0
    return killed, recover_from_outside(database_url, executor_id)


def unit_holders(database_url: str, run_id: str) -> dict[str, dict[str, str]]:
    """Which worker holds which unit of a queued run now: unit id → {worker, status}
    (units queued and not yet taken have no worker)."""
    held = {}
    for work in executor_work(database_url, prefix=f"{run_id}/g"):
        parts = work.workflow_id.split("/")
        if work.name == _UNIT and len(parts) == 3:
            worker = work.executor_id if work.status == WorkflowState.PENDING else ""
            held[parts[2]] = {"worker": worker or "", "status": work.status}
    return held


def fleet_status(state_dir: Path, run_id: str, config: Config) -> dict[str, Any]:
    """`status` of a run: its report, and for a queued run which worker holds which unit
    (`worker` of each unit) and the run itself (its phases and merges: `worker` of the run);
    "" where none does now."""
    report = run_report(state_dir, run_id)
    url = database_url_of(config)
    if RunStore(state_dir).load(run_id).fleet and url is not None:
        holders = unit_holders(url, run_id)
        for unit in report["units"]:
            found = holders.get(unit["id"])
            unit["worker"] = found["worker"] if found else ""
        runs = executor_work(url, prefix=f"{run_id}/fleet/")
        report["worker"] = next(
            (w.executor_id or "" for w in runs if w.status == WorkflowState.PENDING), ""
        )
    return report
