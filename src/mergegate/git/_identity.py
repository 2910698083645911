"""Which directories are workspaces mergegate made, and the check that each still is one.

A `Workspace` is a work tree mergegate made itself (a unit's workspace, the GSD write-back
tree, a reviewer's throwaway checkout): a directory with a `.git` *directory* of its own, whose
device and inode mergegate took when it made it and keeps in the run's durable state (the
workspace step's recorded output), never in a file an agent can write. Every git command
mergegate runs there names `--git-dir=<root>/.git --work-tree=<root>` (so `core.worktree`,
`core.bare` and a `.git` found by discovery never decide where git works) and is preceded by
`check_workspace`, a handful of `lstat`s and one short directory walk (no git process):

* the root is a real directory, not a symlink;
* `.git` is a real directory — not a gitfile (`gitdir: …`, which would send git to another
  repository, the user's included), not a symlink — and the same directory mergegate made
  (same device and inode: a `.git` swapped for another one, the user's moved there included,
  is refused);
* nothing in `.git` sends git's writes elsewhere: no `commondir` file (which would make the
  user's `.git` this repository's refs, config and objects), no symlink in `.git`, nor in
  `refs/` or `logs/` below it (git writes refs through symlinked directories, and appends
  reflogs through symlinked or hard-linked files), no hard-linked file among them.

An agent that can write its workspace can still edit every file in its `.git`: a history, an
index, a config of its own. That changes nothing mergegate relies on — the commits mergegate
makes there are published by their recorded ids, every object travels through a bundle git
checks, and no config key it can set runs a program or moves the work tree (`_command`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.errors import EscalationError

__all__ = ["Workspace", "WorkspaceError", "check_workspace", "identify"]

_MAX_ENTRIES = 10_000
"""Entries `check_workspace` looks at in `refs/` and `logs/` before it refuses the workspace:
a bound on the check's cost, far above what a unit's workspace holds (a few branches)."""
_WALKED = ("refs", "logs")


class WorkspaceError(EscalationError):
    """A workspace's `.git` is not the directory mergegate made, or it sends git elsewhere:
    mergegate refuses to run git there (exit 5: a person looks at the workspace)."""


class Workspace(BaseModel):
    """A work tree mergegate made, and the identity of its `.git` directory as made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    root: Path
    """The work tree (absolute)."""
    device: int
    inode: int
    """`st_dev` and `st_ino` of `<root>/.git` when mergegate made it."""

    @property
    def git_dir(self) -> Path:
        return self.root / ".git"


def _refuse(ws_root: Path, why: str) -> WorkspaceError:
    return WorkspaceError(
        f"the workspace {ws_root} is not as mergegate made it: {why}; "
        "mergegate runs no git command there (look at it, then remove it)"
    )


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None


def _kind(info: os.stat_result | None) -> str | None:
    """What is wrong with `.git` (or the root) as a directory, or None when it is one."""
    if info is None:
        return "is missing"
    if stat.S_ISLNK(info.st_mode):
        return "is a symlink"
    if stat.S_ISREG(info.st_mode):
        return "is a file (a gitfile, naming another repository)"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    return None


def _linked(entry: os.DirEntry[str]) -> bool:
    """A symlink, or a file with more than one name (a hard link to a file elsewhere)."""
    if entry.is_symlink():
        return True
    return entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_nlink > 1


def _redirects(git_dir: Path) -> str | None:
    """What in `git_dir` would send git's reads or writes elsewhere, or None. (Strings, not
    `Path`s: this runs before every git command in a workspace.)"""
    seen = 0
    top = os.fspath(git_dir)
    pending = [top]
    while pending:
        here = pending.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                seen += 1
                if seen > _MAX_ENTRIES:
                    return f"more than {_MAX_ENTRIES} entries in .git/refs and .git/logs"
                if here == top and entry.name == "commondir":
                    return ".git/commondir names another repository"
                if _linked(entry):
                    rel = os.path.relpath(entry.path, os.path.dirname(top))
                    return f"{rel} is a link (a symlink or a hard link)"
                if entry.is_dir(follow_symlinks=False) and (here != top or entry.name in _WALKED):
                    pending.append(entry.path)
    return None


def _structure(root: Path) -> os.stat_result:
    """The `lstat` of `<root>/.git` once the root and `.git` are real directories and `.git`
    sends git nowhere else; `WorkspaceError` otherwise."""
    problem = _kind(_lstat(root))
    if problem is not None:
        raise _refuse(root, f"the directory {problem}")
    git = _lstat(root / ".git")
    problem = _kind(git)
    if problem is not None:
        raise _refuse(root, f".git {problem}")
    assert git is not None
    try:
        problem = _redirects(root / ".git")
    except OSError as exc:
        problem = f".git cannot be read ({exc.strerror or exc})"
    if problem is not None:
        raise _refuse(root, problem)
    return git


def identify(root: Path) -> Workspace:
    """The `Workspace` at `root` as it is now: for a workspace mergegate has just made (or
    finds where it made one, with no agent run since); `WorkspaceError` when its structure
    is not a workspace's (see the module docstring)."""
    root = Path(os.path.abspath(root))
    git = _structure(root)
    return Workspace(root=root, device=git.st_dev, inode=git.st_ino)


def check_workspace(workspace: Workspace) -> None:
    """Refuse (`WorkspaceError`) a workspace whose `.git` is no longer the directory mergegate
    made, or that would send git elsewhere. Runs no git: `lstat`s and one short walk."""
    git = _structure(workspace.root)
    if (git.st_dev, git.st_ino) != (workspace.device, workspace.inode):
        raise _refuse(workspace.root, ".git was replaced (not the directory mergegate made)")
