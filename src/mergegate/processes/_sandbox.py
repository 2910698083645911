"""The sandbox a child runs in: Linux namespaces through bubblewrap (`bwrap`).

A `Sandbox` is a value the caller builds: the paths the child may see (each bound at a path
of the child's view, read-only or read-write, in order: a later bind covers an earlier one
at or below its path), its private HOME, and whether it shares the host's network. This
module only turns that value into bwrap's argv (`bwrap_argv`) and the child's environment
(`sandbox_environment`); what to bind for an agent is decided by the layers that know it
(`mergegate.agents.sandbox` and its callers).

Every sandboxed child gets, whatever the value says:

* its own user, PID, IPC, UTS and cgroup namespaces (`--unshare-all`), and its own network
  namespace unless `network` is set (`--share-net`: a backend that calls an API, or a model
  server on the host's 127.0.0.1);
* no capabilities (`--cap-drop ALL`: as root, bwrap would otherwise keep them, and a child
  could unmount what hides the host);
* `--die-with-parent`, and in its PID namespace the sandbox's first process is pid 1: when
  the agent's leader exits, the kernel kills every process left in the namespace, a `setsid`
  daemon that ignores SIGTERM included;
* an empty root (a tmpfs, remounted read-only at the end) holding only the system's programs
  and libraries read-only (`SYSTEM_READ`, and `/bin`, `/lib`, … as on the host), a fresh
  `/proc` of its own namespace, a minimal `/dev`, a private `/tmp` and `/var/tmp`, and the
  binds; everything else (the user's HOME, other repositories, mergegate's state) does not
  exist there;
* `HOME` set to its private home (a directory the caller owns, bound read-write, or an empty
  `/tmp/home`), `TMPDIR` to `/tmp`, and the `XDG_*` base directories unset, so nothing looks
  for the user's own.

Whether a sandbox can be made here is asked by starting one (`supervisor.sandbox_problem`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator

__all__ = [
    "BWRAP",
    "DEFAULT_HOME",
    "SYSTEM_LINKS",
    "SYSTEM_READ",
    "Bind",
    "Sandbox",
    "bwrap_argv",
    "find_bwrap",
    "sandbox_environment",
]

_TMP = "/tmp"  # noqa: S108 - the sandbox's own /tmp, a fresh tmpfs of its namespace
BWRAP = "bwrap"
"""The program looked for on PATH (Debian's `bubblewrap` package)."""
DEFAULT_HOME = Path(_TMP) / "home"
"""HOME inside a sandbox without a home directory of its own (empty, in the private /tmp)."""
SYSTEM_READ: tuple[str, ...] = ("/usr", "/etc", "/opt", "/run/systemd/resolve")
"""Host directories every sandbox sees read-only (when they exist): programs, libraries,
configuration such as certificates and name resolution."""
SYSTEM_LINKS: tuple[str, ...] = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Reproduced as on the host: a symlink (merged /usr) stays one, a directory is bound
read-only."""
_XDG_UNSET = (
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
)


def _absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError(f"a sandbox path must be absolute: {path}")
    return Path(os.path.normpath(path))


class Bind(BaseModel):
    """One path the child sees: `source` on the host (default: `path` itself) at `path`; or,
    `hidden`, an empty read-only directory there, over whatever earlier binds showed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    source: Path | None = None
    writable: bool = False
    hidden: bool = False

    @field_validator("path", "source")
    @classmethod
    def _normal(cls, value: Path | None) -> Path | None:
        return None if value is None else _absolute(value)

    @property
    def origin(self) -> Path:
        return self.source or self.path


class Sandbox(BaseModel):
    """What one sandboxed child may see and do (see the module docstring for the rest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    binds: tuple[Bind, ...] = ()
    """Bound in this order (those inside the home after it); a later bind covers an earlier
    one at or below its path."""
    home: Path | None = None
    """A directory of the caller's, bound read-write and set as HOME (it persists, so a CLI
    finds its sessions again); None: an empty HOME in the private /tmp, gone at the end."""
    network: bool = False
    """Share the host's network namespace (API calls, a model server on 127.0.0.1)."""

    @field_validator("home")
    @classmethod
    def _normal_home(cls, value: Path | None) -> Path | None:
        return None if value is None else _absolute(value)

    @property
    def home_path(self) -> Path:
        """HOME as the child sees it."""
        return self.home or DEFAULT_HOME

    def with_binds(self, *binds: Bind) -> Sandbox:
        """This sandbox with `binds` added after its own (so they cover them)."""
        return self.model_copy(update={"binds": (*self.binds, *binds)})

    def read_only(self) -> tuple[Path, ...]:
        return tuple(b.path for b in self.binds if not b.writable and not b.hidden)

    def writable(self) -> tuple[Path, ...]:
        return tuple(b.path for b in self.binds if b.writable and not b.hidden)

    def host_writable(self) -> tuple[Path, ...]:
        """The host paths a child of this sandbox can write: each read-write bind's source,
        and its home. Nothing else it writes outlives it: its root, `/tmp`, `/var/tmp` and
        every hidden directory are filesystems of its own."""
        own = tuple(b.origin for b in self.binds if b.writable and not b.hidden)
        return own if self.home is None else (*own, self.home)


def _system_args() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_READ:
        args += ["--ro-bind-try", name, name]
    for name in SYSTEM_LINKS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def _bind_args(binds: Sequence[Bind], read_only_at_end: list[str]) -> list[str]:
    args: list[str] = []
    for bind in binds:
        if bind.hidden:
            # read-only only at the end: later binds (a prompt file) make directories in it
            args += ["--tmpfs", str(bind.path)]
            read_only_at_end += ["--remount-ro", str(bind.path)]
        else:
            flag = "--bind" if bind.writable else "--ro-bind"
            args += [flag, str(bind.origin), str(bind.path)]
    return args


def bwrap_argv(
    sandbox: Sandbox,
    argv: Sequence[str],
    cwd: Path,
    bwrap: str = BWRAP,
    *,
    info_fd: int | None = None,
) -> list[str]:
    """The argv that runs `argv` in `cwd` inside `sandbox` (`cwd` must be visible in it);
    with `info_fd`, bwrap writes its child's pid there (JSON, `child-pid`).

    The binds go in their order, except those inside the home: the home is bound after every
    other bind (nothing a person opens or hides covers it: it may live in mergegate's state
    directory, which is hidden), then the binds inside it (a CLI's credentials file)."""
    args = [bwrap, "--unshare-all"]
    if sandbox.network:
        args.append("--share-net")
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    args += ["--die-with-parent", "--cap-drop", "ALL", *_system_args()]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", _TMP, "--tmpfs", "/var" + _TMP]
    home = sandbox.home_path
    inside = [b for b in sandbox.binds if b.path != home and b.path.is_relative_to(home)]
    outside = [b for b in sandbox.binds if b not in inside]
    read_only_at_end: list[str] = []
    args += _bind_args(outside, read_only_at_end)
    if sandbox.home is None:
        args += ["--dir", str(DEFAULT_HOME)]
    else:
        args += ["--bind", str(sandbox.home), str(sandbox.home)]
    args += _bind_args(inside, read_only_at_end)
    args += read_only_at_end
    args += ["--remount-ro", "/", "--chdir", str(cwd), "--", *argv]
    return args


def sandbox_environment(sandbox: Sandbox, env: Mapping[str, str]) -> dict[str, str]:
    """`env` as the child sees it inside `sandbox`: its HOME and /tmp, no XDG directories."""
    found = {name: value for name, value in env.items() if name not in _XDG_UNSET}
    found["HOME"] = str(sandbox.home_path)
    for name in ("TMPDIR", "TMP", "TEMP"):
        found[name] = _TMP
    return found


def find_bwrap() -> str | None:
    """The absolute path of bwrap on PATH, or None."""
    found = shutil.which(BWRAP)
    return os.path.abspath(found) if found else None
