"""Run records: one folder per run under `<state>/runs/<run-id>/`, our own typed files.

DBOS's tables are its business; `runs` and `status` read these files, which the engine keeps
up to date (atomically) as a projection of the durable workflow state. `run.json` is the run's
card: what was asked (plan, integration branch, agents, options) and where it stands.
"""

from __future__ import annotations

import os
import secrets
import time
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mergegate.atomic_files import read_json_validated, write_json_atomic
from mergegate.errors import UsageError

__all__ = ["RunRecord", "RunState", "RunStore", "new_run_id"]

_RUN_FILE = "run.json"
_DATABASE = "dbos.sqlite"


class RunState(StrEnum):
    """Where a run stands (`runs` and `status` show these)."""

    RUNNING = "running"
    """Started and not finished: in progress, or stopped by a crash (`resume` continues it)."""
    COMPLETED = "completed"
    """Every unit merged."""
    ESCALATED = "escalated"
    """Stopped for a person: a cap, a stall, a conflict or a budget (exit 5)."""
    WAITING_FOR_HUMAN = "waiting_for_human"
    """A checkpoint task waits for `resume --answer`."""
    FAILED = "failed"
    """An agent or infrastructure failure, or an undecidable review stopped it (exit 4/3)."""
    CANCELLED = "cancelled"


class RunRecord(BaseModel):
    """The card of one run, kept in `run.json`."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    status: RunState = RunState.RUNNING
    started: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    started_epoch: float = Field(default_factory=time.time)
    finished: str | None = None
    plan: str = ""
    """The plan's title, or the file it came from."""
    plan_path: str | None = None
    """The plan as it was given (a file or a `.planning` directory), resolved."""
    plan_root: str | None = None
    """The directory the plan's source paths are relative to (GSD write-back goes there)."""
    repo: str
    into: str
    """The integration branch units merge into."""
    base_sha: str
    generation: int = 1
    """Incremented each time `resume --answer` continues a run that waited for a person."""
    exit_code: int | None = None
    message: str = ""
    agents: dict[str, Any] = Field(default_factory=dict)
    """How to rebuild the implementer, reviewer and verifier on `resume` (names, commands)."""
    options: dict[str, Any] = Field(default_factory=dict)
    database: str | None = None
    """The shared database (`[engine] database_url`, redacted) that holds the run's durable
    state; None: the run's own SQLite file under its folder."""
    fleet: bool = False
    """Queued for a fleet of workers (`run --queue`), not executed by the process that made it."""
    remote: str | None = None
    """The git remote a fleet across hosts shares (`run --queue --remote`): workers fetch
    from it and push unit branches and merges to it; None: every worker reaches `repo`."""

    def summary(self) -> dict[str, object]:
        """The `runs --format json` entry."""
        return {
            "run_id": self.run_id,
            "status": self.status.value,
            "started": self.started,
            "plan": self.plan,
        }


def new_run_id() -> str:
    """A run id that sorts by start time and is a valid git branch component."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


class RunStore:
    """The folder of all runs: `<state>/runs`."""

    def __init__(self, state_dir: Path) -> None:
        self.root = state_dir / "runs"

    def run_dir(self, run_id: str) -> Path:
        if not run_id or "/" in run_id or run_id.startswith(".") or os.sep in run_id:
            raise UsageError(f"not a run id: {run_id!r}")
        return self.root / run_id

    def database_path(self, run_id: str) -> Path:
        """The run's own SQLite system database (one per run: recovering one run never
        starts another, and parallel runs never share a lock)."""
        return self.run_dir(run_id) / _DATABASE

    def create(self, record: RunRecord) -> Path:
        """Make the run's folder and write its card; an existing run is a usage error."""
        path = self.run_dir(record.run_id)
        try:
            path.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise UsageError(f"run {record.run_id} already exists: {path}") from None
        self.save(record)
        return path

    def card_path(self, run_id: str) -> Path:
        """The run's card, `run.json`."""
        return self.run_dir(run_id) / _RUN_FILE

    def save(self, record: RunRecord) -> None:
        write_json_atomic(self.run_dir(record.run_id) / _RUN_FILE, record)

    def load(self, run_id: str) -> RunRecord:
        """The run's card; `UsageError` (exit 2) naming the run when there is none."""
        path = self.run_dir(run_id) / _RUN_FILE
        if not path.is_file():
            raise UsageError(f"no run {run_id!r} under {self.root}")
        return read_json_validated(path, RunRecord)

    def list(self) -> list[RunRecord]:
        """Every run, oldest first; unreadable folders are skipped."""
        if not self.root.is_dir():
            return []
        found = []
        for path in sorted(self.root.iterdir()):
            if (path / _RUN_FILE).is_file():
                try:
                    found.append(read_json_validated(path / _RUN_FILE, RunRecord))
                except UsageError:
                    continue
        return sorted(found, key=lambda r: (r.started_epoch, r.run_id))
