"""Preflight: can this backend run at all? Asked before a run, a review or a verification
makes anything (a branch, a workspace, a record), and by `agent backends`.

What is checked depends on how the backend reaches its agent:

* a CLI (claude, codex, gemini, opencode, aider, and `command`): its program found on PATH
  (or at the path given), and for a named CLI its `--version` run and answered;
* the embedded model (`local`): the llama.cpp runtime and the model's package installed
  (the `local` extra; `local-1-5b` for the 1.5 B model);
* an HTTP endpoint (`openai`): a TCP connection to its host and port;
* anything else (a third-party backend): nothing to check here; it says so.

Each answer is one line naming the cause and the fix. Nothing here retries: a program that is
not installed does not appear after a backoff.
"""

from __future__ import annotations

import importlib.util
import shutil
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from mergegate.agents._cli import CliBackend
from mergegate.agents._model_store import MODELS, ModelStoreError, part_paths
from mergegate.agents.base import Backend
from mergegate.agents.command import CommandBackend
from mergegate.agents.local import LocalBackend
from mergegate.agents.openai import OpenAIBackend
from mergegate.errors import AgentError
from mergegate.processes import run_command

__all__ = ["Readiness", "preflight", "require_ready"]

VERSION_TIMEOUT_S = 20.0
"""A CLI's `--version` (Node-based CLIs take a second or two to start on a loaded machine)."""
CONNECT_TIMEOUT_S = 3.0
_VERSION_CHARS = 120


@dataclass(frozen=True)
class Readiness:
    """Whether a backend can run here, and in one line why not and what to do."""

    backend: str
    ok: bool
    detail: str
    """What was found (a version, an endpoint), or the cause when not ok."""
    fix: str = ""
    """What to do when not ok."""

    def line(self) -> str:
        """`backend: detail` (and the fix), for a person."""
        return f"{self.backend}: {self.detail}" + (f"; {self.fix}" if self.fix else "")


def preflight(backend: Backend, *, label: str | None = None, cwd: Path | None = None) -> Readiness:
    """Whether `backend` is usable here (see the module docstring). `label` names it in the
    answer (default: its name); `cwd` is where a relative program path is looked up."""
    name = label or backend.name
    if isinstance(backend, LocalBackend):
        return _local(name, backend)
    if isinstance(backend, OpenAIBackend):
        return _endpoint(name, backend.base_url)
    if isinstance(backend, CommandBackend):
        return _program(name, backend.executable[0], cwd, version=False)
    if isinstance(backend, CliBackend):
        return _program(name, backend.executable[0], cwd, version=True)
    return Readiness(name, True, "no preflight for this backend (a plugin)")


def _program(name: str, program: str, cwd: Path | None, *, version: bool) -> Readiness:
    where = cwd or Path.cwd()
    found = shutil.which(program, path=None) if "/" not in program else None
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else where / program
        found = str(path) if path.is_file() and shutil.which(str(path)) else None
    if found is None:
        what = "is not an executable file" if "/" in program else "not found on PATH"
        return Readiness(
            name,
            False,
            f"{program!r} {what}",
            f"install it, or name its path with [agents.backends.{name}] executable = "
            '["/path/to/it"]'
            if version
            else "check the program of the command",
        )
    if not version:
        return Readiness(name, True, found)
    result = run_command([found, "--version"], where, timeout=VERSION_TIMEOUT_S)
    text = (result.stdout or result.stderr).decode("utf-8", "replace").strip()
    first = text.splitlines()[0][:_VERSION_CHARS] if text else ""
    if result.timed_out or not result.ok:
        why = "timed out" if result.timed_out else f"exited {result.returncode}"
        return Readiness(
            name,
            False,
            f"{found} --version {why}" + (f": {first}" if first else ""),
            "check that the CLI runs from this shell (its installation, its Node.js)",
        )
    return Readiness(name, True, f"{found} ({first or 'version not printed'})")


def _local(name: str, backend: LocalBackend) -> Readiness:
    if importlib.util.find_spec("xllamacpp") is None:
        return Readiness(
            name,
            False,
            "the llama.cpp runtime (xllamacpp) is not installed",
            "pip install 'mergegate[local]'",
        )
    model = backend.settings.model
    try:
        spec = MODELS[model]
        part_paths(spec)
    except KeyError:
        return Readiness(
            name, False, f"unknown local model {model!r}", f"use one of {', '.join(MODELS)}"
        )
    except ModelStoreError as exc:
        return Readiness(name, False, str(exc).split("; install")[0], _extra_hint(model))
    return Readiness(name, True, f"embedded model {model}")


def _extra_hint(model: str) -> str:
    spec = MODELS.get(model)
    extra = spec.extra if spec is not None else "local"
    return f"pip install 'mergegate[{extra}]'"


def _endpoint(name: str, base_url: str) -> Readiness:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return Readiness(
            name,
            False,
            f"base_url {base_url!r} is not an http(s) URL",
            f"set [agents.backends.{name}] base_url",
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        return Readiness(
            name,
            False,
            f"endpoint {parts.scheme}://{parts.hostname}:{port} unreachable: {exc.strerror or exc}",
            f"start the server, or set [agents.backends.{name}] base_url",
        )
    return Readiness(name, True, f"endpoint {parts.scheme}://{parts.hostname}:{port}")


def require_ready(checks: Sequence[Readiness]) -> None:
    """`AgentError` (exit 4) in one line naming the first backend that is not usable, its
    cause and its fix (and how many more are not)."""
    failing = [c for c in checks if not c.ok]
    if not failing:
        return
    more = failing[1:]
    tail = f" (also not usable: {', '.join(c.backend for c in more)})" if more else ""
    raise AgentError(f"preflight: {failing[0].line()}{tail}")
