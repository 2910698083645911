"""What a phase's commits did: where it started, which files it changed, which it renamed.

`mergegate verify` reads this to scan every file a phase changed for placeholder code and to
tell an artifact the phase renamed on purpose from one that is missing. Read-only git
(`log`, `diff`), through `run_git` like every other git command; a failure answers "nothing
known" (None or empty), never an exception: history is evidence, not a requirement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mergegate.git._command import run_git

__all__ = ["PhaseChanges", "first_commit_adding", "phase_changes"]

_MAX_FILES = 20_000


@dataclass(frozen=True)
class PhaseChanges:
    """Files changed between two commits (`base..head`), with renames as git detects them."""

    base: str
    head: str
    changed: tuple[str, ...] = ()
    """Paths that exist at `head` and differ from `base` (added, modified, renamed to)."""
    renames: dict[str, str] = field(default_factory=dict)
    """Old path → new path."""


def first_commit_adding(root: Path, folder: str) -> str | None:
    """The first commit that added a file under `folder` (relative to `root`), or None."""
    result = run_git(
        root, "log", "--reverse", "--diff-filter=A", "--format=%H", "--", folder or "."
    )
    if not result.ok:
        return None
    lines = result.stdout.decode("utf-8", "replace").split()
    return lines[0] if lines else None


def phase_changes(root: Path, base: str, head: str = "HEAD") -> PhaseChanges | None:
    """What changed from `base` to `head` in the repository at `root`; None when git cannot
    say (not a repository, an unknown revision)."""
    resolved = []
    for rev in (base, head):
        result = run_git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
        if not result.ok:
            return None
        resolved.append(result.stdout.decode().strip())
    result = run_git(
        root, "diff", "--name-status", "-M", "-z", "--no-color", resolved[0], resolved[1]
    )
    if not result.ok:
        return None
    fields = [f.decode("utf-8", "surrogateescape") for f in result.stdout.split(b"\0")]
    changed: list[str] = []
    renames: dict[str, str] = {}
    i = 0
    while i < len(fields) and len(changed) < _MAX_FILES:
        status = fields[i]
        if not status:
            i += 1
            continue
        if status[:1] in ("R", "C") and i + 2 < len(fields):
            old, new = fields[i + 1], fields[i + 2]
            if status[:1] == "R":
                renames[old] = new
            changed.append(new)
            i += 3
            continue
        if i + 1 < len(fields) and status[:1] != "D":
            changed.append(fields[i + 1])
        i += 2
    renames.update(_renames_along(root, resolved[0], resolved[1], renames))
    return PhaseChanges(resolved[0], resolved[1], tuple(changed), renames)


def _renames_along(root: Path, base: str, head: str, known: dict[str, str]) -> dict[str, str]:
    """Renames made commit by commit (a file the phase created, then renamed, is only an
    addition in `base..head`), chained to the last name: old → final."""
    result = run_git(
        root,
        "log",
        "--reverse",
        "-M",
        "--diff-filter=R",
        "--name-status",
        "-z",
        "--format=",
        f"{base}..{head}",
    )
    if not result.ok:
        return {}
    fields = [f.decode("utf-8", "surrogateescape") for f in result.stdout.split(b"\0")]
    chain: dict[str, str] = {}
    i = 0
    while i + 2 < len(fields):
        status = fields[i].strip()
        if not status.startswith("R"):
            i += 1
            continue
        old, new = fields[i + 1], fields[i + 2]
        for start, end in list(chain.items()):
            if end == old:
                chain[start] = new
        chain.setdefault(old, new)
        i += 3
    return {old: new for old, new in chain.items() if old not in known}
