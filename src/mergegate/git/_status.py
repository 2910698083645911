"""The user's work tree as a run starts from it: what is not committed.

A run starts from a commit (HEAD), so changes in the work tree are not part of it; `run`
refuses a dirty tree and lists these paths, unless `--allow-dirty`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mergegate.git._command import run_git
from mergegate.git._workspaces import GitError

__all__ = ["uncommitted_paths"]

_MAX_PATHS = 10_000
"""Paths read from `git status` at most (the list is for a person; the count is what refuses)."""


def uncommitted_paths(
    repo: Path, exclude: Sequence[Path] = (), *, untracked: bool = True
) -> list[str]:
    """Paths (relative to the top of the work tree) with changes not committed: staged,
    unstaged or (with `untracked`) untracked (ignored files never), except those at or under
    a path of `exclude` (the state directory, the plan). `GitError` when git cannot say."""
    which = "--untracked-files=all" if untracked else "--untracked-files=no"
    result = run_git(repo, "status", "--porcelain=v1", "-z", which)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git status failed in {repo}: {detail or result.returncode}")
    prefixes = [p for p in (_excluded(repo, path) for path in exclude) if p is not None]
    paths: list[str] = []
    entries = result.stdout.split(b"\0")
    index = 0
    while index < len(entries) and len(paths) < _MAX_PATHS:
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:].decode("utf-8", "replace")
        if status[:1] in (b"R", b"C"):
            index += 1  # the source path of a rename or copy follows: the new one counts
        if not any(_under(path, p) for p in prefixes):
            paths.append(path)
    return paths


def _excluded(repo: Path, exclude: Path) -> str | None:
    """`exclude` as a path prefix relative to the top of the work tree, if inside it (a
    file's own path matches it exactly)."""
    top = run_git(repo, "rev-parse", "--show-toplevel")
    if not top.ok:
        return None
    root = Path(top.stdout.decode("utf-8", "replace").strip()).resolve()
    try:
        relative = exclude.resolve().relative_to(root)
    except ValueError:
        return None
    return f"{relative.as_posix()}/" if exclude.is_dir() else relative.as_posix()


def _under(path: str, prefix: str) -> bool:
    """`path` is the excluded file, the excluded directory, or inside it."""
    return path == prefix.rstrip("/") or (prefix.endswith("/") and path.startswith(prefix))
