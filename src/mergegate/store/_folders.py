"""The runs' folders on disk: one found by its id or its path, or every run under the state
directory's `runs/` that has an event stream (what `mergegate stats` and `report` read; the
folders `RunStore` makes). A `mergegate review` run's folder, under `reviews/`, is found too."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from mergegate.config import StateLayout
from mergegate.errors import UsageError
from mergegate.events import EVENTS_FILE, MAX_LINE_BYTES
from mergegate.ids import is_component

__all__ = ["find_runs", "resolve_run", "run_started"]


def resolve_run(run: str, state_dir: Path) -> Path:
    """The directory of `run`: a directory path as given, else `<state>/runs/<run>`, else
    `<state>/reviews/<run>` (a `mergegate review` run). `UsageError` (exit 2) naming where it
    looked when none exists."""
    given = Path(run).expanduser()
    if given.is_dir():
        return given
    if not is_component(run):
        raise UsageError(f"no run directory {run!r}")
    layout = StateLayout(state_dir)
    for folder in (layout.runs, layout.reviews):
        candidate = folder / run
        if candidate.is_dir():
            return candidate
    raise UsageError(
        f"no run {run!r}: not a directory, and not under {layout.runs} or {layout.reviews}"
    )


def find_runs(state_dir: Path, *, since: datetime | None = None) -> list[Path]:
    """Every run directory under `<state>/runs/` that has an event stream, oldest first;
    with `since` (timezone-aware), only runs that started at or after it."""
    root = StateLayout(state_dir).runs
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.iterdir()):
        events = path / EVENTS_FILE
        if not events.is_file():
            continue
        if since is not None and run_started(path) < since:
            continue
        found.append(path)
    return found


def run_started(run_dir: Path) -> datetime:
    """When a run started: the time of the first event of its stream (its file's modification
    time when that line cannot be read). Always timezone-aware."""
    path = run_dir / EVENTS_FILE
    try:
        with path.open("rb") as handle:
            first = json.loads(handle.readline(MAX_LINE_BYTES))
        return _aware(datetime.fromisoformat(first["at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return datetime.fromtimestamp(path.stat().st_mtime).astimezone()


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)
