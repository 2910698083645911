"""Reading a run for `stats` and `report`: its events from its database, its `events.jsonl`,
or a review run's records."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from mergegate.config import Config, state_dir
from mergegate.errors import UsageError
from mergegate.events import EVENTS_FILE, EventLogError, EventStream, read_events
from mergegate.ids import is_component
from mergegate.report import ReportLog, ReportRecord
from mergegate.review.stream import is_review_run, review_events
from mergegate.store import find_runs, resolve_run

__all__ = ["all_runs", "load_records", "load_run"]


def all_runs(config: Config, since: datetime | None) -> list[str | Path]:
    """What `stats` reads without RUN: every run folder here with an event stream, and every
    run the configured database holds that has none here (made on another host)."""
    from mergegate.engine import database_runs, database_url_of  # noqa: PLC0415 - as run.py

    state = state_dir(config)
    found: list[str | Path] = list(find_runs(state, since=since))
    here = {p.name for p in found if isinstance(p, Path)}
    found += [
        run_id
        for run_id in database_runs(state, database_url_of(config), since=since)
        if run_id not in here
    ]
    return found


def load_run(run: str | Path, config: Config) -> tuple[Path, EventStream]:
    """The run's directory and its event stream. A run id that a database holds (the
    configured one, or the run's own SQLite file) is read from it: every worker's events,
    with nothing of the run on this host but the database URL. Otherwise a directory with
    `events.jsonl` is read as is, and a `mergegate review` run without one from its records.
    `UsageError` (exit 2) when it is none of these."""
    if isinstance(run, str) and not Path(run).expanduser().is_dir():
        found = _from_database(run, config)
        if found is not None:
            return found
    run_dir = resolve_run(str(run), state_dir(config)) if isinstance(run, str) else run
    if (run_dir / EVENTS_FILE).is_file():
        return run_dir, read_events(run_dir, run_id=run_dir.name)
    if is_review_run(run_dir):
        events = review_events(run_dir)
        return run_dir, EventStream(tuple(events), source=run_dir / "summary.json")
    raise UsageError(f"{run_dir} has no {EVENTS_FILE} and is not a review run")


def _from_database(run: str, config: Config) -> tuple[Path, EventStream] | None:
    """The run from the database that holds it; None when none does (a review run, a run
    made before runs had databases)."""
    from mergegate.engine import database_url_of, recorded_events  # noqa: PLC0415 - as run.py

    if not is_component(run):
        return None
    try:
        return recorded_events(state_dir(config), run, database_url_of(config))
    except EventLogError:  # the run's stream cannot be read: say so
        raise
    except UsageError:  # no database holds the run
        return None


def load_records(run: str | Path, config: Config) -> tuple[list[ReportRecord], list[ReportLog]]:
    """The run's records for people (reviews, summaries) and its agents' logs from the
    database that holds it; none for a run no database holds (a review run, a directory, an
    older run)."""
    from mergegate.engine import (  # noqa: PLC0415 - as run.py
        database_url_of,
        recorded_logs,
        recorded_records,
    )

    if not isinstance(run, str) or not is_component(run):
        return [], []
    state, url = state_dir(config), database_url_of(config)
    try:
        return recorded_records(state, run, url), recorded_logs(state, run, url)
    except UsageError:  # no database holds the run
        return [], []
