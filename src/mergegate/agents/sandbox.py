"""Sandboxes for agents: what each agent process sees, decided from what mergegate knows.

The supervisor runs a child in a `mergegate.processes.Sandbox` (bubblewrap); this module
decides what goes in one. Three parts, each owned by the layer that knows it:

* **the caller's** (`SandboxPolicy.sandbox`, used by `run`, `review`, `verify`, `agent
  run`): the agent's working directory — read-write for an implementer, read-only for a
  reviewer, advisor or verifier —, the object directories a workspace or checkout borrows
  (read-only, at their own paths, so git works there), what a person opened on purpose
  (`--sandbox-allow`, `--sandbox-read`, `[sandbox]`), the toolchains of this machine
  (read-only: `toolchain_binds`), and the agent's private HOME (`seat_home`);
* **the backend's** (`CliBackend.sandbox_binds`): its program and the package it is
  installed in (`program_binds`: a `node_modules` tree, a Python virtualenv and its base
  interpreter, a script's interpreter), the attempt's prompt file, its CLI's credentials
  and settings files read-only inside the private HOME, and whether it needs the network;
* **the supervisor's**: namespaces, a private /tmp, no capabilities, nothing outliving the
  step (see `mergegate.processes._sandbox`).

`SandboxedBackend` puts any backend under a policy: every request it runs gets the sandbox
of its role (read-only requests are reviewers, advisors and verifiers) and a private HOME per
seat (backend, role and working directory), which persists so the CLI finds its session
again on a retry or a fix round. A policy that is off (`--no-sandbox`) leaves requests as they
are; `SandboxPolicy.require` refuses to go on when no sandbox can be made here.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.agents.base import AgentRequest, AgentResult, Backend, BackendCapabilities
from mergegate.config import SandboxConfig
from mergegate.errors import AgentError, UsageError
from mergegate.processes import SYSTEM_LINKS, SYSTEM_READ, Bind, Sandbox, sandbox_problem

__all__ = [
    "INSTALL_HINT",
    "TOOLCHAIN_ENV",
    "SandboxPolicy",
    "SandboxedBackend",
    "Toolchains",
    "config_file_binds",
    "program_binds",
    "seat_home",
    "starts_processes",
    "toolchain_binds",
]

INSTALL_HINT = (
    "install bubblewrap (scripts/install-sandbox.sh, or `apt-get install bubblewrap`) and allow "
    "unprivileged user namespaces, or pass --no-sandbox to run agents without one"
)
TOOLCHAIN_ENV: tuple[str, ...] = (
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "CONDA_PREFIX",
    "GOROOT",
    "JAVA_HOME",
    "NVM_DIR",
    "RUSTUP_HOME",
)
"""Variables naming a toolchain's root, bound read-only when set (never a credentials store
such as `CARGO_HOME`; open those with `--sandbox-read` if a check needs them)."""

_SHEBANG_BYTES = 256
_PYVENV_BYTES = 4096
_MAX_ARGV_FILES = 32
_PYTHON = re.compile(r"python[0-9.]*")


# ---------------------------------------------------------------- what a program needs


def _inside(path: Path | str, root: Path | str) -> bool:
    """`path` is `root` or lies under it, for normalised absolute paths: `Path.is_relative_to`
    compared as text (a trailing `/` on both, so `/usrx` is not under `/usr`). Every agent
    start asks this of each toolchain directory against the others; Path objects made it a
    visible share of a run's CPU."""
    return os.path.join(str(path), "").startswith(os.path.join(str(root), ""))


_SYSTEM_PREFIXES = tuple(os.path.join(root, "") for root in (*SYSTEM_READ, *SYSTEM_LINKS))
"""The system roots as `_inside` compares them, made once: every sandbox asks `_visible` of
each toolchain directory (four sandboxes a task), and joining each root anew was most of it."""


def _visible(path: Path | str) -> bool:
    """Whether every sandbox sees `path` already (a system directory): `_inside` one of the
    system roots."""
    return os.path.join(str(path), "").startswith(_SYSTEM_PREFIXES)


def _too_wide(path: Path | str) -> bool:
    """An automatic bind never shows the root, the user's HOME or one of its ancestors."""
    return str(path) == "/" or _inside(Path(os.path.expanduser("~")), path)


def _venv_root(path: Path) -> Path | None:
    for parent in path.parents:
        if (parent / "pyvenv.cfg").is_file():
            return parent
    return None


def _venv_base(venv: Path) -> Path | None:
    """The prefix of the interpreter a virtualenv was made from (`home = <prefix>/bin`)."""
    try:
        with (venv / "pyvenv.cfg").open("rb") as handle:
            text = handle.read(_PYVENV_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(value.strip()).parent
    return None


def _install_roots(path: Path) -> list[Path]:
    """The tree a program is installed in: the outermost `node_modules` above it, a
    virtualenv (and its base interpreter's prefix), a Python's prefix, else the file."""
    modules = [p for p in path.parents if p.name == "node_modules"]
    if modules:
        return [modules[-1]]
    venv = _venv_root(path)
    if venv is not None:
        base = _venv_base(venv)
        return [venv, *([base] if base is not None else [])]
    if _PYTHON.fullmatch(path.name) and path.parent.name == "bin":
        return [path.parent.parent]
    return [path]


def _interpreter(path: Path) -> Path | None:
    """The program a script's `#!` line runs (`/usr/bin/env NAME` looked up on PATH)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        found = shutil.which(words[1])
        return Path(os.path.abspath(found)) if found else None
    return Path(words[0])


def config_file_binds(
    sandbox: Sandbox, private: Path, source: Path, names: Sequence[str]
) -> tuple[Bind, ...]:
    """Read-only binds of the files `names` of an agent CLI's configuration folder `source`
    (its credentials, its settings) to the same names in `private`, the folder the CLI reads
    inside `sandbox`; a name missing from `source` is left out. `private` is made when the
    sandbox has a home of its own (a bind needs its mount point)."""
    if sandbox.home is not None:
        private.mkdir(parents=True, exist_ok=True)
    return tuple(
        Bind(path=private / name, source=source / name)
        for name in names
        if (source / name).is_file()
    )


def program_binds(program: str | Path, args: Iterable[str] = ()) -> tuple[Bind, ...]:
    """Read-only binds a program needs to start in a sandbox: the tree it is installed in
    (for the path it was found at and the file it links to), its script interpreter's, and
    each existing regular file named by an absolute path in `args` (the script a `command`
    agent runs, its data). System directories are visible anyway and never bound again."""
    roots: list[Path] = []
    seen: set[Path] = set()
    queue = [Path(os.path.abspath(program))]
    for _ in range(4):  # the program, its link target, an interpreter and its target
        if not queue:
            break
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        real = Path(os.path.realpath(path))
        for found in (path, real):
            roots += _install_roots(found)
        interpreter = _interpreter(real)
        if interpreter is not None:
            queue.append(interpreter)
    roots += _argv_files(args)
    return _read_binds(roots, allow_home=False)


def _argv_files(args: Iterable[str]) -> list[Path]:
    found: list[Path] = []
    for arg in args:
        if len(found) >= _MAX_ARGV_FILES:
            break
        if arg.startswith("/") and "\0" not in arg:
            try:
                if stat.S_ISREG(os.stat(arg).st_mode):
                    found.append(Path(os.path.normpath(arg)))
            except (OSError, ValueError):
                continue
    return found


def _read_binds(paths: Iterable[Path], allow_home: bool) -> tuple[Bind, ...]:
    """Read-only binds of `paths` that exist, are not visible already and (unless
    `allow_home`, for a single file) are not too wide; each once, in order, and none inside
    another of them (`~/.pyenv/shims` inside `PYENV_ROOT`: one mount fewer to make)."""
    # compared as text (normalised, so equal paths are equal strings): every sandbox of a
    # task asks this of each toolchain directory, and Path objects were most of its cost
    kept: list[str] = []
    for path in paths:
        normal = os.path.normpath(path)
        if normal in kept or _visible(normal) or not os.path.exists(normal):
            continue
        if _too_wide(normal) and not (allow_home and os.path.isfile(normal)):
            continue
        kept.append(normal)
    prefixes = [os.path.join(p, "") for p in kept]
    return tuple(
        Bind(path=Path(p))
        for p, own in zip(kept, prefixes, strict=True)
        if not any(own != other and own.startswith(other) for other in prefixes)
    )


def toolchain_binds(environ: Mapping[str, str] | None = None) -> tuple[Bind, ...]:
    """Read-only binds of this machine's toolchains: every directory on PATH, the Python
    mergegate runs on (its virtualenv and base prefix), and the roots `TOOLCHAIN_ENV` names.
    None of them is the user's HOME or an ancestor of it (such an entry is left out)."""
    env = os.environ if environ is None else environ
    paths = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if p.startswith("/")]
    paths += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    paths += [Path(env[name]) for name in TOOLCHAIN_ENV if env.get(name, "").startswith("/")]
    return _read_binds(paths, allow_home=False)


class Toolchains:
    """This machine's toolchain binds (`toolchain_binds`), found once and kept for a run.

    A run asks for them at every sandbox (four a task: implementer, check, two reviewers),
    and they follow from this process's environment, which a run does not change, and from
    which of those directories exist: finding them was most of a sandbox's own cost. Each
    use leaves out a directory removed since (bwrap refuses a bind of a missing path); one
    made since is bound from the next run on."""

    def __init__(self) -> None:
        self._found: tuple[Bind, ...] | None = None

    def binds(self) -> tuple[Bind, ...]:
        found = self._found
        if found is None:  # two threads at once find the same binds: either copy will do
            found = self._found = toolchain_binds()
        return tuple(b for b in found if os.path.exists(b.path))


# ---------------------------------------------------------------- the caller's policy


def _given_path(text: str, what: str) -> Path:
    """A path a person gave: `~` expanded, made absolute, and existing."""
    if "\0" in text:
        raise UsageError(f"{what}: a path holds no NUL byte")
    path = Path(os.path.abspath(os.path.expanduser(text)))
    if not path.exists():
        raise UsageError(f"{what} {text}: no such file or directory")
    return path


class SandboxPolicy(BaseModel):
    """Whether agents run in a sandbox, and what a person opened to them on purpose.

    Recorded with a run (`run.json`) and a review's record, shown by `status`. `allow` paths
    are read-write, `read` paths read-only, each bound at its own path in every sandbox."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    allow: tuple[Path, ...] = ()
    read: tuple[Path, ...] = ()

    @classmethod
    def from_config(
        cls,
        config: SandboxConfig,
        *,
        disabled: bool = False,
        allow: Sequence[str] = (),
        read: Sequence[str] = (),
    ) -> SandboxPolicy:
        """The policy of `[sandbox]` plus the flags (`--no-sandbox`, `--sandbox-allow`,
        `--sandbox-read`); `UsageError` for a path that does not exist."""
        if disabled:
            return cls(enabled=False)
        opened = [_given_path(p, "--sandbox-allow") for p in (*config.allow, *allow)]
        reads = [_given_path(p, "--sandbox-read") for p in (*config.read, *read)]
        return cls(allow=tuple(dict.fromkeys(opened)), read=tuple(dict.fromkeys(reads)))

    def require(self) -> None:
        """`AgentError` (exit 4) when this policy wants a sandbox and none can be made here:
        one line naming the cause and the fix. Call it before anything is created."""
        if not self.enabled:
            return
        problem = sandbox_problem()
        if problem is not None:
            raise AgentError(f"no sandbox for agents: {problem}; {INSTALL_HINT}")

    def describe(self) -> str:
        """One line for people: `on`, with what was opened, or `off (--no-sandbox)`."""
        if not self.enabled:
            return "off (--no-sandbox): agents run with the user's own files and processes"
        parts = ["on (bubblewrap)"]
        if self.allow:
            parts.append("read-write: " + ", ".join(str(p) for p in self.allow))
        if self.read:
            parts.append("read-only: " + ", ".join(str(p) for p in self.read))
        return "; ".join(parts)

    def sandbox(
        self,
        cwd: Path,
        *,
        writable: bool,
        home: Path | None,
        objects: Sequence[Path] = (),
        read_only_inside: Sequence[str] = (),
        hidden: Sequence[Path] = (),
        toolchains: Toolchains | None = None,
    ) -> Sandbox | None:
        """The sandbox of an agent working in `cwd` (read-write or not), with `home` as its
        HOME and the object directories it borrows; `read_only_inside` names parts of `cwd`
        bound read-only over it (`.git` of a person's own repository); `hidden` directories
        (mergegate's state) are shown empty wherever a bind would show them, all but the way
        down to `cwd` when `cwd` is inside one (a run's workspace lives in the state
        directory). None when off.

        Bound in this order, a later bind covering an earlier one: toolchains, the person's
        read-only and read-write paths, `cwd`, its read-only parts, the hidden directories
        (whole; after one that holds `cwd`, `cwd` and its read-only parts again), the
        objects; so nothing a person opens shows
        mergegate's state or makes a reviewer's checkout writable. A backend adds its own binds
        after these (the attempt's prompt file, inside the state directory, among them), and
        the home goes last. `toolchains`: the run's, found once (else found now)."""
        if not self.enabled:
            return None
        top = Path(os.path.abspath(cwd))
        shown = [
            Bind(path=top, writable=writable),
            *(Bind(path=top / part) for part in read_only_inside if (top / part).exists()),
        ]
        binds = [
            *(toolchain_binds() if toolchains is None else toolchains.binds()),
            *(Bind(path=p) for p in self.read),
            *(Bind(path=p, writable=True) for p in self.allow),
            *shown,
            *_hidden(hidden, top, shown),
            # after the hidden ones (a reviewer's objects are in a workspace of the state
            # directory); never over `cwd`, where they are visible as it is
            *_read_binds((p for p in objects if not Path(p).is_relative_to(top)), False),
        ]
        return Sandbox(binds=tuple(binds), home=home)


def _hidden(paths: Iterable[Path], cwd: Path, shown: Sequence[Bind]) -> Iterator[Bind]:
    """Binds that hide each existing directory of `paths` whole (an empty directory over it);
    when one holds `cwd` (a run's workspace is in the state directory), `shown` — the
    workspace's own binds — again on top of it, so only the way down to `cwd` shows there: no
    other unit's workspace, no run record, under a path a person opened.

    The directory is hidden whole rather than entry by entry: another unit's workspace may be
    removed (merged) between listing it and bwrap mounting over it, and bwrap then fails to
    start the agent."""
    for path in paths:
        top = Path(os.path.abspath(path))
        if not top.is_dir():
            continue
        yield Bind(path=top, hidden=True)
        if cwd.is_relative_to(top):
            yield from shown


def seat_home(root: Path, backend: str, request: AgentRequest) -> Path:
    """The private HOME of one seat: a backend, in a role (read-only or not), in a working
    directory; made (mode 0700) under `root` if missing. The same seat finds the same HOME
    (a CLI's sessions live there: a retry or a fix round resumes them)."""
    role = "read" if request.read_only else "write"
    key = hashlib.sha256(f"{backend}\0{role}\0{Path(request.cwd).absolute()}".encode()).hexdigest()
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", backend)[:40] or "agent"
    path = root / f"{safe}-{role}-{key[:16]}"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def starts_processes(backend: Backend) -> bool:
    """Whether `backend`'s runs start a process (and so need a sandbox): every backend but
    those that say otherwise with `starts_processes = False` (the HTTP backends: openai,
    local; the in-process test doubles). A backend that does not say is assumed to."""
    return bool(getattr(backend, "starts_processes", True))


ObjectsOf = Callable[[AgentRequest], Sequence[Path]]
"""The object directories a request's working directory borrows (see `mergegate.git`)."""


def _no_objects(request: AgentRequest) -> Sequence[Path]:
    del request
    return ()


class SandboxedBackend:
    """A `Backend` whose every run gets the sandbox of its role (see the module docstring).

    `homes` holds the private HOMEs of its seats; `objects` gives the object directories a
    request's working directory borrows; `git_read_only` binds `.git` of a writable working
    directory read-only (a fixer in a person's own repository: mergegate commits its work);
    `hidden` directories (mergegate's state) are shown empty; `toolchains`, the run's
    toolchain binds found once (else found for each request).
    A request that already has a sandbox, or a policy that is off, is run as it is."""

    def __init__(
        self,
        backend: Backend,
        policy: SandboxPolicy,
        homes: Path,
        *,
        objects: ObjectsOf = _no_objects,
        git_read_only: bool = False,
        hidden: Sequence[Path] = (),
        toolchains: Toolchains | None = None,
    ) -> None:
        self.backend = backend
        self.starts_processes = starts_processes(backend)
        self.name: str = backend.name
        self.capabilities: BackendCapabilities = backend.capabilities
        self.policy = policy
        self.homes = homes
        self.objects = objects
        self.git_read_only = git_read_only
        self.hidden = tuple(hidden)
        self.toolchains = toolchains

    def with_sandbox(self, request: AgentRequest) -> AgentRequest:
        """`request` with the sandbox of its role (unchanged when off or already set)."""
        if not self.policy.enabled or request.sandbox is not None:
            return request
        writable = not request.read_only
        sandbox = self.policy.sandbox(
            request.cwd,
            writable=writable,
            home=seat_home(self.homes, self.name, request),
            objects=self.objects(request),
            read_only_inside=(".git",) if writable and self.git_read_only else (),
            hidden=self.hidden,
            toolchains=self.toolchains,
        )
        return request.model_copy(update={"sandbox": sandbox})

    def run(self, request: AgentRequest) -> AgentResult:
        return self.backend.run(self.with_sandbox(request))
