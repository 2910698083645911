"""mergegate: a deterministic quality gate and orchestrator for AI coding agents.

Only an authoritative, unconditional approval that a program — not a model — found in a
reviewer's output lets work proceed. See README.md and docs/ for the user guide.
"""

from __future__ import annotations

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


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed metadata on first use: importlib.metadata costs
    tens of milliseconds, and `mergegate hook` runs before every shell command an agent runs."""
    if name != "__version__":
        raise AttributeError(f"module 'mergegate' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        found = version("mergegate")
    except PackageNotFoundError:  # pragma: no cover - a source tree without install
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found


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
