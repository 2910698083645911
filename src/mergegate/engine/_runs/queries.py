"""What a command reads of recorded runs: their agents, report, list and the latest one."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mergegate.config import StateLayout
from mergegate.engine._context.attempt_rows import COPIES_DIR, report_logs
from mergegate.engine._context.journal import report_records, run_events
from mergegate.engine._context.run_agents import RunAgents
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._records.run_report import RunReport
from mergegate.engine._records.run_status import shown_status
from mergegate.engine._records.summary import (
    build_report,
)
from mergegate.errors import UsageError
from mergegate.events import EventStream
from mergegate.report import ReportLog, ReportRecord
from mergegate.store import (
    RunStore,
)

__all__ = [
    "database_runs",
    "latest_run",
    "list_runs",
    "recorded_agents",
    "recorded_card",
    "recorded_events",
    "recorded_logs",
    "recorded_records",
    "run_report",
]


def recorded_agents(
    state_dir: Path, run_id: str, database_url: str | None = None
) -> tuple[RunAgents, Path]:
    """The agents a run was made with (what `resume` rebuilds) and its repository."""
    record = RunStore(state_dir, database_url).load(run_id, EngineRunRecord)
    return record.agents, Path(record.repo)


def recorded_card(state_dir: Path, run_id: str, database_url: str | None = None) -> EngineRunRecord:
    """The run's card from the database that holds it; `UsageError` (exit 2) when none does."""
    return RunStore(state_dir, database_url).load(run_id, EngineRunRecord)


def database_runs(
    state_dir: Path, database_url: str | None, *, since: datetime | None = None
) -> list[str]:
    """The ids of the runs the configured database holds (made on any host, whether or not
    they have a folder here), oldest first; with `since` (timezone-aware), those started at
    or after it. None without a configured database (each run's own file is found through
    its folder)."""
    if not database_url:
        return []
    found = RunStore(state_dir, database_url).list(EngineRunRecord)
    return [
        r.run_id
        for r in found
        if since is None or datetime.fromtimestamp(r.started_epoch, UTC) >= since
    ]


def recorded_events(
    state_dir: Path, run_id: str, database_url: str | None = None
) -> tuple[Path, EventStream]:
    """The run's folder here and its event stream, from the database that holds the run
    (every worker's events, wherever it ran; `events.jsonl` only for a run whose events are
    not rows). `UsageError` (exit 2) when no database holds the run; `EventLogError` (exit 2)
    when its stream cannot be read."""
    store = RunStore(state_dir, database_url)
    rows = store.rows(run_id)
    run_dir = store.run_dir(run_id)
    return run_dir, run_events(run_dir, rows)


def recorded_records(
    state_dir: Path, run_id: str, database_url: str | None = None
) -> list[ReportRecord]:
    """The run's records for people (task reviews, unit and phase summaries) from the
    database that holds the run, whichever host wrote them; `UsageError` (exit 2) when no
    database holds the run."""
    return report_records(RunStore(state_dir, database_url).rows(run_id))


def recorded_logs(state_dir: Path, run_id: str, database_url: str | None = None) -> list[ReportLog]:
    """The run's agent logs as its attempt rows name them (each on the host that ran it):
    those of other hosts copied into the run's folder here from their shipped copies, or
    their end when none was shipped; `UsageError` (exit 2) when no database holds the run."""
    store = RunStore(state_dir, database_url)
    return report_logs(store.rows(run_id), store.run_dir(run_id) / COPIES_DIR)


def run_report(state_dir: Path, run_id: str, database_url: str | None = None) -> RunReport:
    """The run as one object, from its database (see `build_report`)."""
    return build_report(RunStore(state_dir, database_url), run_id)


def list_runs(state_dir: Path, database_url: str | None = None) -> list[dict[str, object]]:
    """Every run with a folder here and a record in a database, oldest first (a run recorded
    as running that no live process executes is `crashed`)."""
    store = RunStore(state_dir, database_url)
    return [{**r.summary(), "status": shown_status(store, r)} for r in store.list(EngineRunRecord)]


def latest_run(state_dir: Path, database_url: str | None = None) -> str:
    """The id of the run started last here (with a folder in this state directory), else
    the one started last in the configured database (a host with only its URL); `UsageError`
    when there is none."""
    store = RunStore(state_dir, database_url)
    everywhere = store.list(EngineRunRecord)
    found = [r for r in everywhere if store.run_dir(r.run_id).is_dir()] or everywhere
    if not found:
        runs = StateLayout(state_dir).runs
        raise UsageError(f"no runs under {runs}: start one with mergegate run PLAN")
    return found[-1].run_id
