"""A throwaway checkout of one commit: a separate repository, so a reviewer working in it has
neither the user's working tree nor the user's `.git` within reach.

What it is: what `git init --template=` makes in a fresh directory (no hooks, no template
files, the same object format as the source; written by mergegate, no process), the source's
object store borrowed through `objects/info/alternates` (what `git clone --shared` sets up),
the source's `shallow` file copied when there is one, then `git checkout --detach <sha>`.
Nothing is copied, so it costs a checkout of the files, whatever the size of the history.

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

A `KeptCheckout` is one such checkout kept open from one use to the next (a review's spec and
quality reviewers of one commit): it is handed out again only while every entry under it,
`.git` included, is as it was when it was made (`fingerprint`: type, permission bits, size,
inode, times, and the bytes of every file and link) — a file an agent left, even one git
ignores and `git status` does not list, means a fresh checkout. The read-only check of each
run in it is unchanged (its own snapshots, before and after).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import tempfile
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._command import Where, run_git
from mergegate.git._identity import Workspace, identify

__all__ = [
    "REMOVING",
    "KeptCheckout",
    "fingerprint",
    "init_borrowing",
    "remove_tree",
    "remove_tree_soon",
    "settle_removals",
    "throwaway_checkout",
    "unchanged_since",
]

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


REMOVING = ".removing"
"""The folder, beside a directory `remove_tree_soon` removes, that holds it until its files
are deleted (a crash may leave entries there: whoever owns the folder removes it)."""


class _Removals:
    """Directories whose files one background thread deletes (`remove_tree`), and the wait
    for them. The thread is started on first use; at the interpreter's exit it is joined, so
    a process that ends normally leaves nothing half deleted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: set[Future[None]] = set()

    def submit(self, path: Path) -> None:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="mergegate-removal")
            done = self._pool.submit(_delete_moved, path)
            self._pending.add(done)
        done.add_done_callback(self._forget)

    def _forget(self, done: Future[None]) -> None:
        with self._lock:
            self._pending.discard(done)

    def settle(self) -> None:
        with self._lock:
            pending = set(self._pending)
        wait(pending)


_REMOVALS = _Removals()


def _delete_moved(path: Path) -> None:
    """Delete a directory `remove_tree_soon` moved, then the folder that held it once it is
    empty (one renamed into it meanwhile keeps it; one renamed into it just after its
    removal fails over to being removed at once)."""
    remove_tree(path)
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def remove_tree_soon(path: Path) -> None:
    """Remove a throwaway directory as `remove_tree` does, its path free at once: it is
    renamed into the folder `REMOVING` beside it (the same filesystem: one `rename`), and a
    background thread deletes its files (`settle_removals` waits for them). Deleting a work
    tree file by file takes tens of milliseconds, more while other threads hold the GIL;
    a caller on a run's one serial path (the phase merging its units one at a time) no
    longer waits for it. Removed here and now when it cannot be renamed."""
    if not os.path.lexists(path):
        return
    trash = path.parent / REMOVING
    moved = trash / f"{path.name}-{uuid.uuid4().hex}"
    try:
        trash.mkdir(exist_ok=True)
        os.rename(path, moved)
    except OSError:
        remove_tree(path)
        return
    _REMOVALS.submit(moved)


def settle_removals() -> None:
    """Wait until every directory `remove_tree_soon` was given in this process is deleted."""
    _REMOVALS.settle()


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
    _init_git_dir(where / ".git", object_format)
    (where / ".git" / "objects" / "info" / "alternates").write_text(
        f"{objects}\n", encoding="utf-8"
    )
    if os.path.isfile(shallow):
        shutil.copyfile(shallow, where / ".git" / "shallow")


def _init_git_dir(git_dir: Path, object_format: str) -> None:
    """What `git init --template= --object-format=FORMAT` makes of an empty work tree's
    `.git`, written without a process (a unit's workspace and each review checkout are
    two inits a unit): `HEAD` on an unborn branch (every caller checks a commit out next),
    empty `objects` and `refs`, and the config git writes, with git's own probes of the
    filesystem (executable bit, symbolic links, case) made the same way."""
    for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
        (git_dir / sub).mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/master\n", encoding="ascii")
    config = git_dir / "config"
    config.write_text("", encoding="ascii")
    core = {
        "repositoryformatversion": "0" if object_format == "sha1" else "1",
        "filemode": "true" if _trusts_file_mode(config) else "false",
        "bare": "false",
        "logallrefupdates": "true",
    }
    if not _has_symlinks(git_dir):
        core["symlinks"] = "false"
    if (git_dir / "CoNfIg").exists():
        core["ignorecase"] = "true"
    lines = ["[core]", *(f"\t{key} = {value}" for key, value in core.items())]
    if object_format != "sha1":
        lines += ["[extensions]", f"\tobjectformat = {object_format}"]
    config.write_text("\n".join(lines) + "\n", encoding="ascii")


def _trusts_file_mode(path: Path) -> bool:
    """git init's probe: whether flipping the owner's executable bit of a (non-executable)
    file shows in its `lstat`."""
    try:
        before = os.lstat(path).st_mode
        os.chmod(path, before ^ stat.S_IXUSR)
        after = os.lstat(path).st_mode
        os.chmod(path, before)
    except OSError:
        return False
    return after != before and not before & stat.S_IXUSR


def _has_symlinks(git_dir: Path) -> bool:
    """git init's probe: whether a symbolic link can be made in the git directory."""
    probe = git_dir / f"t{uuid.uuid4().hex[:6]}"
    try:
        os.symlink("testing", probe)
        made = stat.S_ISLNK(os.lstat(probe).st_mode)
        probe.unlink()
    except OSError:
        return False
    return made


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


Fingerprint = dict[str, tuple[tuple[int, int, int, int, int], str]]
"""Path below the top -> ((mode, size, inode, mtime, ctime in ns), content digest)."""
_UNREADABLE = ((-1, -1, -1, -1, -1), "-")


def _content(path: str, mode: int) -> str:
    """A regular file's sha256, a link's target; `` for anything else (never opened: a FIFO
    would block); `-` when unreadable."""
    try:
        if stat.S_ISLNK(mode):
            return "link:" + os.readlink(path)
        if not stat.S_ISREG(mode):
            return ""
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return "-"
    try:
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return "-"
    finally:
        os.close(fd)


def _walk(top: Path) -> Iterator[tuple[str, tuple[int, int, int, int, int] | None]]:
    """(path below `top`, its lstat fields or None when unreadable) of every entry, never
    following a link; a directory that cannot be listed comes as an unreadable entry."""
    errors: list[OSError] = []
    for root, dirs, files in os.walk(top, onerror=errors.append):
        for name in (*dirs, *files):
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                yield os.path.relpath(path, top), None
                continue
            fields = (info.st_mode, info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
            yield os.path.relpath(path, top), fields
    for error in errors:
        yield f"(unreadable) {error.filename}", None


def fingerprint(top: Path) -> Fingerprint:
    """Every entry below `top` (`.git` included) with its `lstat` and its bytes."""
    found: Fingerprint = {}
    for rel, fields in _walk(top):
        found[rel] = (
            _UNREADABLE if fields is None else (fields, _content(str(top / rel), fields[0]))
        )
    return found


def unchanged_since(top: Path, before: Fingerprint) -> bool:
    """Whether every entry below `top` is as `before` holds it: any write, chmod, rename, new
    or removed entry shows, whatever the clock's resolution (the bytes are compared, not only
    the times). A file is read only when its `lstat` matches, so nothing an agent made larger
    is ever read."""
    seen = 0
    for rel, fields in _walk(top):
        known = before.get(rel)
        if fields is None or known is None or known[0] != fields:
            return False
        if _content(str(top / rel), fields[0]) != known[1]:
            return False
        seen += 1
    return seen == len(before)


class KeptCheckout:
    """One throwaway checkout at `where`, kept open between uses (see the module docstring).

    `use(rev)` yields the checkout of commit `rev` (a full object name, or anything
    `throwaway_checkout` takes): the one kept when it holds `rev` and its `fingerprint` is the
    one taken when it was made, else a fresh one (the kept one removed first). A block that
    raises removes it. `close()` removes it; so does the owner's removal of `where`'s parent.
    Not for two users at once (`UsageError`)."""

    def __init__(self, source: Where, where: Path) -> None:
        self.source = source
        self.where = where
        self._stack: contextlib.ExitStack | None = None
        self._rev = ""
        self._print: Fingerprint = {}
        self._busy = False

    @property
    def is_open(self) -> bool:
        return self._stack is not None

    @contextlib.contextmanager
    def use(self, rev: str) -> Iterator[Path]:
        if self._busy:
            raise UsageError(f"the throwaway checkout {self.where} is already in use")
        if self._stack is not None and (
            self._rev != rev or not unchanged_since(self.where, self._print)
        ):
            self.close()
        if self._stack is None:
            if self.where.exists():  # left by another user, or by a process that crashed
                raise UsageError(f"the throwaway checkout {self.where} is already in use")
            stack = contextlib.ExitStack()
            stack.enter_context(throwaway_checkout(self.source, rev, self.where))
            self._stack, self._rev = stack, rev
            self._print = fingerprint(self.where)
        self._busy = True
        try:
            yield self.where
        except BaseException:
            self.close()
            raise
        finally:
            self._busy = False

    def close(self, *, soon: bool = False) -> None:
        """Remove the checkout (nothing when none is open). `soon`: its path is freed at once
        and its files deleted in the background (`remove_tree_soon`; `settle_removals` waits
        for them), for a caller on a task's path whose next step need not wait for it."""
        stack, self._stack = self._stack, None
        if stack is not None:
            if soon:
                remove_tree_soon(self.where)  # the checkout's own removal then finds nothing
            stack.close()
