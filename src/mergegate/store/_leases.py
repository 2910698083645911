"""Leases: which process executes a run now, and which run of a plan holds a repository.

A lease is a row of `mergegate_leases` naming its holder (a run id and the process executing
it, `ProcessIdentity`). It is taken by compare and swap, so of two processes that start at
once exactly one holds it, and it is free again when its holder let it go or stopped running
(a crash, a SIGKILL, a reboot): no pid file, nothing in a folder an agent can write. Leases
live in the configured database (`[engine] database_url`), else in one SQLite file beside the
runs' own (`<state>/db/leases.sqlite`).

    run:<run id>                     the process executing the run (`status`: crashed when none)
    plan:<repository>:<plan path>    the run of that plan that is active on that repository
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from mergegate.processes import ProcessIdentity
from mergegate.store._tables import Tables

__all__ = ["Lease", "Leases", "plan_lease", "run_lease"]

_MAX_TRIES = 3
"""Compare-and-swap rounds before a lease that keeps changing hands counts as held."""


class Lease(BaseModel):
    """Who holds a lease: a run, and the process executing it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    process: ProcessIdentity


def run_lease(run_id: str) -> str:
    return f"run:{run_id}"


def plan_lease(repo: str, plan_path: str) -> str:
    return f"plan:{repo}:{plan_path}"


class Leases:
    """The leases of one database."""

    def __init__(self, db: Tables) -> None:
        self.db = db

    def holder(self, name: str) -> Lease | None:
        """Who holds the lease now: None when nobody does, or its holder stopped running. A
        row that cannot be read is held by nobody it could name: it is taken over."""
        raw = self.db.lease(name)
        found = _parse(raw)
        return found if found is not None and found.process.running() else None

    def take(self, name: str, run_id: str) -> Lease | None:
        """Hold the lease for `run_id` and this process; None when done, else the live
        holder (another process). This process takes over what it holds itself: it executes
        one run at a time (DBOS is a singleton)."""
        mine = Lease(run_id=run_id, process=ProcessIdentity.here())
        wanted = mine.model_dump_json()
        for _ in range(_MAX_TRIES):
            raw = self.db.lease(name)
            found = _parse(raw)
            if found is not None and found.process.running() and found.process != mine.process:
                return found
            if raw == wanted or self.db.take_lease(name, wanted, raw):
                return None
        found = self.holder(name)
        return found or mine

    def release(self, name: str, run_id: str) -> None:
        """Let the lease go if this process holds it for `run_id`."""
        mine = Lease(run_id=run_id, process=ProcessIdentity.here())
        self.db.drop_lease(name, mine.model_dump_json())


def _parse(raw: str | None) -> Lease | None:
    if raw is None:
        return None
    try:
        return Lease.model_validate_json(raw)
    except ValidationError:
        return None
