"""What verification needs from git: the tree's identity and the phase's diff.

The only module of `mergegate.verify` that uses the git module. A tree that is not a git work
tree can still be verified: it then has no identity (answers given later cannot be proven to
be about the same tree) and no diff for the verifier.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git import (
    GitRepository,
    PhaseChanges,
    first_commit_adding,
    phase_changes,
    repository_root,
    snapshot_worktree,
)

__all__ = ["TreeState", "phase_base", "phase_diff", "phase_history", "tree_state"]


@dataclass(frozen=True)
class TreeState:
    head: str | None
    fingerprint: str | None
    """sha256 over HEAD and the content of every changed or untracked file, paths under the
    excluded prefixes aside (mergegate's own reports and state)."""


def tree_state(root: Path, exclude: tuple[str, ...] = ()) -> TreeState:
    snapshot = snapshot_worktree(root)
    if snapshot is None:
        return TreeState(None, None)
    digest = hashlib.sha256(snapshot.head.encode())
    for path in sorted(snapshot.file_hashes):
        if any(path == e or path.startswith(e.rstrip("/") + "/") for e in exclude):
            continue
        digest.update(f"\0{path}\0{snapshot.file_hashes[path]}".encode())
    return TreeState(snapshot.head, digest.hexdigest()[:20])


def phase_diff(root: Path, base: str | None) -> str | None:
    """The phase's committed change, `BASE..HEAD`, or None without a base.

    Raises `UsageError` (exit 2) when `root` is not a git work tree or `base` is unknown.
    """
    if base is None:
        return None
    repo = GitRepository(root)
    return repo.diff(repo.resolve(base), repo.resolve("HEAD"))


def phase_base(root: Path, base: str | None, phase_dir: Path | None) -> tuple[str | None, str]:
    """The revision the phase started from, and how it was found: `--base` when given; else,
    for a plan whose phase directory is in the repository, the first commit that added a file
    there (plans are written before the code they plan); else None."""
    if base is not None:
        return base, "--base"
    if phase_dir is None:
        return None, ""
    try:
        top = repository_root(root)
    except UsageError:
        return None, ""
    try:
        folder = phase_dir.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return None, ""
    found = first_commit_adding(top, folder)
    return (found, f"the first commit adding {folder}/") if found else (None, "")


def phase_history(root: Path, base: str | None) -> PhaseChanges | None:
    """What the phase changed from `base` to HEAD (None without a base or a git history)."""
    if base is None:
        return None
    return phase_changes(root, base)
