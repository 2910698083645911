"""The agent-result collection's file, written and read back with retries (seed 002's
"Agent Result Write" and "Agent Result Read": no retry was the critical gap).

A transient I/O error — any `OSError` but a missing file (EIO, EAGAIN, ESTALE on a network
filesystem, a full disk that frees up) — is tried again, at most `IO_ATTEMPTS` times in all,
with a short doubling wait (`backoff_delay`, jittered like every retry). What was read is
validated after the read succeeds: an invalid or tampered file is not transient and is never
read again in the hope it changes. Each failure is reported as a `handoff.attempt` event of
its own type — `agent-result.read` or `agent-result.write` — and the outcome as
`handoff.finished`, so the metrics count read failures apart from write failures, and both
apart from the agent's invalid JSON (`agent-result`). A read or write that succeeds at once
reports nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from mergegate.errors import UsageError
from mergegate.handoff import backoff_delay

__all__ = ["IO_ATTEMPTS", "IoReport", "io_retried"]

IO_ATTEMPTS = 3
_DELAY_S = 0.05
_MAX_DELAY_S = 1.0  # a ceiling the few retries never reach: the waits just double

T = TypeVar("T")
IoReport = Callable[[Mapping[str, Any]], None]
"""Takes one plain handoff event (`handoff.attempt` / `handoff.finished`), as a
`HandoffRecorder.emit` does."""


def io_retried(
    op: Literal["read", "write"],
    path: Path,
    action: Callable[[], T],
    *,
    report: IoReport | None = None,
    sleep: Callable[[float], object],
) -> T:
    """`action()` (which reads or writes `path`), tried again on a transient I/O error."""
    failed = 0
    for attempt in range(1, IO_ATTEMPTS + 1):
        try:
            value = action()
        except (OSError, UsageError) as exc:
            cause = exc if isinstance(exc, OSError) else exc.__cause__
            if not isinstance(cause, OSError) or isinstance(cause, FileNotFoundError):
                raise
            failed += 1
            _event(report, op, path, attempt, error=cause)
            if attempt == IO_ATTEMPTS:
                _finished(report, op, path, attempt, "fatal")
                raise
            jitter = random.random()  # noqa: S311 - spreads retries out; nothing secret
            sleep(backoff_delay(attempt, jitter, base=_DELAY_S, cap=_MAX_DELAY_S))
            continue
        if failed:
            _event(report, op, path, attempt, error=None)
            _finished(report, op, path, attempt, "recovered")
        return value
    raise AssertionError("unreachable")  # pragma: no cover


def _common(op: str, path: Path) -> dict[str, Any]:
    return {
        "handoff_type": f"agent-result.{op}",
        "component": "orchestrator",
        "session_id": path.parent.name,
        "timestamp": datetime.now(UTC).isoformat(),
        "max_attempts": IO_ATTEMPTS,
    }


def _event(
    report: IoReport | None, op: str, path: Path, attempt: int, *, error: OSError | None
) -> None:
    if report is None:
        return
    failure: dict[str, Any] = {}
    if error is not None:
        failure = {"error_type": "io", "error": f"{path.name}: {error.strerror or error}"}
    report(
        {
            "type": "handoff.attempt",
            **_common(op, path),
            "attempt": attempt,
            "result": "failure" if error is not None else "success",
            **failure,
        }
    )


def _finished(report: IoReport | None, op: str, path: Path, attempts: int, status: str) -> None:
    if report is not None:
        report(
            {
                "type": "handoff.finished",
                **_common(op, path),
                "final_status": status,
                "attempts": attempts,
                "error_type": "io" if status == "fatal" else "",
            }
        )
