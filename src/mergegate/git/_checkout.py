"""A throwaway checkout of one commit: a separate repository, so a reviewer working in it has
neither the user's working tree nor the user's `.git` within reach.

What it is: `git init --template=` in a fresh directory (no hooks, no template files, the same
object format as the source), the source's object store borrowed through
`objects/info/alternates` (what `git clone --shared` sets up), the source's `shallow` file
copied when there is one, then `git checkout --detach <sha>`. Nothing is copied, so it costs a
checkout of the files, whatever the size of the history.

Why not `git worktree add`: a linked worktree shares `.git/config` and `.git/hooks` with the
user's repository, the very files a reviewer must not reach. Why not `git clone`: a local clone
lists the source's refs through `git-upload-pack` run in the source repository, and
`--no-hardlinks` copies the whole object store; with hard links (the default for a local
clone) a write to a cloned object file would be a write to the user's. The throwaway has its
own, fresh config (the user's global config still applies to git run inside it, with
mergegate's overrides on mergegate's own calls), its own HEAD, index and refs, and no
remote. The reviewer can still run `git log`/`git show`/`git diff <sha>`: every object of the
source is readable through the alternates.

It can still reach the user's repository by absolute path; the read-only check therefore
covers the user's repository too (`AgentRequest.protected_repos`).

The checkout is a `Workspace` (`_identity`): mergegate's own commands in it name its git
directory and work tree and check its `.git` first, like a unit's workspace. After a reviewer
ran there, mergegate reads it only through the read-only check (`_snapshot`), which hashes the
files under `.git` before it runs git again, and removes it without git.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._command import Where, run_git
from mergegate.git._identity import Workspace, identify

__all__ = ["init_borrowing", "remove_tree", "throwaway_checkout"]

_FULL_NAME = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _must(cwd: Where, *args: str) -> str:
    result = run_git(cwd, *args)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
        where = cwd.root if isinstance(cwd, Workspace) else cwd
        raise UsageError(
            f"git {' '.join(args[:2])} failed in {where}" + (f": {detail[-1]}" if detail else "")
        )
    return result.stdout.decode("utf-8", "surrogateescape").strip()


def _make_writable(top: Path) -> None:
    """u+rwx on every directory below `top` (never through a symlink: it may point anywhere)."""
    with contextlib.suppress(OSError):
        os.chmod(top, stat.S_IRWXU)
    for root, dirs, _files in os.walk(top):
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                with contextlib.suppress(OSError):
                    os.chmod(path, stat.S_IRWXU)


def remove_tree(path: Path) -> None:
    """Remove a throwaway directory, even one an agent left read-only directories in."""
    if os.path.islink(path) or not os.path.isdir(path):
        with contextlib.suppress(OSError):
            path.unlink()
        return
    try:
        shutil.rmtree(path)
    except OSError:
        _make_writable(path)
        shutil.rmtree(path, ignore_errors=True)


_SOURCES: dict[Path, tuple[str, str, str]] = {}


def _source_paths(source: Where) -> tuple[str, str, str]:
    """(objects directory, shallow file, object format) of a repository: fixed for its life,
    so asked once per process."""
    key = (source.root if isinstance(source, Workspace) else source).absolute()
    found = _SOURCES.get(key)
    if found is None:
        paths = _must(
            source,
            *("rev-parse", "--path-format=absolute", "--git-path", "objects"),
            *("--git-path", "shallow", "--show-object-format"),
        ).split("\n")
        if len(paths) != 3:
            raise UsageError(f"cannot borrow the objects of {source}: unexpected git paths")
        found = _SOURCES[key] = (paths[0], paths[1], paths[2])
    return found


def init_borrowing(source: Where, where: Path) -> None:
    """Make the empty directory `where` a repository of its own that reads every object of
    `source` (through `objects/info/alternates`) and writes its own: `git init --template=`
    (no hooks, no template files, the same object format), alternates, `shallow` copied."""
    objects, shallow, object_format = _source_paths(source)
    _must(where, "init", "-q", "--template=", f"--object-format={object_format}", ".")
    info = where / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{objects}\n", encoding="utf-8")
    if os.path.isfile(shallow):
        shutil.copyfile(shallow, where / ".git" / "shallow")


@contextlib.contextmanager
def throwaway_checkout(source: Where, rev: str, where: Path | None = None) -> Iterator[Path]:
    """Check out commit `rev` of the repository at `source` in a repository of its own.

    `where` is the directory to create (it must not exist; its parent must), default a new
    temporary directory. Yields the checkout's work tree; removes it on exit, whatever the
    agent left in it. Raises `UsageError` when `rev` is not a commit of `source` or git fails.
    """
    # a full object name needs no lookup: the checkout fails on anything but a commit
    full = _FULL_NAME.fullmatch(rev) is not None
    sha = rev if full else _must(source, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
    if where is None:
        where = Path(tempfile.mkdtemp(prefix="mergegate-checkout-")) / "work"
    where.mkdir()  # fails if it exists: a checkout in use is never reused under an agent
    try:
        init_borrowing(source, where)
        made = identify(where)
        _must(made, "checkout", "-q", "--detach", f"{sha}^{{commit}}" if full else sha)
        yield where
    finally:
        remove_tree(where)
        if where.parent.name.startswith("mergegate-checkout-"):
            with contextlib.suppress(OSError):
                where.parent.rmdir()
