"""The one exception tree of mergegate. Each CLI-facing error carries its exit code.

::

    MergegateError                 exit 1 unless a subclass says otherwise
    ├── UsageError                 exit 2  bad arguments, unreadable or invalid input file
    │   └── ConfigError            exit 2  invalid configuration (names the key and the file)
    ├── LogIntegrityError          exit 1  a log not the content its attempt row recorded
    ├── UndecidableError           exit 3  no verdict after the allowed retries
    │   └── HandoffError           exit 3  a JSON handoff that stayed invalid
    ├── AgentError                 exit 4  timeout, stall, crash, missing CLI
    │   └── LogUnavailableError    exit 4  no copy of an agent's log can be read here
    ├── EscalationError            exit 5  revision cap or stall: a person must decide
    └── RunInterruptedError        exit 130  a person interrupted a run (Ctrl-C, SIGTERM)

Library code raises these; only the CLI turns them into exit codes and messages. A review's
answer is a value (`ReviewOutcome`), not an exception; `ReviewOutcome.raise_for_status()`
raises the matching error (`EscalationError`, `AgentError`, `UndecidableError`, or the base
class for a real "no") for callers who want one. Errors that
come from untrusted text keep that text (or a bounded sample of it) on the exception so a
caller can show it, never so it is trusted.
"""

from __future__ import annotations

from typing import ClassVar

from mergegate.decisions import ExitCode

__all__ = [
    "AgentError",
    "ConfigError",
    "EscalationError",
    "HandoffError",
    "LogIntegrityError",
    "LogUnavailableError",
    "MergegateError",
    "RunInterruptedError",
    "UndecidableError",
    "UsageError",
]


class MergegateError(Exception):
    """Base of every error mergegate raises on purpose."""

    exit_code: ClassVar[ExitCode] = ExitCode.NO

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(MergegateError):
    """The user asked for something impossible: bad arguments, unreadable or invalid file."""

    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """Configuration that cannot be used. The message names the key and the file."""

    def __init__(self, message: str, *, key: str | None = None, path: str | None = None) -> None:
        where = ", ".join(part for part in (f"key {key!r}" if key else "", path or "") if part)
        super().__init__(f"{message} ({where})" if where else message)
        self.key = key
        self.path = path


class LogIntegrityError(MergegateError):
    """An agent's log (its file, or its shipped copy) is not the content the attempt's row
    recorded (its SHA-256, its size): refused, never shown."""


class UndecidableError(MergegateError):
    """No authoritative answer could be read from an agent after the allowed retries."""

    exit_code = ExitCode.UNDECIDABLE


class HandoffError(UndecidableError):
    """A JSON handoff between components stayed invalid after its retries."""


class AgentError(MergegateError):
    """An agent run failed for infrastructure reasons: timeout, stall, crash, missing CLI."""

    exit_code = ExitCode.AGENT_FAILURE


class EscalationError(MergegateError):
    """A bounded loop hit its cap or stalled; a person must take over."""

    exit_code = ExitCode.ESCALATED


class RunInterruptedError(MergegateError):
    """A person interrupted a run (SIGINT or SIGTERM): its agents were stopped and it was
    recorded as interrupted; `mergegate resume RUN` continues it. The process that raised it
    holds threads that must not go on: the CLI ends the process at once (exit 130)."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self, message: str, *, run_id: str) -> None:
        super().__init__(message)
        self.run_id = run_id


class LogUnavailableError(AgentError):
    """No copy of an agent's log can be read on this host: it is on the host that ran the
    attempt and was not shipped (too large, `gc` deleted the copy, no log recorded), or the
    log store holding its copy is not mounted here."""
