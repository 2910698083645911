"""mergegate: a deterministic quality gate and orchestrator for AI coding agents.

Only an authoritative, unconditional approval that a program — not a model — found in a
reviewer's output lets work proceed. See README.md and docs/ for the user guide.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from mergegate.decisions import Decision, ExitCode, worst_exit_code
from mergegate.errors import (
    AgentError,
    ConfigError,
    EscalationError,
    HandoffError,
    MergegateError,
    UndecidableError,
    UsageError,
)

try:
    __version__ = version("mergegate")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = [
    "AgentError",
    "ConfigError",
    "Decision",
    "EscalationError",
    "ExitCode",
    "HandoffError",
    "MergegateError",
    "UndecidableError",
    "UsageError",
    "__version__",
    "worst_exit_code",
]
