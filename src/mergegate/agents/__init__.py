"""Agent runs: the process supervisor and one backend module per agent CLI or endpoint.

This is layer L2, the only layer that starts processes or talks to model endpoints.
"""

from __future__ import annotations

from mergegate.agents.base import (
    AgentRequest,
    AgentResult,
    Backend,
    BackendCapabilities,
    HelpSignal,
    RunStatus,
    Usage,
)
from mergegate.agents.registry import BackendInfo, available_backends, get_backend

__all__ = [
    "AgentRequest",
    "AgentResult",
    "Backend",
    "BackendCapabilities",
    "BackendInfo",
    "HelpSignal",
    "RunStatus",
    "Usage",
    "available_backends",
    "get_backend",
]
