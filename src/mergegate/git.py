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
import shutil
import threading
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


# ---------------------------------------------------------------- run engine operations
# Appended for `mergegate run` (issue 12): worktrees, one commit per task, trailers, merges.
# Every operation that changes the world checks for its own mark first, so a step that
# re-runs after a crash finds its work done instead of doing it twice.

__all__ += [
    "GitError",
    "MergeResult",
    "add_worktree",
    "branch_tip",
    "checked_out_branches",
    "commit_with_key",
    "create_branch",
    "find_trailer_commit",
    "merge_no_ff",
    "prune_worktrees",
    "remove_worktree",
    "reset_clean",
    "run_git",
]


class GitError(UsageError):
    """A git command the run engine needs failed (the message holds git's own words)."""


@dataclass(frozen=True)
class MergeResult:
    """A `--no-ff` merge: the merge commit, or the conflict that stopped it."""

    commit: str | None
    """The merge commit (new, or found by its trailer when `already` is True)."""
    already: bool = False
    conflicts: tuple[str, ...] = ()
    """Paths git could not merge; non-empty means nothing was merged."""
    ours: str = ""
    """The integration branch tip the merge was tried on."""
    theirs: str = ""
    """The unit branch tip."""
    base: str = ""
    """Their merge base."""

    @property
    def conflicted(self) -> bool:
        return bool(self.conflicts)


def run_git(cwd: Path, *args: str, timeout: float = 120.0) -> str:
    """Run git in `cwd` through the supervisor; stdout (stripped) or `GitError` with stderr."""
    env = child_environment()
    for name in _GIT_REDIRECTS:
        env.pop(name, None)
    result = run_command(["git", *args], cwd, timeout=timeout, env=env)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git {' '.join(args[:3])} failed in {cwd}: {detail or result.returncode}")
    return result.stdout.decode("utf-8", "replace").strip()


def _try_git(cwd: Path, *args: str) -> tuple[bool, str]:
    try:
        return True, run_git(cwd, *args)
    except GitError as exc:
        return False, str(exc)


_IDENTITIES: dict[Path, tuple[str, ...]] = {}


def _identity(cwd: Path) -> tuple[str, ...]:
    """`-c user.*` flags when the repository has no identity (asked once per work tree)."""
    if cwd not in _IDENTITIES:
        configured, _ = _git(cwd, "config", "user.email")
        _IDENTITIES[cwd] = () if configured else _FALLBACK_IDENTITY
    return _IDENTITIES[cwd]


def branch_tip(repo: Path, branch: str) -> str | None:
    """The commit `branch` points at, or None when there is no such branch."""
    ok, out = _git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}^{{commit}}")
    return out.decode().strip() if ok else None


def create_branch(repo: Path, branch: str, sha: str) -> str:
    """Create `branch` at `sha` unless it exists; return the branch's tip either way."""
    tip = branch_tip(repo, branch)
    if tip is not None:
        return tip
    run_git(repo, "branch", "--no-track", branch, sha)
    return sha


def checked_out_branches(repo: Path) -> dict[str, Path]:
    """Branch name -> the work tree that has it checked out (main tree and linked ones)."""
    out = run_git(repo, "worktree", "list", "--porcelain")
    found: dict[str, Path] = {}
    path: Path | None = None
    for line in out.splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
        elif line.startswith("branch refs/heads/") and path is not None:
            found[line[len("branch refs/heads/") :]] = path
    return found


# `git worktree add` and `prune` race inside one repository (prune removes the admin folder
# of a work tree being added), so this process makes them one at a time.
_WORKTREE_LOCK = threading.Lock()


def add_worktree(repo: Path, path: Path, branch: str, base: str) -> str:
    """A work tree at `path` on `branch` (created at `base` when new); returns its HEAD.

    Idempotent: an existing work tree of that branch is kept as it is; a directory left half
    made by a crash is removed and made again.
    """
    with _WORKTREE_LOCK:
        if checked_out_branches(repo).get(branch) == path.resolve():
            return run_git(path, "rev-parse", "HEAD")
        if path.exists():
            shutil.rmtree(path)
            run_git(repo, "worktree", "prune")
        path.parent.mkdir(parents=True, exist_ok=True)
        if branch_tip(repo, branch) is None:
            run_git(repo, "worktree", "add", "-q", "-b", branch, str(path), base)
        else:
            run_git(repo, "worktree", "add", "-q", str(path), branch)
    return run_git(path, "rev-parse", "HEAD")


def remove_worktree(repo: Path, path: Path) -> None:
    """Remove the work tree at `path` (changes in it are discarded); absent is fine."""
    with _WORKTREE_LOCK:
        if path.exists():
            ok, _ = _try_git(repo, "worktree", "remove", "--force", "--force", str(path))
            if not ok and path.exists():
                shutil.rmtree(path)
        run_git(repo, "worktree", "prune")


def prune_worktrees(repo: Path) -> None:
    """Forget work trees whose directories are gone."""
    with _WORKTREE_LOCK:
        run_git(repo, "worktree", "prune")


def reset_clean(worktree: Path, sha: str) -> None:
    """Put the work tree exactly at `sha`: HEAD, index and files; untracked files removed
    (ignored ones are kept, so build caches survive)."""
    run_git(worktree, "reset", "-q", "--hard", sha)
    run_git(worktree, "clean", "-q", "-f", "-d")


def _head(worktree: Path) -> tuple[str, list[str]]:
    """HEAD's commit id and message lines."""
    out = run_git(worktree, "log", "-1", "--format=%H%x00%B", "HEAD")
    sha, _, body = out.partition("\0")
    return sha, body.splitlines()


def commit_with_key(
    worktree: Path, message: str, key: str, *, squash_onto: str | None = None, amend: bool = False
) -> str | None:
    """Commit every change of the work tree as one commit whose message ends with `key`.

    Idempotent by `key` (a trailer line such as `Mergegate-Task: run/unit/T1`): when HEAD
    already carries it, HEAD is returned and nothing is done. `squash_onto` first folds any
    commits the agent made since that commit into the one new commit; `amend` folds the
    changes into HEAD instead (HEAD's message is kept and `key` added). Returns None when
    there is nothing to commit.
    """
    head, lines = _head(worktree)
    if key in lines:
        return head
    if squash_onto is not None and head != squash_onto:
        run_git(worktree, "reset", "-q", "--soft", squash_onto)
    run_git(worktree, "add", "-A", "--", ".")
    if amend:
        unchanged, _ = _git(worktree, "diff", "--cached", "--quiet")
        if unchanged:
            return None  # an amend would succeed with no change: nothing to fold in
        message = "\n".join(lines).rstrip() + "\n" + key + "\n"
        args = ["commit", "--amend", "--no-verify", "-q", "-m", message]
    else:
        args = ["commit", "--no-verify", "-q", "-m", message.rstrip() + "\n\n" + key + "\n"]
    committed, _ = _try_git(worktree, *_identity(worktree), *args)
    if not committed:
        unchanged, _ = _git(worktree, "diff", "--cached", "--quiet")
        if unchanged:
            return None  # nothing to commit (git refuses an empty commit)
        run_git(worktree, *_identity(worktree), *args)  # fails again, with git's reason
    return run_git(worktree, "rev-parse", "HEAD")


def find_trailer_commit(repo: Path, ref: str, line: str) -> str | None:
    """The newest commit reachable from `ref` whose message has `line` as a whole line."""
    ok, out = _try_git(repo, "log", "--format=%H", "--fixed-strings", f"--grep={line}", ref, "--")
    if not ok:
        return None
    for sha in out.split():
        body = run_git(repo, "log", "-1", "--format=%B", sha)
        if line in body.splitlines():
            return sha
    return None


def merge_no_ff(repo: Path, into: str, branch: str, message: str, key: str) -> MergeResult:
    """Merge `branch` into `into` with a merge commit carrying `key`, exactly once.

    Checks for `key` on `into` first (a merge made before a crash is found, not redone). The
    merge is computed without a checkout (`git merge-tree --write-tree`) and published with a
    compare-and-swap `update-ref`, so no work tree is touched and a racing writer fails loudly.
    A conflict merges nothing and returns the conflicting paths.
    """
    done = find_trailer_commit(repo, f"refs/heads/{into}", key)
    if done is not None:
        return MergeResult(done, already=True)
    ours = run_git(repo, "rev-parse", f"refs/heads/{into}")
    theirs = run_git(repo, "rev-parse", f"refs/heads/{branch}")
    base = run_git(repo, "merge-base", ours, theirs)
    env = child_environment()
    for name in _GIT_REDIRECTS:
        env.pop(name, None)
    result = run_command(
        ["git", "merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs],
        repo,
        timeout=300.0,
        env=env,
    )
    lines = result.stdout.decode("utf-8", "replace").splitlines()
    if result.returncode == 1:
        return MergeResult(
            None, conflicts=tuple(p for p in lines[1:] if p), ours=ours, theirs=theirs, base=base
        )
    if not result.ok or not lines:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git merge-tree failed in {repo}: {detail}")
    body = message.rstrip() + "\n\n" + key + "\n"
    commit = run_git(
        repo, *_identity(repo), "commit-tree", lines[0], "-p", ours, "-p", theirs, "-m", body
    )
    run_git(repo, "update-ref", "-m", f"mergegate: {key}", f"refs/heads/{into}", commit, ours)
    return MergeResult(commit, ours=ours, theirs=theirs, base=base)
