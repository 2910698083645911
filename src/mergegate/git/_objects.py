"""Where a repository's objects are, for the sandbox of an agent working in a repository that
borrows them (a workspace, a throwaway checkout: `objects/info/alternates`).

Git in such a repository reads the borrowed object directories at their own paths, so an
agent's sandbox binds them read-only there. Which directories: only ones mergegate can vouch
for. `object_dirs` asks git about a repository mergegate trusts (the user's: its own objects
directory and what its alternates name, followed a few levels); `workspace_objects` is the
objects directory of a repository mergegate made (`<work tree>/.git/objects`), refused when
anything on the way is a link out of the work tree. Never the alternates file of a workspace
an agent could write: it could name any directory of the user's, which would then be bound.
"""

from __future__ import annotations

import os
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._checkout import _source_paths

__all__ = ["object_dirs", "workspace_objects"]

_MAX_DEPTH = 4
_MAX_DIRS = 16
_MAX_ALTERNATES_BYTES = 64 << 10


def _alternates(objects: Path) -> list[Path]:
    """The directories `objects/info/alternates` names (relative ones from `objects`)."""
    path = objects / "info" / "alternates"
    try:
        with path.open("rb") as handle:
            raw = handle.read(_MAX_ALTERNATES_BYTES)
    except OSError:
        return []
    found = []
    for line in raw.decode("utf-8", "replace").splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            found.append(Path(os.path.normpath(objects / text)))
    return found


def object_dirs(repo: Path) -> tuple[Path, ...]:
    """The object directories git reads for the trusted repository `repo`: its own, then the
    ones it borrows, in order (existing directories only; at most 16, 4 levels deep); none
    when `repo` is not in a git repository."""
    try:
        first = Path(_source_paths(repo)[0])
    except UsageError:
        return ()
    found: list[Path] = []
    level = [first]
    for _ in range(_MAX_DEPTH):
        following: list[Path] = []
        for path in level:
            if path in found or not path.is_dir() or len(found) >= _MAX_DIRS:
                continue
            found.append(path)
            following += _alternates(path)
        level = following
    return tuple(found)


def workspace_objects(work_tree: Path) -> Path | None:
    """`<work_tree>/.git/objects` of a repository mergegate made, or None when it is not a
    directory inside the work tree (a link out of it, a gitfile, missing)."""
    top = Path(os.path.realpath(work_tree))
    path = top / ".git" / "objects"
    if os.path.islink(top / ".git") or os.path.islink(path) or not path.is_dir():
        return None
    if Path(os.path.realpath(path)) != path:
        return None
    return path
