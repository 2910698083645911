"""Find backends by name: entry points of group `mergegate.backends`, like any plugin.

The built-in backends are registered in mergegate's own `pyproject.toml` exactly as a
third-party package would register its own:

    [project.entry-points."mergegate.backends"]
    mybackend = "my_package.module:MyBackend"

An entry point whose module cannot be imported (not installed yet, a missing optional extra)
is reported as unavailable by `available_backends` and never breaks the others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from mergegate.agents.base import Backend, BackendCapabilities
from mergegate.config import AgentsConfig
from mergegate.errors import AgentError, UsageError

__all__ = [
    "ENTRY_POINT_GROUP",
    "BackendInfo",
    "available_backends",
    "backend_from_config",
    "backend_names",
    "get_backend",
]

ENTRY_POINT_GROUP = "mergegate.backends"

# Used only when mergegate runs without installed metadata (e.g. from a source checkout on
# sys.path); keep in step with pyproject.toml.
_BUILTIN = {
    "aider": "mergegate.agents.aider:AiderBackend",
    "claude": "mergegate.agents.claude:ClaudeBackend",
    "codex": "mergegate.agents.codex:CodexBackend",
    "command": "mergegate.agents.command:CommandBackend",
    "gemini": "mergegate.agents.gemini:GeminiBackend",
    "local": "mergegate.agents.local:LocalBackend",
    "openai": "mergegate.agents.openai:OpenAIBackend",
    "opencode": "mergegate.agents.opencode:OpenCodeBackend",
}


@dataclass(frozen=True)
class BackendInfo:
    """One registered backend, loadable or not."""

    name: str
    target: str
    """`module:Class` as registered."""
    available: bool
    capabilities: BackendCapabilities | None = None
    error: str | None = None
    """Why it cannot be loaded."""


def _entry_points() -> dict[str, EntryPoint]:
    found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if not found:
        found = {
            name: EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)
            for name, value in _BUILTIN.items()
        }
    return found


def _load(ep: EntryPoint) -> type[Any]:
    try:
        loaded = ep.load()
    except (ImportError, AttributeError) as exc:
        raise AgentError(f"backend {ep.name!r} ({ep.value}) is not available: {exc}") from exc
    if not isinstance(loaded, type):
        raise AgentError(f"backend {ep.name!r} ({ep.value}) is not a class")
    return loaded


def backend_names() -> list[str]:
    """The registered backends' names, sorted (the choices a usage error lists)."""
    return sorted(_entry_points())


def available_backends() -> list[BackendInfo]:
    """Every registered backend, sorted by name, with its capabilities when loadable."""
    infos = []
    for name, ep in sorted(_entry_points().items()):
        try:
            cls = _load(ep)
        except AgentError as exc:
            infos.append(BackendInfo(name, ep.value, False, error=str(exc)))
            continue
        caps = getattr(cls, "capabilities", None)
        infos.append(
            BackendInfo(
                name, ep.value, True, caps if isinstance(caps, BackendCapabilities) else None
            )
        )
    return infos


def get_backend(name: str, **options: Any) -> Backend:
    """An instance of backend `name` built with `options`.

    An option `api_key_env = "VAR"` is replaced by `api_key` read from that environment
    variable, so a config file can name a key without holding it.

    Raises `UsageError` for an unknown name (listing the known ones), options the backend
    rejects or an unset `api_key_env` variable, and `AgentError` when the backend is registered
    but cannot be imported.
    """
    eps = _entry_points()
    ep = eps.get(name)
    if ep is None:
        raise UsageError(f"unknown backend {name!r}; known backends: {', '.join(sorted(eps))}")
    options = _key_from_env(name, options)
    cls = _load(ep)
    try:
        backend = cls(**options)
    except TypeError as exc:
        raise UsageError(f"backend {name!r} does not accept these options: {exc}") from exc
    if not isinstance(backend, Backend):
        raise AgentError(f"backend {name!r} ({ep.value}) does not implement the Backend protocol")
    return backend


def backend_from_config(
    agents: AgentsConfig, name: str | None = None, *, cmd: str | None = None, **options: Any
) -> Backend:
    """The backend a configuration names, built the one way every command builds it.

    With `cmd`, the `command` backend running it; otherwise backend `name`. Either way its
    `[agents.backends.NAME]` table gives the options, and `options` (from flags) win over the
    table. Raises like `get_backend`, and `UsageError` when neither a name nor a command is
    given.
    """
    if cmd:
        return get_backend(
            "command", **{**agents.backends.get("command", {}), **options, "cmd": cmd}
        )
    if not name:
        raise UsageError("no backend: give a backend name or a command")
    return get_backend(name, **{**agents.backends.get(name, {}), **options})


def _key_from_env(name: str, options: dict[str, Any]) -> dict[str, Any]:
    variable = options.get("api_key_env")
    if variable is None:
        return options
    if "api_key" in options:
        raise UsageError(f"backend {name!r}: give api_key or api_key_env, not both")
    key = os.environ.get(variable) if isinstance(variable, str) and variable else None
    if not key:
        raise UsageError(f"backend {name!r}: api_key_env {variable!r}: the variable is not set")
    rest = {k: v for k, v in options.items() if k != "api_key_env"}
    return {**rest, "api_key": key}
