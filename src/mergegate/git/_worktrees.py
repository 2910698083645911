"""The run engine's git: branches, work trees, one keyed commit per step, exactly-once merges.

Every command goes through `mergegate.git._command.run_git` (no hook, no configured program
ever runs). Every operation that changes the world looks for its own mark first (a branch, a
work tree, a trailer line such as `Mergegate-Task: <run>/<unit>/<task>`), so a step that runs
again after a crash finds its work done instead of doing it twice.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._command import run_git

__all__ = [
    "GitError",
    "MergeResult",
    "add_worktree",
    "advance_branch",
    "branch_tip",
    "checked_out_branches",
    "commit_with_key",
    "create_branch",
    "find_trailer_commit",
    "head_commit",
    "merge_no_ff",
    "prune_worktrees",
    "remove_worktree",
    "repository_root",
    "reset_clean",
    "valid_branch_name",
]

# Used only when the repository has no identity configured, so a commit never fails on it.
_FALLBACK_IDENTITY = ("-c", "user.name=mergegate", "-c", "user.email=mergegate@localhost")


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


def _must(cwd: Path, *args: str, timeout: float = 120.0) -> str:
    """stdout of `git ARGS` (stripped), or `GitError` with git's last words."""
    result = run_git(cwd, *args, timeout=timeout)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git {' '.join(args[:3])} failed in {cwd}: {detail or result.returncode}")
    return result.stdout.decode("utf-8", "replace").strip()


def _ok(cwd: Path, *args: str) -> tuple[bool, str]:
    result = run_git(cwd, *args)
    return result.ok, result.stdout.decode("utf-8", "replace").strip()


_IDENTITIES: dict[Path, tuple[str, ...]] = {}


def _identity(cwd: Path) -> tuple[str, ...]:
    """`-c user.*` flags when the repository has no identity (asked once per work tree)."""
    if cwd not in _IDENTITIES:
        configured, _ = _ok(cwd, "config", "user.email")
        _IDENTITIES[cwd] = () if configured else _FALLBACK_IDENTITY
    return _IDENTITIES[cwd]


# ---------------------------------------------------------------- repository and branches


def repository_root(path: Path) -> Path:
    """The top of the work tree holding `path`; `UsageError` when it is not in one."""
    ok, out = _ok(path, "rev-parse", "--show-toplevel")
    if not ok or not out:
        raise UsageError(f"not a git repository: {path}")
    return Path(out)


def head_commit(repo: Path) -> str | None:
    """The commit HEAD points at, or None in a repository without commits."""
    ok, out = _ok(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return out if ok else None


def valid_branch_name(repo: Path, name: str) -> bool:
    """Whether `name` is a valid branch name (`git check-ref-format --branch`)."""
    ok, _ = _ok(repo, "check-ref-format", "--branch", name)
    return ok


def branch_tip(repo: Path, branch: str) -> str | None:
    """The commit `branch` points at, or None when there is no such branch."""
    ok, out = _ok(repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}^{{commit}}")
    return out if ok else None


def create_branch(repo: Path, branch: str, sha: str) -> str:
    """Create `branch` at `sha` unless it exists; return the branch's tip either way."""
    tip = branch_tip(repo, branch)
    if tip is not None:
        return tip
    _must(repo, "branch", "--no-track", branch, sha)
    return sha


def advance_branch(repo: Path, branch: str, old: str, new: str, reason: str) -> None:
    """Move `branch` from `old` to `new`, only if it is still at `old` (compare and swap)."""
    _must(repo, "update-ref", "-m", f"mergegate: {reason}", f"refs/heads/{branch}", new, old)


def checked_out_branches(repo: Path) -> dict[str, Path]:
    """Branch name -> the work tree that has it checked out (main tree and linked ones)."""
    out = _must(repo, "worktree", "list", "--porcelain")
    found: dict[str, Path] = {}
    path: Path | None = None
    for line in out.splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
        elif line.startswith("branch refs/heads/") and path is not None:
            found[line[len("branch refs/heads/") :]] = path
    return found


# ---------------------------------------------------------------- work trees

# `git worktree add` and `prune` race inside one repository (prune removes the admin folder
# of a work tree being added), so this process makes them one at a time.
_WORKTREE_LOCK = threading.Lock()


def _worktree_head(path: Path, branch: str | None) -> str | None:
    """HEAD of the work tree at `path` when it is a live work tree (on `branch`, if given)."""
    if not (path / ".git").is_file():
        return None
    ok, out = _ok(path, "rev-parse", "--show-toplevel", "--symbolic-full-name", "HEAD", "HEAD")
    lines = out.splitlines()
    if not ok or len(lines) != 3 or Path(lines[0]) != path.resolve():
        return None
    if branch is not None and lines[1] != f"refs/heads/{branch}":
        return None
    return lines[2]


def add_worktree(repo: Path, path: Path, branch: str | None, base: str) -> str:
    """A work tree at `path` on `branch` (created at `base` when new), or detached at `base`
    when `branch` is None; returns its HEAD.

    Idempotent: a live work tree of that branch is kept as it is; a directory left half made
    by a crash is removed and made again.
    """
    with _WORKTREE_LOCK:
        head = _worktree_head(path, branch)
        if head is not None:
            return head
        if path.exists():
            shutil.rmtree(path)
            _must(repo, "worktree", "prune")
        path.parent.mkdir(parents=True, exist_ok=True)
        if branch is None:
            _must(repo, "worktree", "add", "-q", "--detach", str(path), base)
        elif branch_tip(repo, branch) is None:
            _must(repo, "worktree", "add", "-q", "-b", branch, str(path), base)
        else:
            _must(repo, "worktree", "add", "-q", str(path), branch)
    return _must(path, "rev-parse", "HEAD")


def remove_worktree(repo: Path, path: Path) -> None:
    """Remove the work tree at `path` (changes in it are discarded); absent is fine."""
    with _WORKTREE_LOCK:
        if path.exists():
            ok, _ = _ok(repo, "worktree", "remove", "--force", "--force", str(path))
            if not ok and path.exists():
                shutil.rmtree(path)
        _must(repo, "worktree", "prune")


def prune_worktrees(repo: Path) -> None:
    """Forget work trees whose directories are gone."""
    with _WORKTREE_LOCK:
        _must(repo, "worktree", "prune")


def reset_clean(worktree: Path, sha: str) -> None:
    """Put the work tree exactly at `sha`: HEAD, index and files; untracked files removed
    (ignored ones are kept, so build caches survive)."""
    _must(worktree, "reset", "-q", "--hard", sha)
    _must(worktree, "clean", "-q", "-f", "-d")


# ---------------------------------------------------------------- keyed commits


def _head(worktree: Path) -> tuple[str, list[str]]:
    """HEAD's commit id and message lines."""
    out = _must(worktree, "log", "-1", "--format=%H%x00%B", "HEAD")
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
    there is nothing to commit. No hook runs (`mergegate.git._command`).
    """
    head, lines = _head(worktree)
    if key in lines:
        return head
    if squash_onto is not None and head != squash_onto:
        _must(worktree, "reset", "-q", "--soft", squash_onto)
        lines = []
    _must(worktree, "add", "-A", "--", ".")
    if amend:
        if run_git(worktree, "diff", "--cached", "--quiet").ok:
            return None  # an amend would succeed with no change: nothing to fold in
        message = "\n".join(lines).rstrip() + "\n" + key + "\n"
        args = ["commit", "--amend", "--no-verify", "-q", "-m", message]
    else:
        args = ["commit", "--no-verify", "-q", "-m", message.rstrip() + "\n\n" + key + "\n"]
    committed, _ = _ok(worktree, *_identity(worktree), *args)
    if not committed:
        if run_git(worktree, "diff", "--cached", "--quiet").ok:
            return None  # nothing to commit (git refuses an empty commit)
        _must(worktree, *_identity(worktree), *args)  # fails again, with git's reason
    return _must(worktree, "rev-parse", "HEAD")


def find_trailer_commit(repo: Path, ref: str, line: str) -> str | None:
    """The newest commit reachable from `ref` whose message has `line` as a whole line."""
    ok, out = _ok(repo, "log", "--format=%H%x00%B%x01", "--fixed-strings", f"--grep={line}", ref)
    if not ok:
        return None
    for entry in out.split("\x01"):
        sha, _, body = entry.strip().partition("\0")
        if sha and line in body.splitlines():
            return sha
    return None


# ---------------------------------------------------------------- merges


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
    tips = _must(repo, "rev-parse", f"refs/heads/{into}", f"refs/heads/{branch}").split()
    ours, theirs = tips[0], tips[1]
    base = _must(repo, "merge-base", ours, theirs)
    result = run_git(
        repo,
        *("merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs),
        timeout=300.0,
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
    commit = _must(
        repo, *_identity(repo), "commit-tree", lines[0], "-p", ours, "-p", theirs, "-m", body
    )
    advance_branch(repo, into, ours, commit, key)
    return MergeResult(commit, ours=ours, theirs=theirs, base=base)
