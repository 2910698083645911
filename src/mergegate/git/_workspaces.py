"""The run engine's git: workspaces, commits on recorded parents, compare-and-swap branches.

A unit of a plan works in a **workspace**: a repository of its own that reads every object of
the user's repository (`objects/info/alternates`, as a throwaway checkout does) and writes its
own, on the unit's branch. Not a linked worktree: linked worktrees share the repository's
`.git` (refs, worktree records), so one unit's commit would show as a change to `.git` in the
read-only check of another unit's reviewer running at the same time, and an agent's `git`
mistakes would land in the user's `.git`. A unit's commits reach the user's repository only
when mergegate publishes them (`publish`: a bundle of the new objects, unbundled — git checks
every object — and the unit branch set to the recorded commit), between waves.

Every command goes through `mergegate.git._command.run_git` (no hook, no configured program
ever runs); in a workspace, with its git directory and work tree named and its `.git` checked
first (`mergegate.git._identity`).

Nothing here decides from text an agent could have written. A commit is made on the last
commit the caller recorded (`commit_with_key(onto=…)`: whatever the agent committed since is
folded into it, its messages dropped), so a trailer line (`Mergegate-Task: …`) is a label for
people, never a mark looked up; a merge is computed on the integration tip the caller recorded
(`prepare_merge`) and published by a compare-and-swap from that tip (`advance_branch`), which
refuses (`BranchMovedError`) when the branch is anywhere else — so a step run again after a
crash finds its own commit by the id it recorded, never by searching messages.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import EscalationError, UsageError
from mergegate.git._checkout import init_borrowing, remove_tree
from mergegate.git._command import ConfigView, Where, config_view, run_git
from mergegate.git._identity import Workspace, WorkspaceError, identify
from mergegate.git._snapshot import read_head

__all__ = [
    "BranchMovedError",
    "GitError",
    "MergeResult",
    "add_workspace",
    "advance_branch",
    "branch_tip",
    "checked_out_branches",
    "commit_with_key",
    "create_branch",
    "head_commit",
    "prepare_merge",
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


class BranchMovedError(EscalationError):
    """A branch mergegate moves only by compare-and-swap is not where mergegate left it:
    someone else moved it (exit 5). Names the branch, the commit mergegate expected and the
    one it found (None: the branch is gone)."""

    def __init__(self, branch: str, expected: str, found: str | None) -> None:
        where = f"at {found}" if found else "deleted"
        super().__init__(
            f"the integration branch {branch} moved: mergegate left it at {expected}, it is "
            f"now {where}; nothing was merged on top and the run stops here (look at what moved "
            f"it; `git branch -f {branch} {expected}` puts back what mergegate merged)"
        )
        self.branch, self.expected, self.found = branch, expected, found

    def __reduce__(self) -> tuple[type[BranchMovedError], tuple[str, str, str | None]]:
        # recorded by the durable engine (pickled) and raised again on a replay
        return (BranchMovedError, (self.branch, self.expected, self.found))


@dataclass(frozen=True)
class MergeResult:
    """A `--no-ff` merge: the merge commit, or the conflict that stopped it."""

    commit: str | None
    """The merge commit (None for a conflict)."""
    already: bool = False
    """The branch was at `commit` already (published before a crash)."""
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


def _must(cwd: Where, *args: str, timeout: float = 120.0) -> str:
    """stdout of `git ARGS` (stripped), or `GitError` with git's last words."""
    result = run_git(cwd, *args, timeout=timeout)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        where = cwd.root if isinstance(cwd, Workspace) else cwd
        raise GitError(f"git {' '.join(args[:3])} failed in {where}: {detail or result.returncode}")
    return result.stdout.decode("utf-8", "replace").strip()


def _ok(cwd: Where, *args: str) -> tuple[bool, str]:
    result = run_git(cwd, *args)
    return result.ok, result.stdout.decode("utf-8", "replace").strip()


_IDENTITIES: dict[Path, tuple[str, ...]] = {}


def _identity(cwd: Where) -> tuple[str, ...]:
    """`-c user.*` flags when the repository has no identity (asked once per work tree):
    whether `user.email` is set is read from the key names of its effective config, which
    every git command there has just listed (`config_view`, kept while its files are
    unchanged) — what `git config user.email` answers, without a process."""
    key = cwd.root if isinstance(cwd, Workspace) else cwd
    if key not in _IDENTITIES:
        view = config_view(cwd)
        if isinstance(view, ConfigView):
            configured = "user.email" in view.names
        else:  # a config git cannot list: the command that needs the identity fails anyway
            configured, _ = _ok(cwd, "config", "user.email")
        _IDENTITIES[key] = () if configured else _FALLBACK_IDENTITY
    return _IDENTITIES[key]


# ---------------------------------------------------------------- repository and branches


def repository_root(path: Path) -> Path:
    """The top of the work tree holding `path`; `UsageError` when it is not in one."""
    ok, out = _ok(path, "rev-parse", "--show-toplevel")
    if not ok or not out:
        raise UsageError(f"not a git repository: {path}")
    return Path(out)


def head_commit(repo: Where) -> str | None:
    """The commit HEAD points at, or None in a repository without commits."""
    ok, out = _ok(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return out if ok else None


def valid_branch_name(repo: Path, name: str) -> bool:
    """Whether `name` is a valid branch name (`git check-ref-format --branch`)."""
    ok, _ = _ok(repo, "check-ref-format", "--branch", name)
    return ok


def branch_tip(repo: Where, branch: str) -> str | None:
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


def advance_branch(repo: Path, branch: str, expected: str, new: str, reason: str) -> bool:
    """Move `branch` from `expected` (the tip the caller recorded) to `new`, only if it is
    still at `expected` (compare and swap). True when it moved now; False when it is at `new`
    already (this move, made before a crash); `BranchMovedError` when it is anywhere else.

    The swap is git's (`update-ref NEW OLD` moves the ref only from OLD, under its lock); the
    tip is read only when it refused, to tell which of the two it is."""
    if new != expected:
        moved = run_git(
            repo, "update-ref", "-m", f"mergegate: {reason}", f"refs/heads/{branch}", new, expected
        )
        if moved.ok:
            return True
    tip = branch_tip(repo, branch)
    if tip == new:
        return False
    raise BranchMovedError(branch, expected, tip)


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


def _existing(path: Path, branch: str | None) -> tuple[Workspace, str] | None:
    """The workspace at `path` and its HEAD when one is there, shaped as mergegate makes
    them (`identify`) and on `branch` (if given); else None."""
    if not (path / ".git" / "objects" / "info" / "alternates").is_file():
        return None
    try:
        workspace = identify(path)
    except WorkspaceError:
        return None
    # --symbolic-full-name applies to the arguments after it: the commit first, then the name
    ok, out = _ok(workspace, "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
    lines = out.splitlines()
    if not ok or len(lines) != 2:
        return None
    if branch is not None and lines[1] != f"refs/heads/{branch}":
        return None
    return workspace, lines[0]


def add_workspace(repo: Path, path: Path, branch: str | None, base: str) -> tuple[Workspace, str]:
    """A workspace at `path` on `branch` (made at `base` when new), or detached at `base`
    when `branch` is None; the workspace (its `.git`'s identity taken now, for the caller to
    record) and its HEAD.

    Idempotent: a workspace already there is kept as it is; a directory left half made by a
    crash, or not shaped as mergegate makes one, is removed and made again.
    """
    found = _existing(path, branch)
    if found is not None:
        return found
    remove_tree(path)
    path.mkdir(parents=True)
    init_borrowing(repo, path)
    _carry_settings(repo, path)
    workspace = identify(path)
    if branch is None:
        _must(workspace, "checkout", "-q", "--detach", base)
    else:
        _must(workspace, "checkout", "-q", "-b", branch, base)
    return workspace, base


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _carry_settings(repo: Path, path: Path) -> None:
    """What a workspace takes from the user's repository: the committer identity (commits in
    it are the user's, as in their repository) and the local ignore rules (`info/exclude`),
    so the agent's untracked build output is left out of its commits just the same."""
    found = _user_settings(repo)
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


_USER_SETTINGS: dict[Path, tuple[ConfigView, dict[str, str]]] = {}


def _user_settings(repo: Path) -> dict[str, str]:
    """`user.name` and `user.email` of `repo`'s effective config: asked of git once while its
    config files are unchanged (`config_view` hands out the same view until one of them
    changes), and not at all when its config has neither key."""
    view = config_view(repo)
    if isinstance(view, ConfigView):
        if not {"user.name", "user.email"} & set(view.names):
            return {}
        known = _USER_SETTINGS.get(repo)
        if known is not None and known[0] is view:
            return known[1]
    ok, out = _ok(repo, "config", "--get-regexp", r"^user\.(name|email)$")
    found = dict(line.split(" ", 1) for line in out.splitlines() if " " in line) if ok else {}
    if isinstance(view, ConfigView):
        _USER_SETTINGS[repo] = (view, found)
    return found


def reset_clean(workspace: Workspace, sha: str) -> None:
    """Put the workspace exactly at `sha`: HEAD, index and files; untracked files removed
    (ignored ones are kept, so build caches survive). Only ever in a `Workspace` mergegate
    made: both commands name its work tree, after the check of its `.git`, so they never
    reach outside its root (`core.worktree` pointing elsewhere is outranked)."""
    _must(workspace, "reset", "-q", "--hard", sha)
    _must(workspace, "clean", "-q", "-f", "-d")


def remove_workspace(path: Path) -> None:
    """Remove a workspace, whatever is in it (absent is fine)."""
    remove_tree(path)


def publish(
    repo: Path,
    workspace: Workspace,
    sha: str,
    base: str | Sequence[str],
    *,
    branch: str | None = None,
) -> None:
    """Bring commit `sha` of `workspace` (and what it needs beyond `base`, one commit or
    several that `repo` has) into `repo`, and point `repo`'s `branch` at it (when given).

    The objects travel as a bundle (`git bundle create` / `unbundle`: local files, no
    transport; unbundling checks every object), so nothing an agent planted in the
    workspace's object store reaches the repository unchecked. A `sha` a base already
    contains travels in no bundle: the repository has it (a unit whose last task was
    skipped goes back to an earlier commit of its own branch).
    """
    bases = [base] if isinstance(base, str) else list(base)
    if sha not in bases:  # publishing again only unbundles objects the repository has already
        _carry(repo, workspace, sha, bases)
    if branch is not None:
        _must(repo, "update-ref", "-m", "mergegate: publish", f"refs/heads/{branch}", sha)


def _carry(repo: Path, workspace: Workspace, sha: str, bases: list[str]) -> None:
    """`sha`'s objects beyond `bases` into `repo` as a bundle. git refuses a bundle with
    nothing in it: asked only then, a `sha` reachable from a base needs none.

    A bundle carries refs, not bare commits. When the workspace's HEAD names `sha` (the
    unit's last commit is the one published; read from its files, no process) the bundle is
    made of `HEAD`, and the commit `unbundle` reports for it must be `sha`; otherwise (or
    when HEAD moved between the read and the bundle) a ref of mergegate's is pointed at
    `sha` first, one `update-ref` more. Either way every object is checked as it arrives."""
    if read_head(workspace.root, workspace.git_dir) == sha and _carry_ref(
        repo, workspace, "HEAD", sha, bases
    ):
        return
    _must(workspace, "update-ref", _PUBLISH_REF, sha)
    if not _carry_ref(repo, workspace, _PUBLISH_REF, sha, bases):
        raise GitError(f"the bundle of {_PUBLISH_REF} in {workspace.root} does not hold {sha}")


def _carry_ref(repo: Path, workspace: Workspace, ref: str, sha: str, bases: list[str]) -> bool:
    """Bundle `ref` with its objects beyond `bases` and unbundle it into `repo`; whether the
    commit it carried is `sha` (True too when nothing needed carrying)."""
    bundle = workspace.git_dir / "mergegate-publish.bundle"
    try:
        if not _bundle(workspace, bundle, ref, sha, bases):
            return True
        carried = _must(repo, "bundle", "unbundle", str(bundle)).split()
    finally:
        bundle.unlink(missing_ok=True)
    return carried[:1] == [sha]


def _bundle(workspace: Workspace, bundle: Path, ref: str, sha: str, bases: list[str]) -> bool:
    """Write `ref` (at `sha`) and the objects beyond `bases` to `bundle`; False when there
    are none (`sha` reachable from a base)."""
    made = run_git(workspace, "bundle", "create", "-q", str(bundle), ref, *(f"^{b}" for b in bases))
    if made.ok:
        return True
    if any(_ok(workspace, "merge-base", "--is-ancestor", sha, b)[0] for b in bases):
        return False
    detail = made.stderr.decode("utf-8", "replace").strip()[-600:]
    raise GitError(f"git bundle create failed in {workspace.root}: {detail}")


# ---------------------------------------------------------------- commits


def _message(workspace: Workspace, sha: str) -> list[str]:
    """The message lines of commit `sha` (one mergegate made and recorded)."""
    return _must(workspace, "log", "-1", "--format=%B", sha).splitlines()


def commit_with_key(
    workspace: Workspace, message: str, key: str, *, onto: str, amend: bool = False
) -> str | None:
    """Commit every change of the workspace as one commit on `onto` (the last commit the
    caller recorded), its message ending with `key` (a trailer such as
    `Mergegate-Task: run/unit/T1`, for people); the new commit's id, or None when the tree
    is `onto`'s (nothing to commit).

    Whatever the agent committed since `onto` is folded in (`reset --soft onto`), its
    messages dropped: no text an agent wrote reaches a commit message, and a commit an agent
    made (with a forged trailer or not) is never taken for mergegate's. The reset runs unless
    HEAD is already `onto` with no git operation in progress (`_settled_at`); an index an
    agent left with conflicted entries but no operation is then resolved by `add -A` as it
    stands in the work tree, what the agent could have written anyway. `amend` folds the
    changes into `onto` itself instead (its message kept, `key` added). Made again after a
    crash, it makes the same tree on the same parent. No hook runs (`_command`).
    """
    if not _settled_at(workspace, onto):
        _must(workspace, "reset", "-q", "--soft", onto)
    _must(workspace, "add", "-A", "--", ".")
    if amend:
        if _unchanged(workspace, onto):
            return None  # an amend would succeed with no change: nothing to fold in
        body = "\n".join(_message(workspace, onto)).rstrip() + "\n" + key + "\n"
        args = ["commit", "--amend", "--no-verify", "-q", "-m", body]
    else:
        args = ["commit", "--no-verify", "-q", "-m", message.rstrip() + "\n\n" + key + "\n"]
    committed, _ = _ok(workspace, *_identity(workspace), *args)
    if not committed:
        if _unchanged(workspace, onto):
            return None  # nothing to commit (git refuses an empty commit)
        _must(workspace, *_identity(workspace), *args)  # fails again, with git's reason
    # the commit git just made, read where it wrote it (HEAD, and the ref it names); git is
    # asked only when those files are not plain (a symbolic ref to a symbolic ref, reftable)
    return read_head(workspace.root, workspace.git_dir) or _must(workspace, "rev-parse", "HEAD")


# The names a workspace's git directory holds while no git operation is in progress: those
# mergegate writes (`_init_git_dir`, `init_borrowing`) and what a commit, a reset and the
# reflogs add. A merge, cherry-pick, revert, rebase or sequencer in progress adds others
# (`MERGE_HEAD`, `MERGE_MSG`, `AUTO_MERGE`, `CHERRY_PICK_HEAD`, `rebase-merge`, …).
_SETTLED_GIT_DIR = frozenset(
    {"HEAD", "config", "description", "hooks", "info", "objects", "refs", "logs", "index"}
    | {"packed-refs", "shallow", "branches", "COMMIT_EDITMSG", "ORIG_HEAD"}
)


def _settled_at(workspace: Workspace, onto: str) -> bool:
    """Whether `reset --soft onto` would change nothing a commit uses: HEAD is `onto` (read
    from its files, None when they are not plain) and the git directory holds only the names
    of `_SETTLED_GIT_DIR` — an allow-list, so any state an agent left (a merge the reset
    refuses, a cherry-pick whose author `commit` would take, which the reset clears) still
    goes through the reset. Saves one git process per task commit (issue 26, item 7): an
    agent that made no commit of its own, the usual case, leaves HEAD at `onto`."""
    if read_head(workspace.root, workspace.git_dir) != onto:
        return False
    try:
        with os.scandir(workspace.git_dir) as entries:
            return all(entry.name in _SETTLED_GIT_DIR for entry in entries)
    except OSError:
        return False


def _unchanged(workspace: Workspace, onto: str) -> bool:
    """Whether the index holds `onto`'s tree."""
    return run_git(workspace, "diff", "--cached", "--quiet", onto).ok


# ---------------------------------------------------------------- merges


def prepare_merge(repo: Path, ours: str, theirs: str, message: str, key: str) -> MergeResult:
    """The `--no-ff` merge of commit `theirs` (the unit's recorded, approved head: never
    whatever its branch points at now) into commit `ours` (the integration tip the caller
    recorded: never whatever the branch points at now), made as a commit on no branch.

    Computed without a checkout (`git merge-tree --write-tree`), so no work tree is touched;
    the caller records the commit, then publishes it with `advance_branch` from `ours`. A
    conflict makes nothing and returns the conflicting paths.
    """
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
    return MergeResult(commit, ours=ours, theirs=theirs)
