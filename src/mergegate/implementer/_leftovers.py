"""Agents a killed predecessor left running: found by the process records of a step's attempt
directories, and killed before the step goes on (so a lost run cannot keep editing the tree)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mergegate.atomic_files import read_json_validated
from mergegate.errors import UsageError
from mergegate.processes import ProcessRecord, installed_ledger, kill_recorded_group

__all__ = ["kill_leftovers"]


def _recorded(root: Path, pattern: str) -> list[tuple[Path, ProcessRecord]]:
    """`(attempt directory, record)` of each process recorded under `root` whose
    `<attempt directory>/process.json` matches `pattern`: from the installed process ledger
    (a run's database) when there is one, never from a file an agent could have written;
    else (the library used outside a run) from the `process.json` files themselves."""
    ledger = installed_ledger()
    if ledger is None:
        found = []
        for path in sorted(root.glob(pattern)):
            try:
                found.append((path.parent, read_json_validated(path, ProcessRecord)))
            except UsageError:
                continue
        return found
    wanted = PurePosixPath(pattern)
    matched = []
    for folder, record in ledger.recorded(root):
        try:
            relative = PurePosixPath((folder / "process.json").relative_to(root).as_posix())
        except ValueError:
            continue
        if len(relative.parts) == len(wanted.parts) and relative.match(pattern):
            matched.append((folder, record))
    return sorted(matched, key=lambda found: str(found[0]))


def kill_leftovers(root: Path, pattern: str) -> list[tuple[Path, int]]:
    """Kill the process group of every process recorded under `root` (its attempt folder's
    `process.json` matching `pattern`) that is still running; `(attempt directory, pid)` of
    each one killed. `kill_recorded_group` checks each is still the group the supervisor
    started (start time, namespace, the tree's tag), so a record naming any other process
    kills nothing."""
    killed = []
    for folder, record in _recorded(root, pattern):
        if kill_recorded_group(record):
            killed.append((folder, record.pid))
    return killed
