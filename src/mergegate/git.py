"""Prove a read-only run stayed read-only: snapshot HEAD, index and working tree, then compare.

A snapshot holds HEAD, a hash of the index (`git ls-files --stage -z`, which reads the index
without writing it, unlike `git write-tree`), and `git status --porcelain=v1 -z
--untracked-files=all` with a content hash of every file it lists. Any difference after a
reviewer run means the reviewer changed the work tree, and the attempt is void.

Git runs through `mergegate.processes.run_command`, with `--no-optional-locks` (so
`status` does not refresh the index) and without inherited `GIT_DIR`-style variables (a git hook
environment would otherwise point it at another repository).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.processes import child_environment, run_command

__all__ = ["GitRepository", "WorktreeSnapshot", "compare_snapshots", "snapshot_worktree"]

_GIT_REDIRECTS = (
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
)
_HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class WorktreeSnapshot:
    """The state of a git work tree at one moment."""

    toplevel: Path
    head: str
    """The commit id, or `(none)` in a repository without commits."""
    index_hash: str
    status: tuple[str, ...]
    """`git status` entries (`XY path`), sorted."""
    file_hashes: dict[str, str] = field(default_factory=dict)
    """sha256 of each path `status` lists (`-` for a deleted or unreadable one)."""


def _git(cwd: Path, *args: str) -> tuple[bool, bytes]:
    env = child_environment()
    for name in _GIT_REDIRECTS:
        env.pop(name, None)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    result = run_command(["git", "--no-optional-locks", *args], cwd, timeout=60.0, env=env)
    return result.ok, result.stdout


def _parse_status(raw: bytes) -> list[tuple[str, str]]:
    """(XY, path) pairs from `status --porcelain=v1 -z`; a rename's source path is kept too."""
    entries: list[tuple[str, str]] = []
    fields = raw.split(b"\0")
    i = 0
    while i < len(fields):
        item = fields[i]
        i += 1
        if len(item) < 4:
            continue
        code = item[:2].decode("ascii", "replace")
        entries.append((code, item[3:].decode("utf-8", "surrogateescape")))
        if code[0] in "RC" and i < len(fields):  # the next field is the rename's source
            entries.append((code, fields[i].decode("utf-8", "surrogateescape")))
            i += 1
    return entries


def _hash_path(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + hashlib.sha256(str(path.readlink()).encode()).hexdigest()
        if path.is_dir():
            return "dir"
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return "-"


def snapshot_worktree(cwd: Path, exclude: Path | None = None) -> WorktreeSnapshot | None:
    """Snapshot the work tree holding `cwd`; None when `cwd` is not inside a git work tree.

    Paths under `exclude` (the attempt directory, when it lives inside the tree) are ignored.
    """
    ok, top = _git(cwd, "rev-parse", "--show-toplevel")
    if not ok:
        return None
    toplevel = Path(top.decode().strip())
    ok, head = _git(cwd, "rev-parse", "--verify", "-q", "HEAD")
    _, index = _git(toplevel, "ls-files", "--stage", "-z")
    _, status_raw = _git(toplevel, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    skip = _relative_prefix(toplevel, exclude)
    entries = [
        (code, p) for code, p in _parse_status(status_raw) if not (skip and p.startswith(skip))
    ]
    return WorktreeSnapshot(
        toplevel=toplevel,
        head=head.decode().strip() if ok else "(none)",
        index_hash=hashlib.sha256(index).hexdigest(),
        status=tuple(sorted(f"{code} {p}" for code, p in entries)),
        file_hashes={p: _hash_path(toplevel / p) for _, p in entries},
    )


def _relative_prefix(toplevel: Path, exclude: Path | None) -> str | None:
    if exclude is None:
        return None
    try:
        rel = exclude.resolve().relative_to(toplevel.resolve())
    except ValueError:
        return None
    return rel.as_posix().rstrip("/") + "/"


def compare_snapshots(before: WorktreeSnapshot, after: WorktreeSnapshot) -> list[str]:
    """Human-readable differences; empty when the work tree is unchanged."""
    changes: list[str] = []
    if before.head != after.head:
        changes.append(f"HEAD moved: {before.head[:12]} -> {after.head[:12]}")
    if before.index_hash != after.index_hash:
        changes.append("the index changed")
    if before.status != after.status:
        added = sorted(set(after.status) - set(before.status))
        removed = sorted(set(before.status) - set(after.status))
        changes.append(f"git status changed: +{added[:5]} -{removed[:5]}")
    for path in sorted(set(before.file_hashes) & set(after.file_hashes)):
        if before.file_hashes[path] != after.file_hashes[path]:
            changes.append(f"content changed: {path}")
    return changes


_MAX_FILE_BYTES = 2 << 20
# Used only when the repository has no identity configured, so a fix commit never fails on it.
_FALLBACK_IDENTITY = ("-c", "user.name=mergegate", "-c", "user.email=mergegate@localhost")


class GitRepository:
    """The git operations of the review loop, on one work tree. Git errors are `UsageError`s
    (a bad ref or a non-repository is the user's input), never silent."""

    def __init__(self, path: Path, *, exclude: Sequence[Path] = ()) -> None:
        ok, top = _git(path, "rev-parse", "--show-toplevel")
        if not ok:
            raise UsageError(f"not a git work tree: {path}")
        self.root = Path(top.decode().strip())
        self._exclude = [p for p in (_relative_prefix(self.root, e) for e in exclude) if p]

    def _run(self, *args: str) -> bytes:
        ok, out = _git(self.root, *args)
        if not ok:
            raise UsageError(f"git {' '.join(args[:3])} failed in {self.root}")
        return out

    def resolve(self, ref: str) -> str:
        """The commit id `ref` names."""
        ok, out = _git(self.root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if not ok:
            raise UsageError(f"unknown git revision: {ref!r}")
        return out.decode().strip()

    def diff(self, base: str, head: str) -> str:
        out = self._run("diff", "--no-color", "--no-ext-diff", "--no-renames", base, head)
        return out.decode("utf-8", "replace")

    def changed_files(self, base: str, head: str) -> list[str]:
        out = self._run("diff", "--name-only", "--no-renames", "-z", base, head)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def read_file(self, rev: str, path: str) -> str | None:
        """The file at `rev`, or None when it does not exist there (or is too large)."""
        ok, out = _git(self.root, "cat-file", "blob", f"{rev}:{path}")
        if not ok or len(out) > _MAX_FILE_BYTES:
            return None
        return out.decode("utf-8", "replace")

    def commit_all(self, message: str) -> str | None:
        """Commit every change in the work tree (excluded paths aside) as one commit.

        Returns the new commit id, or None when there was nothing to commit.
        """
        pathspec = [".", *(f":(exclude){p}" for p in self._exclude)]
        self._run("add", "-A", "--", *pathspec)
        ok, _ = _git(self.root, "diff", "--cached", "--quiet")
        if ok:
            return None
        configured, _ = _git(self.root, "config", "user.email")
        identity = () if configured else _FALLBACK_IDENTITY
        self._run(*identity, "commit", "--no-verify", "-q", "-m", message)
        return self.resolve("HEAD")
