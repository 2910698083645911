"""Building agents from names or commands: the ONE place the engine does it.

(Today `mergegate review` has its own copy in `cli/review.py`; the engine-ready-structure issue
moves both onto a registry factory, and then this function calls it.)
"""

from __future__ import annotations

from typing import Any

from mergegate.agents.base import Backend
from mergegate.agents.registry import get_backend
from mergegate.config import Config

__all__ = ["AgentSpec", "make_backend"]

AgentSpec = dict[str, Any]
"""`{"name": NAME}` or `{"cmd": "PROGRAM ARGS"}`, as recorded in `run.json`."""


def make_backend(spec: AgentSpec | None, config: Config) -> Backend | None:
    """The backend a spec names (a command wins over a name); None for an empty spec."""
    if not spec:
        return None
    if spec.get("cmd"):
        return get_backend("command", cmd=spec["cmd"])
    name = spec.get("name")
    if not name:
        return None
    return get_backend(str(name), **config.agents.backends.get(str(name), {}))
