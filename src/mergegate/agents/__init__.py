"""Agent backends: one module per agent CLI or endpoint, and what backends share.

Layer L2. CLI backends run through `mergegate.processes` (the supervisor) and prove read-only
runs with `mergegate.git`; HTTP backends talk to model endpoints. The test doubles (scripted
backend, scripted model server) live in `mergegate.testing`. `SessionAsk` turns any backend into
the `ask` callable of `mergegate.handoff.request_handoff`, asking again in the same session.
"""

from __future__ import annotations

from mergegate.agents._failures import FailureKind, failure_kind
from mergegate.agents._preflight import Readiness, preflight, require_ready
from mergegate.agents._tap import OutputTap, output_tap
from mergegate.agents.base import (
    AgentRequest,
    AgentResult,
    AnswerMechanism,
    AnswerSchema,
    Backend,
    BackendCapabilities,
    HelpSignal,
    RunStatus,
    StructuredAnswer,
    Usage,
)
from mergegate.agents.conversation import (
    AgentRunError,
    SessionAsk,
    is_stuck,
    is_transport_failure,
)
from mergegate.agents.registry import BackendInfo, available_backends, backend_names, get_backend

__all__ = [
    "AgentRequest",
    "AgentResult",
    "AgentRunError",
    "AnswerMechanism",
    "AnswerSchema",
    "Backend",
    "BackendCapabilities",
    "BackendInfo",
    "FailureKind",
    "HelpSignal",
    "OutputTap",
    "Readiness",
    "RunStatus",
    "SessionAsk",
    "StructuredAnswer",
    "Usage",
    "available_backends",
    "backend_names",
    "failure_kind",
    "get_backend",
    "is_stuck",
    "is_transport_failure",
    "output_tap",
    "preflight",
    "require_ready",
]
