"""A fleet worker's git across hosts: a bare mirror of the shared remote, and the sync points.

Workers on separate hosts share only the database and a git remote. Each worker keeps a bare
**mirror** of the remote under its work directory; its units' workspaces borrow the mirror's
objects, exactly as on one machine they borrow the user's repository's. The remote is the
authority for every branch a run writes:

* a **unit branch** (`mergegate-unit/<run>/<unit>`) is pushed (forced: it belongs to its unit
  alone) when the workspace is made and after every step that commits in it, so another host
  can rebuild the workspace at the last recorded commit (`rebuild_workspace`);
* a **progress branch** (`mergegate-wip/<run>/<unit>`) holds, after an implementer run, the
  files it changed and did not commit yet, as one commit on top of the unit branch: a unit
  moved to another host between the agent's end and the commit finds them again;
* the **integration branch** moves only by compare-and-swap on the remote (`push_branch` with
  `expect`: git's `--force-with-lease`), after a fetch that makes the remote's tip the one a
  merge is computed on and checked for its trailer, so a merge is exactly once whichever worker
  makes it and whenever it dies.

Transport is the one exception to `mergegate.git._command`'s "no transport at all": these
commands allow the remote's own protocol only (`file` or `ssh`, `GIT_ALLOW_PROTOCOL`), name
the URL on the command line (no configured remote, so no `remote.*.uploadpack`,
`receivepack` or `url.*.insteadOf` to another protocol), run plain `ssh` (`core.sshCommand`
overridden) and check every object fetched (`transfer.fsckObjects`). Pushes leave from the
mirror, never from a workspace an agent could have configured: a workspace's commits reach the
mirror as a bundle (`publish`: every object checked), then the mirror pushes.

Every operation on one mirror holds its lock file (`fcntl.flock`), so a worker's units fetch
and push in turn rather than failing on each other's ref locks.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._command import Where, run_git
from mergegate.git._identity import Workspace
from mergegate.git._workspaces import (
    BranchMovedError,
    GitError,
    add_workspace,
    branch_tip,
    publish,
)
from mergegate.ids import IdError, UnitBranch

__all__ = ["Remote", "push_branch", "remote_protocol", "remote_tip", "remote_url", "wip_branch"]

# `[user@]host:path`; not `transport::address` (a remote helper) nor `scheme://`
_SCP_LIKE = re.compile(r"^(?:[A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:(?!:|//)")
_REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_CREDENTIALS = re.compile(r"^[a-z+]+://[^/@]*:[^/@]*@", re.IGNORECASE)
_TRANSPORT = (
    ("core.sshCommand", "ssh"),  # plain ssh: never a program a config file names
    ("core.gitProxy", ""),
    ("transfer.fsckObjects", "true"),  # every object fetched is checked, as bundles are
)
_WIP_MESSAGE = "mergegate: files an implementer changed, not committed yet"
_IDENTITY = ("-c", "user.name=mergegate", "-c", "user.email=mergegate@localhost")


def remote_protocol(url: str) -> str:
    """The transport `url` uses, `file` or `ssh`; `UsageError` for anything else, and for a
    URL that carries a password (it would be recorded in the run's card and shown by git)."""
    if _CREDENTIALS.match(url):
        raise UsageError(
            "a --remote URL must not carry a password: use an SSH key (ssh://…) or a path"
        )
    lowered = url.lower()
    if lowered.startswith("file://") or url.startswith("/"):
        return "file"
    if lowered.startswith(("ssh://", "git+ssh://", "ssh+git://")) or _SCP_LIKE.match(url):
        return "ssh"
    raise UsageError(
        f"unsupported --remote {url!r}: give an absolute path, file://…, ssh://… or "
        "user@host:path (mergegate sends no credentials over http(s))"
    )


def remote_url(repo: Path, remote: str) -> str:
    """`remote` as a URL: the URL of the repository's remote of that name (`origin`), or
    `remote` itself when it is no remote's name; checked by `remote_protocol` either way."""
    if _REMOTE_NAME.fullmatch(remote):
        found = run_git(repo, "config", "--get", f"remote.{remote}.url")
        url = found.stdout.decode("utf-8", "replace").strip()
        if not found.ok or not url:
            raise UsageError(f"the repository {repo} has no remote named {remote!r}")
        remote = url
    remote_protocol(remote)
    return remote


def wip_branch(unit_branch: str) -> str:
    """The progress branch of a unit branch (`mergegate-unit/…` → `mergegate-wip/…`, see
    `UnitBranch`); `<branch>.wip` for a branch mergegate did not name."""
    try:
        return UnitBranch.parse(unit_branch).progress()
    except IdError:
        return f"{unit_branch}.wip"


@dataclass(frozen=True)
class Remote:
    """The shared remote at `url`, seen through this worker's bare mirror at `mirror`."""

    url: str
    mirror: Path

    def _git(self, cwd: Where, *args: str, transport: bool = False) -> str:
        return _git(cwd, self.url if transport else None, *args)

    @contextlib.contextmanager
    def locked(self) -> Iterator[Path]:
        """Hold the mirror (made when missing) for a sequence of operations; yields its path."""
        self.mirror.parent.mkdir(parents=True, exist_ok=True)
        with (self.mirror.parent / f"{self.mirror.name}.lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                if not (self.mirror / "HEAD").is_file():
                    self.mirror.mkdir(parents=True, exist_ok=True)
                    self._git(self.mirror, "init", "-q", "--bare", "--template=", ".")
                yield self.mirror
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # ------------------------------------------------------------ reading the remote

    def fetch(self, *branches: str) -> dict[str, str | None]:
        """Make the mirror's `branches` what the remote has (forced: the remote is the
        authority); each branch's tip, None when the remote has no such branch. Hold
        `locked()` around it."""
        tips = self._listed(*branches)
        wanted = [f"+refs/heads/{b}:refs/heads/{b}" for b, tip in tips.items() if tip]
        if wanted:
            self._git(
                self.mirror, "fetch", "-q", "--no-tags", "--no-write-fetch-head", self.url,
                *wanted, transport=True,
            )  # fmt: skip
        return {b: branch_tip(self.mirror, b) if tip else None for b, tip in tips.items()}

    def _listed(self, *branches: str) -> dict[str, str | None]:
        """The remote's tip of each of `branches` (None: no such branch), by one ls-remote."""
        listed = self._git(
            self.mirror,
            "ls-remote",
            "--heads",
            self.url,
            *(f"refs/heads/{b}" for b in branches),
            transport=True,
        )
        tips: dict[str, str | None] = dict.fromkeys(branches)
        for line in listed.splitlines():
            sha, _, ref = line.partition("\t")
            name = ref.removeprefix("refs/heads/")
            if name in tips:
                tips[name] = sha
        return tips

    def unchanged(self, branch: str) -> bool:
        """Whether the remote's unit `branch` and its progress branch are where this mirror
        last saw or put them (`checkpoint`, `rebuild_workspace`): no other host moved the
        unit since, so a workspace this worker kept in step with them is still the unit's.
        Hold `locked()` around it."""
        names = (branch, wip_branch(branch))
        remote = self._listed(*names)
        return all(remote[name] == branch_tip(self.mirror, name) for name in names)

    def has_commit(self, sha: str) -> bool:
        return run_git(self.mirror, "cat-file", "-e", f"{sha}^{{commit}}").ok

    def ensure_commit(self, sha: str, *branches: str) -> None:
        """Fetch `branches` unless the mirror already has commit `sha`; `GitError` when the
        remote has not got it either."""
        with self.locked():
            if self.has_commit(sha):
                return
            self.fetch(*branches)
            if not self.has_commit(sha):
                raise GitError(f"commit {sha} is neither in {self.mirror} nor on {self.url}")

    # ------------------------------------------------------------ writing the remote

    def push_branch(self, branch: str, sha: str, *, expect: str | None) -> None:
        """`push_branch` from the mirror (compare and swap). Hold `locked()` around it."""
        push_branch(self.mirror, self.url, branch, sha, expect=expect)

    def advance(self, branch: str, expected: str, new: str) -> bool:
        """Move the remote's `branch` from `expected` (the tip the caller recorded) to `new`
        by compare and swap (git's `--force-with-lease`), and the mirror's with it. True when
        it moved now; False when the remote is at `new` already (this move, pushed before a
        crash); `BranchMovedError` when it is anywhere else. Hold `locked()` around it."""
        tip = remote_tip(self.mirror, self.url, branch)
        if tip != new:
            if tip != expected:
                raise BranchMovedError(branch, expected, tip)
            try:
                self.push_branch(branch, new, expect=expected)
            except GitError:  # moved between the read and the push
                found = remote_tip(self.mirror, self.url, branch)
                if found != new:
                    raise BranchMovedError(branch, expected, found) from None
        self._git(self.mirror, "update-ref", f"refs/heads/{branch}", new)
        return tip != new

    def force_branch(self, branch: str, sha: str) -> None:
        """Point the remote's `branch` at `sha` whatever it was: a unit's own branches only.
        Hold `locked()` around it."""
        self._git(
            self.mirror, "push", "-q", "--no-verify", "--force", self.url,
            f"{sha}:refs/heads/{branch}", transport=True,
        )  # fmt: skip

    def drop_branch(self, branch: str) -> None:
        """Delete the remote's `branch` (nothing when it has none). Hold `locked()`."""
        if remote_tip(self.mirror, self.url, branch) is not None:
            self._git(
                self.mirror,
                "push",
                "-q",
                "--no-verify",
                self.url,
                f":refs/heads/{branch}",
                transport=True,
            )
        run_git(self.mirror, "update-ref", "-d", f"refs/heads/{branch}")

    def checkpoint(self, workspace: Workspace, branch: str) -> str:
        """After a step in `workspace` (on `branch`): its commits to the remote's `branch`,
        and its uncommitted files as the progress commit on `wip_branch(branch)`. Returns
        the workspace's HEAD."""
        head = self._git(workspace, "rev-parse", "HEAD")
        progress = _progress_commit(workspace, head)
        with self.locked():
            known = self.take(workspace, head, branch)
            if known != head or remote_tip(self.mirror, self.url, branch) != head:
                self.force_branch(branch, head)
            if progress is not None:
                publish(self.mirror, workspace, progress, head, branch=wip_branch(branch))
                self.force_branch(wip_branch(branch), progress)
            elif branch_tip(self.mirror, wip_branch(branch)) is not None:
                # the files it held were committed, or thrown away (a reset): never restored
                self.drop_branch(wip_branch(branch))
        return head

    def take(self, workspace: Workspace, sha: str, branch: str) -> str | None:
        """Commit `sha` of `workspace` into the mirror (unless it has it: a rewind, a
        rebuilt workspace) and the mirror's `branch` set to it; returns where the branch
        was. Hold `locked()` around it."""
        known = branch_tip(self.mirror, branch)
        if self.has_commit(sha):
            if known != sha:
                self._git(self.mirror, "update-ref", f"refs/heads/{branch}", sha)
            return known
        # what the bundle may leave out: the branch as last published, or (a workspace
        # committed in before its first checkpoint) every tip of the mirror it borrows
        publish(self.mirror, workspace, sha, [known] if known else self._tips(), branch=branch)
        return known

    def _tips(self) -> list[str]:
        listed = self._git(self.mirror, "for-each-ref", "--format=%(objectname)", "refs/heads")
        return sorted(set(listed.split()))

    # ------------------------------------------------------------ another host's workspace

    def rebuild_workspace(self, path: Path, branch: str) -> tuple[Workspace, str] | None:
        """A unit's workspace at `path`, made from the remote's `branch` (and its progress
        commit, when that sits on the branch's tip: the files become staged changes, as the
        lost workspace had them), and its HEAD. None when the remote has no such branch (the
        unit had not made its workspace yet). A workspace already at `path` is kept as it
        is."""
        with self.locked():
            tips = self.fetch(branch, wip_branch(branch))
            if tips[wip_branch(branch)] is None:  # dropped on the remote by another host
                run_git(self.mirror, "update-ref", "-d", f"refs/heads/{wip_branch(branch)}")
        tip = tips[branch]
        if tip is None:
            return None
        existed = (path / ".git").exists()
        workspace, head = add_workspace(self.mirror, path, branch, tip)
        progress = tips[wip_branch(branch)]
        if not existed and progress is not None and head == tip:
            parent = self._git(self.mirror, "rev-parse", f"{progress}^")
            if parent == tip:
                self._git(workspace, "read-tree", "-u", "--reset", progress)
        return workspace, head


def _git(cwd: Where, url: str | None, *args: str, timeout: float = 300.0) -> str:
    """stdout of `git ARGS` in `cwd`; with `url`, allowed that remote's protocol (and the
    transport overrides); `GitError` with git's last words."""
    protocol = None
    if url is not None:
        protocol = remote_protocol(url)
        args = tuple(a for key, value in _TRANSPORT for a in ("-c", f"{key}={value}")) + args
    result = run_git(cwd, *args, timeout=timeout, allow_protocol=protocol)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        where = f"with {url}" if url else f"in {cwd.root if isinstance(cwd, Workspace) else cwd}"
        raise GitError(f"git {_verb(args)} {where} failed: {detail}")
    return result.stdout.decode("utf-8", "replace").strip()


def remote_tip(cwd: Path, url: str, branch: str) -> str | None:
    """The commit the remote's `branch` points at, or None when it has no such branch."""
    listed = _git(cwd, url, "ls-remote", "--heads", url, f"refs/heads/{branch}")
    return listed.split("\t", 1)[0] or None


def push_branch(cwd: Path, url: str, branch: str, sha: str, *, expect: str | None) -> None:
    """Point the remote's `branch` at `sha` (a commit the repository at `cwd` has), only if
    the remote's branch is still at `expect` — None: only if it has no such branch yet
    (git's `--force-with-lease`: a compare and swap; `GitError` when it moved)."""
    lease = f"--force-with-lease=refs/heads/{branch}:{expect or ''}"
    _git(cwd, url, "push", "-q", "--no-verify", lease, url, f"{sha}:refs/heads/{branch}")


def _verb(args: tuple[str, ...]) -> str:
    return next((a for a in args if not a.startswith("-") and "=" not in a), "?")


def _progress_commit(workspace: Workspace, head: str) -> str | None:
    """A commit on `head` holding every file of the work tree (untracked ones too, ignored
    ones not), or None when the tree matches `head`. Stages the files (the next step commits
    them all anyway)."""
    status = run_git(workspace, "status", "--porcelain", "--untracked-files=all")
    if status.ok and not status.stdout.strip():
        return None
    for args in (("add", "-A", "--", "."), ("write-tree",)):
        result = run_git(workspace, *args)
        if not result.ok:
            detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
            raise GitError(f"git {args[0]} failed in {workspace.root}: {detail}")
    tree = result.stdout.decode().strip()
    made = run_git(workspace, *_IDENTITY, "commit-tree", tree, "-p", head, "-m", _WIP_MESSAGE)
    if not made.ok:
        detail = made.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git commit-tree failed in {workspace.root}: {detail}")
    return made.stdout.decode().strip()
