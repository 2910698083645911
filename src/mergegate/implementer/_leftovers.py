"""Agents a killed predecessor left running: found by the process records in a step's attempt
directories, and killed before the step goes on (so a lost run cannot keep editing the tree)."""

from __future__ import annotations

from pathlib import Path

from mergegate.atomic_files import read_json_validated
from mergegate.errors import UsageError
from mergegate.processes import ProcessRecord, kill_recorded_group

__all__ = ["kill_leftovers"]


def kill_leftovers(root: Path, pattern: str) -> list[tuple[Path, int]]:
    """Kill the process group of every `process.json` under `root` matching `pattern` that is
    still running; `(attempt directory, pid)` of each one killed. Safe against recycled pids
    (`kill_recorded_group` checks the start time); unreadable records are skipped."""
    killed = []
    for path in sorted(root.glob(pattern)):
        try:
            record = read_json_validated(path, ProcessRecord)
        except UsageError:
            continue
        if kill_recorded_group(record):
            killed.append((path.parent, record.pid))
    return killed
