"""The leases a process holds while it executes a run: the run's own, and its plan's on its
repository (one active run per plan), taken in the run's database."""

from __future__ import annotations

import contextlib
from pathlib import Path

from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.errors import UsageError
from mergegate.store import (
    RunStore,
    plan_lease,
    run_lease,
)

__all__ = [
    "hold_leases",
    "lease_names",
    "release_leases",
]


def lease_names(run_id: str, repo: str, plan_path: Path | str | None) -> list[str]:
    names = [run_lease(run_id)]
    if plan_path is not None:
        names.append(plan_lease(repo, str(Path(plan_path).resolve())))
    return names


def hold_leases(store: RunStore, run_id: str, repo: str, plan_path: Path | str | None) -> None:
    """This process executes the run, and the run is the active one of its plan on its
    repository; `UsageError` naming the live holder when another process or run has either
    (and then nothing is held)."""
    leases = store.leases()
    held: list[str] = []
    for name in lease_names(run_id, repo, plan_path):
        holder = leases.take(name, run_id)
        if holder is None:
            held.append(name)
            continue
        for taken in held:
            leases.release(taken, run_id)
        where = f"pid {holder.process.pid} on {holder.process.host}"
        if holder.run_id == run_id:
            raise UsageError(
                f"run {run_id} is being executed by another process ({where}): wait for it, "
                f"or stop it with `mergegate cancel {run_id}`"
            )
        raise UsageError(
            f"run {holder.run_id} of this plan is still active on {repo} ({where}): wait for "
            f"it, follow it with `mergegate status {holder.run_id}`, or stop it with "
            f"`mergegate cancel {holder.run_id}`"
        )


def release_leases(store: RunStore, record: EngineRunRecord) -> None:
    leases = store.leases()
    for name in lease_names(record.run_id, record.repo, record.plan_path):
        with contextlib.suppress(Exception):  # a lease left behind is free once we exit
            leases.release(name, record.run_id)
