"""mergegate's own directory for hook state, reached without following a symbolic link.

The hook's latch, memory and decision log decide what an agent may do next, so an agent must
not be able to redirect them: a `decisions.jsonl` that is a link to `~/.bashrc`, or a
`mergegate/` directory that is a link into the project tree, would make the hook write where
the agent chose. So below its *base* (the user's state directory, or `$MERGEGATE_STATE_DIR`,
both chosen by the person) every directory is created `0700` and opened with `O_NOFOLLOW`, one
component at a time relative to its parent's descriptor, and must be owned by this user and
writable by no one else; every file is opened with `O_NOFOLLOW` relative to that descriptor and
must be a regular file. A link, a foreign owner or a file that is not regular is refused with
`PrivateDirError`: the hook then blocks, saying so.

Standard library only: the hook's fast path (a shell command while the latch is open) reads
through this module before anything heavier is imported.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

__all__ = ["HOOK_SESSIONS", "PrivateDir", "PrivateDirError", "hook_dir", "user_state_base"]

STATE_DIR_ENV = "MERGEGATE_STATE_DIR"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not hang a read


class PrivateDirError(OSError):
    """A path in mergegate's private directory is a link, foreign, or not what it must be."""


def user_state_base(env: Mapping[str, str] | None = None) -> tuple[Path, tuple[str, ...]]:
    """Where per-user state lives: `(base, parts)`, the base chosen by the person and the parts
    mergegate creates below it without following links.

    `$MERGEGATE_STATE_DIR` when set (parts `()`), else `$XDG_STATE_HOME/mergegate`, else
    `~/.local/state/mergegate` — never the project tree an agent works in.
    """
    environ = os.environ if env is None else env
    override = environ.get(STATE_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser(), ()
    xdg = environ.get("XDG_STATE_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "state"
    return base, ("mergegate",)


def hook_dir(tool: str, env: Mapping[str, str] | None = None) -> PrivateDir:
    """`hooks/<tool>` in the per-user state directory; its sessions are in `HOOK_SESSIONS/`.

    Spelled here, in the standard library only, because the hook's fast path reads it
    before pydantic and the configuration are loaded (so not through `StateLayout`)."""
    base, parts = user_state_base(env)
    return PrivateDir(base, (*parts, "hooks", tool))


HOOK_SESSIONS = "sessions"
"""The folder of `hook_dir(tool)` holding one memory file per agent session."""


def _refuse(path: Path, why: str) -> PrivateDirError:
    return PrivateDirError(errno.EPERM, f"{path.name} {why}, so mergegate does not use it ({path})")


class PrivateDir(NamedTuple):
    """The directory `base/parts...`, every part opened without following links.

    Each operation opens the chain anew (a handful of system calls), so a `PrivateDir` is a
    plain value that can be shared between threads. A named tuple, not a dataclass: the
    hook's fast path imports this module, and `dataclasses` loads `inspect` (with `dis`,
    `ast`, `tokenize`), a third of that path's imports (issue 23).
    """

    base: Path
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        """The directory's path (for messages and for people; never opened by name)."""
        return self.base.joinpath(*self.parts)

    def child(self, *names: str) -> PrivateDir:
        return PrivateDir(self.base, (*self.parts, *names))

    # ------------------------------------------------------------ the directory itself
    @contextlib.contextmanager
    def opened(self, *, create: bool) -> Iterator[int | None]:
        """The directory's descriptor, or None when it does not exist and `create` is false."""
        fd = self._open(create=create)
        try:
            yield fd
        finally:
            if fd is not None:
                os.close(fd)

    def _open(self, *, create: bool) -> int | None:
        if create:
            self.base.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        path = self.base
        for part in self.parts:
            path = path / part
            try:
                fd = self._step(fd, part, path, create=create)
            except FileNotFoundError:
                return None
        return fd

    @staticmethod
    def _step(parent: int, name: str, path: Path, *, create: bool) -> int:
        """Open `name` below `parent` (closing `parent`); create it first when asked."""
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=parent)
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse(path, "is a symbolic link or not a directory") from None
                raise
        finally:
            os.close(parent)
        info = os.fstat(fd)
        if info.st_uid != os.geteuid() or info.st_mode & 0o022:
            os.close(fd)
            raise _refuse(path, "is owned by another user or writable by others")
        return fd

    # ------------------------------------------------------------ files in it
    def read(self, name: str, limit: int) -> bytes | None:
        """The file's bytes (None when it or the directory is missing).

        Raises `PrivateDirError` for a link or a file that is not regular, and `OSError` for a
        file larger than `limit` bytes.
        """
        with self.opened(create=False) as fd:
            if fd is None:
                return None
            try:
                handle = os.open(name, os.O_RDONLY | _FILE_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise self._file_error(name, exc) from None
        with os.fdopen(handle, "rb") as stream:
            self._check_regular(name, stream.fileno())
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise OSError(errno.EFBIG, f"{self.path / name} is larger than {limit} bytes")
        return data

    def write(self, name: str, data: bytes) -> None:
        """Replace the file atomically (a new `0600` file renamed over the old one)."""
        with self.opened(create=True) as fd:
            assert fd is not None
            temp = f".{name}.{os.urandom(6).hex()}.tmp"  # os, not secrets: no `random` to load
            handle = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, 0o600, dir_fd=fd
            )
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                    stream.flush()
                    os.fsync(stream.fileno())
                os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=fd)
                raise

    def append(self, name: str, line: bytes) -> int:
        """Append `line` with one `write` (`O_APPEND`); returns the file's size before it."""
        with self.opened(create=True) as fd:
            assert fd is not None
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _FILE_FLAGS
            try:
                handle = os.open(name, flags, 0o600, dir_fd=fd)
            except OSError as exc:
                raise self._file_error(name, exc) from None
        try:
            size = self._check_regular(name, handle).st_size
            os.write(handle, line)
            os.fsync(handle)
        finally:
            os.close(handle)
        return size

    def rename(self, old: str, new: str) -> None:
        """Rename a file inside the directory (a link at `new` is replaced, not followed)."""
        with self.opened(create=False) as fd:
            if fd is not None:
                os.replace(old, new, src_dir_fd=fd, dst_dir_fd=fd)

    def remove(self, name: str) -> None:
        """Remove a file; a missing one is fine."""
        with self.opened(create=False) as fd:
            if fd is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)

    def names(self, suffix: str = "") -> list[tuple[str, float]]:
        """`(name, mtime)` of the regular files in the directory ending in `suffix`."""
        with self.opened(create=False) as fd:
            if fd is None:
                return []
            found = []
            for name in os.listdir(fd):
                if not name.endswith(suffix) or name.startswith("."):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISREG(info.st_mode):
                        found.append((name, info.st_mtime))
            return found

    @contextlib.contextmanager
    def locked(self, name: str, timeout_s: float) -> Iterator[None]:
        """Hold an exclusive `flock` on `name`; `TimeoutError` after `timeout_s`."""
        with self.opened(create=True) as fd:
            assert fd is not None
            try:
                handle = os.open(name, os.O_RDWR | os.O_CREAT | _FILE_FLAGS, 0o600, dir_fd=fd)
            except OSError as exc:
                raise self._file_error(name, exc) from None
        try:
            self._check_regular(name, handle)
            _acquire(handle, timeout_s, self.path / name)
            yield
        finally:
            os.close(handle)  # closing the descriptor releases the lock

    # ------------------------------------------------------------ checks
    def _check_regular(self, name: str, fd: int) -> os.stat_result:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(self.path / name, "is not a regular file")
        return info

    def _file_error(self, name: str, exc: OSError) -> OSError:
        if exc.errno == errno.ELOOP:
            return _refuse(self.path / name, "is a symbolic link")
        return exc


def _acquire(fd: int, timeout_s: float, path: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{path} stayed locked for {timeout_s:g}s") from None
            time.sleep(0.02)
