"""The run engine's git: workspaces, one keyed commit per step, exactly-once merges.

A unit of a plan works in a **workspace**: a repository of its own that reads every object of
the user's repository (`objects/info/alternates`, as a throwaway checkout does) and writes its
own, on the unit's branch. Not a linked worktree: linked worktrees share the repository's
`.git` (refs, worktree records), so one unit's commit would show as a change to `.git` in the
read-only check of another unit's reviewer running at the same time, and an agent's `git`
mistakes would land in the user's `.git`. A unit's commits reach the user's repository only
when mergegate publishes them (`publish`: a bundle of the new objects, unbundled — git checks
every object — and the unit branch set to the recorded commit), between waves.

Every command goes through `mergegate.git._command.run_git` (no hook, no configured program
ever runs). Every operation that changes the world looks for its own mark first (a branch, a
workspace, a trailer line such as `Mergegate-Task: <run>/<unit>/<task>`), so a step that runs
again after a crash finds its work done instead of doing it twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._checkout import init_borrowing, remove_tree
from mergegate.git._command import run_git

__all__ = [
    "GitError",
    "MergeResult",
    "add_workspace",
    "advance_branch",
    "branch_tip",
    "checked_out_branches",
    "commit_with_key",
    "create_branch",
    "find_trailer_commit",
    "head_commit",
    "merge_no_ff",
    "publish",
    "remove_workspace",
    "repository_root",
    "reset_clean",
    "valid_branch_name",
]

_PUBLISH_REF = "refs/mergegate/publish"
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


# ---------------------------------------------------------------- workspaces


def _workspace_head(path: Path, branch: str | None) -> str | None:
    """HEAD of the workspace at `path` when it is one (on `branch`, if given), else None."""
    if not (path / ".git" / "objects" / "info" / "alternates").is_file():
        return None
    # --symbolic-full-name applies to the arguments after it: the commit first, then the name
    ok, out = _ok(path, "rev-parse", "--show-toplevel", "HEAD", "--symbolic-full-name", "HEAD")
    lines = out.splitlines()
    if not ok or len(lines) != 3 or Path(lines[0]) != path.resolve():
        return None
    if branch is not None and lines[2] != f"refs/heads/{branch}":
        return None
    return lines[1]


def add_workspace(repo: Path, path: Path, branch: str | None, base: str) -> str:
    """A workspace at `path` on `branch` (made at `base` when new), or detached at `base`
    when `branch` is None; returns its HEAD.

    Idempotent: a workspace already there is kept as it is; a directory left half made by a
    crash is removed and made again.
    """
    head = _workspace_head(path, branch)
    if head is not None:
        return head
    remove_tree(path)
    path.mkdir(parents=True)
    init_borrowing(repo, path)
    _carry_settings(repo, path)
    if branch is None:
        _must(path, "checkout", "-q", "--detach", base)
    else:
        _must(path, "checkout", "-q", "-b", branch, base)
    return base


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _carry_settings(repo: Path, path: Path) -> None:
    """What a workspace takes from the user's repository: the committer identity (commits in
    it are the user's, as in their repository) and the local ignore rules (`info/exclude`),
    so the agent's untracked build output is left out of its commits just the same."""
    ok, out = _ok(repo, "config", "--get-regexp", r"^user\.(name|email)$")
    found = dict(line.split(" ", 1) for line in out.splitlines() if " " in line) if ok else {}
    if found:
        lines = ["[user]"]
        lines += [f"\t{key.split('.', 1)[1]} = {_quoted(value)}" for key, value in found.items()]
        with (path / ".git" / "config").open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    objects = (path / ".git" / "objects" / "info" / "alternates").read_text("utf-8").strip()
    exclude = Path(objects).parent / "info" / "exclude"  # `<common git dir>/objects`
    if exclude.is_file():
        target = path / ".git" / "info" / "exclude"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(exclude.read_bytes())


def reset_clean(worktree: Path, sha: str) -> None:
    """Put the work tree exactly at `sha`: HEAD, index and files; untracked files removed
    (ignored ones are kept, so build caches survive)."""
    _must(worktree, "reset", "-q", "--hard", sha)
    _must(worktree, "clean", "-q", "-f", "-d")


def remove_workspace(path: Path) -> None:
    """Remove a workspace, whatever is in it (absent is fine)."""
    remove_tree(path)


def publish(
    repo: Path,
    workspace: Path,
    sha: str,
    base: str | Sequence[str],
    *,
    branch: str | None = None,
) -> None:
    """Bring commit `sha` of `workspace` (and what it needs beyond `base`, one commit or
    several that `repo` has) into `repo`, and point `repo`'s `branch` at it (when given).

    The objects travel as a bundle (`git bundle create` / `unbundle`: local files, no
    transport; unbundling checks every object), so nothing an agent planted in the
    workspace's object store reaches the repository unchecked.
    """
    bases = [base] if isinstance(base, str) else list(base)
    if sha not in bases:  # publishing again only unbundles objects the repository has already
        bundle = workspace / ".git" / "mergegate-publish.bundle"
        # a bundle carries refs, not bare commits: name the commit for it
        _must(workspace, "update-ref", _PUBLISH_REF, sha)
        _must(
            workspace,
            "bundle",
            "create",
            "-q",
            str(bundle),
            _PUBLISH_REF,
            *(f"^{b}" for b in bases),
        )
        try:
            _must(repo, "bundle", "unbundle", str(bundle))
        finally:
            bundle.unlink(missing_ok=True)
    if branch is not None:
        _must(repo, "update-ref", "-m", "mergegate: publish", f"refs/heads/{branch}", sha)


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


def merge_no_ff(repo: Path, into: str, theirs: str, message: str, key: str) -> MergeResult:
    """Merge commit `theirs` (the unit's recorded, approved head: never whatever its branch
    points at now) into `into` with a merge commit carrying `key`, exactly once.

    Checks for `key` on `into` first (a merge made before a crash is found, not redone). The
    merge is computed without a checkout (`git merge-tree --write-tree`) and published with a
    compare-and-swap `update-ref`, so no work tree is touched and a racing writer fails loudly.
    A conflict merges nothing and returns the conflicting paths.
    """
    done = find_trailer_commit(repo, f"refs/heads/{into}", key)
    if done is not None:
        return MergeResult(done, already=True)
    ours = _must(repo, "rev-parse", "--verify", f"refs/heads/{into}^{{commit}}")
    result = run_git(
        repo,
        *("merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs),
        timeout=300.0,
    )
    lines = result.stdout.decode("utf-8", "replace").splitlines()
    if result.returncode == 1:
        base = _must(repo, "merge-base", ours, theirs)  # for the person who resolves it
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
    return MergeResult(commit, ours=ours, theirs=theirs)
