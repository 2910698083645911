"""Reading a run for `stats` and `report`: its `events.jsonl`, or a review run's records."""

from __future__ import annotations

from pathlib import Path

from mergegate.config import Config, state_dir
from mergegate.errors import UsageError
from mergegate.events import EVENTS_FILE, EventStream, read_events
from mergegate.report import resolve_run
from mergegate.review.stream import is_review_run, review_events

__all__ = ["load_run"]


def load_run(run: str | Path, config: Config) -> tuple[Path, EventStream]:
    """The run's directory and its event stream. A directory with `events.jsonl` is read as
    is; a `mergegate review` run without one is read from its records. `UsageError` (exit 2)
    when it is neither."""
    run_dir = resolve_run(str(run), state_dir(config)) if isinstance(run, str) else run
    if (run_dir / EVENTS_FILE).is_file():
        return run_dir, read_events(run_dir, run_id=run_dir.name)
    if is_review_run(run_dir):
        events = review_events(run_dir)
        return run_dir, EventStream(tuple(events), source=run_dir / "summary.json")
    raise UsageError(f"{run_dir} has no {EVENTS_FILE} and is not a review run")
