"""The one place this package emits events: plain JSON objects, not the typed stream.

Events go to the `EventSink` of the `HandoffRecorder` a step is given — `<run_dir>/events.jsonl`
as they are with `HandoffRecorder.for_run` — beside the `handoff.attempt` and
`handoff.finished` events of the retry loop. In `mergegate run` the engine's recorder
(`mergegate.engine._steps.implementer_turn.run_recorder`) turns the kinds `mergegate.events`
has into typed events (handoff attempts and ends, `advice.attempt` as `help.advice`,
`help.discrepancy` as a warning `notice`) and drops the others, whose facts are in the attempt
and consultation records.

Every event is a flat JSON object with `type`, `level` (`info` or `warning`), `timestamp` and
the fields below. Values quote agent output (contexts, errors): renderers must escape them.

* `result.collected` (info; warning unless recovered): task_id, status, attempts, session_id,
  requested_help
* `help.discrepancy` (warning): task_id, source, note — the stream and the JSON disagree
* `advice.attempt` (info; warning when it failed): task_id, request, advisor, attempt,
  max_attempts, result, error_type, error
* `advice.finished` (info; warning when no advisor answered): task_id, request, action,
  advised_by, failed
* `advice.resumed` (info): task_id, request, attempts (per advisor, from the state file)
* `handoff.finished` (component `advisor`, handoff_type `advice`): one per advisor, as the retry
  loop emits for other handoffs
* `advice.leftover_killed` (warning): task_id, advisor, pid
* `result.leftover_killed` (warning): task_id, attempt, pid — an agent a crash left running
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal

from mergegate.handoff import HandoffRecorder

__all__ = ["emit"]


def emit(
    recorder: HandoffRecorder,
    kind: str,
    *,
    level: Literal["info", "warning"] = "info",
    clock: Callable[[], datetime] | None = None,
    **fields: Any,
) -> None:
    """Send one event of type `kind` through `recorder` (nothing when it has no sink)."""
    now = (clock or _utcnow)()
    recorder.emit({"type": kind, "level": level, "timestamp": now.isoformat(), **fields})


def _utcnow() -> datetime:
    return datetime.now(UTC)
