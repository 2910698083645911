"""What verification needs from git: the tree's identity and the phase's diff.

The only module of `mergegate.verify` that uses the git module. A tree that is not a git work
tree can still be verified: it then has no identity (answers given later cannot be proven to
be about the same tree) and no diff for the verifier.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from mergegate.git import GitRepository, snapshot_worktree

__all__ = ["TreeState", "phase_diff", "tree_state"]


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
