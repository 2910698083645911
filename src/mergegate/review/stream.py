"""A review run's records as typed events (`mergegate.events`), for metrics and the report.

`review_events(run_dir)` reads what `mergegate review` (or the engine's review of a task)
left in a run directory — the last state checkpoint, each attempt's JSON report and process
record, each fix round's record, the summary — and returns the events a live emitter would have
written: one `agent.attempt` per reviewer and fixer run, one `verdict` per reviewer answer, one
`fix.round` per fix, an `escalation` and the `review.finished`. The records are the truth; this
is a read-only view of them. Event ids are derived from the records, so importing twice (or a
live emitter using the same ids) never counts an attempt twice.

The engine can emit a finished review of a task into its run's stream with the task's context:
`for e in review_events(outcome.report_dir, run_id=..., phase=..., unit=..., task=...,
operation=<review folder name>): sink.emit(e)`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mergegate.errors import UsageError
from mergegate.events import (
    AgentAttempt,
    Escalation,
    EventBase,
    FindingRef,
    FixRound,
    Notice,
    ReviewFinished,
    StepProgress,
    VerdictEvent,
)
from mergegate.review.events import EventKind, ReviewEvent
from mergegate.review.ledger import FindingRecord
from mergegate.review.loop import STATE_DIR, load_state
from mergegate.review.state import AttemptSummary, ReviewState, RoundSummary

__all__ = ["is_review_run", "progress_event", "review_events"]

_SUMMARY = "summary.json"
_VALID = ("approve", "fixes", "reject")


def progress_event(event: ReviewEvent, **context: Any) -> StepProgress | Notice:
    """A live `ReviewEvent` as a stream event, message and all (a notice stays a notice; every
    other kind is a `step` named after it). `context` places it (run_id, phase, unit, task).
    The facts — attempts, verdicts, fix rounds — come from `review_events` once the review
    is recorded; these lines are the progress a live view shows."""
    if event.kind is EventKind.NOTICE:
        return Notice(**context, message=event.message)
    return StepProgress(
        **context,
        step=event.kind.value,
        message=event.message,
        round=event.round,
        stage=event.stage,
    )


def is_review_run(path: Path) -> bool:
    """True for a directory holding a review run's state checkpoints."""
    return (path / STATE_DIR).is_dir() and any((path / STATE_DIR).glob("*.json"))


def review_events(
    run_dir: Path,
    *,
    run_id: str | None = None,
    phase: str = "",
    unit: str = "",
    task: str = "",
    operation: str = "",
    include_attempts: bool = True,
    state: ReviewState | None = None,
) -> list[EventBase]:
    """The events of the review run in `run_dir`, in the order they happened.

    `run_id` defaults to the review's own id; `phase`, `unit`, `task` and `operation` place it
    in a plan run. Without `include_attempts`, `agent.attempt` events are left out (for an
    emitter that already wrote them live). `state` is the review's state when the caller holds
    it (the engine keeps it in its steps, not in checkpoint files); else the last checkpoint
    in `run_dir` is read. Raises `UsageError` (exit 2) when there is no state or a record is
    unreadable.
    """
    state = state or load_state(run_dir)
    summary = _read_json(run_dir / _SUMMARY) if (run_dir / _SUMMARY).is_file() else None
    builder = _Builder(
        run_dir,
        state,
        summary,
        {
            "run_id": run_id or state.run_id,
            "phase": phase,
            "unit": unit,
            "task": task,
        },
        operation,
    )
    events = builder.build()
    if not include_attempts:
        events = [e for e in events if not isinstance(e, AgentAttempt)]
    return sorted(events, key=lambda e: e.at)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the review record {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"the review record {path} is not a JSON object")
    return data


def _started(attempt_dir: Path, fallback: datetime, duration: float) -> datetime:
    """When an attempt started: its process record's `started_at`, else its report's time
    minus its duration."""
    record = attempt_dir / "process.json"
    if record.is_file():
        try:
            return datetime.fromtimestamp(float(json.loads(record.read_text())["started_at"]), UTC)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return datetime.fromtimestamp(fallback.timestamp() - duration, UTC)


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def _status_in_round(record: FindingRecord | None, round_no: int) -> str:
    """A finding's status as the ledger recorded it in that round (`reported (open)` → open)."""
    if record is None:
        return ""
    for number, event in record.history:
        if number == round_no and event.startswith("reported (") and ")" in event:
            return event[len("reported (") : event.index(")")]
    return record.status.value


class _Builder:
    def __init__(
        self,
        run_dir: Path,
        state: ReviewState,
        summary: dict[str, Any] | None,
        context: dict[str, str],
        operation: str,
    ) -> None:
        self.run_dir = run_dir
        self.state = state
        self.summary = summary
        self.context = context
        self.operation = operation
        self.ledger = {r.finding.id: r for r in state.ledger.records}
        self.events: list[EventBase] = []

    def _id(self, name: str) -> str:
        c = self.context
        parts = (c["run_id"], c["phase"], c["unit"], c["task"], self.operation, name)
        return "/".join(p for p in parts if p)

    def build(self) -> list[EventBase]:
        for rnd in self.state.rounds:
            for attempt in rnd.attempts:
                self._attempt(rnd, attempt)
            if rnd.fix is not None:
                self._fix(rnd)
        self._finish()
        return self.events

    def _attempt(self, rnd: RoundSummary, summary: AttemptSummary) -> None:
        stem = Path(summary.report).stem
        record = _read_json(self.run_dir / f"{stem}.json")
        agent: dict[str, Any] = record.get("agent") or {}
        ended = _mtime(self.run_dir / f"{stem}.json")
        duration = float(agent.get("duration_s") or 0.0)
        begun = _started(self.run_dir / stem, ended, duration)
        ended = max(ended, begun)
        where = {**self.context, "operation": self.operation, "round": rnd.round}
        where["stage"] = summary.stage
        max_attempts = self._budget(rnd, summary)
        self.events.append(
            _agent_event(
                agent,
                role="reviewer",
                attempt=summary.attempt,
                span=(begun, ended),
                where={**where, "attempt_dir": str(self.run_dir / stem)},
                event_id=self._id(f"{stem}:attempt"),
                max_attempts=max_attempts,
                note=summary.note,
            )
        )
        parsed = record.get("parsed") or {}
        if parsed:
            self.events.append(
                self._verdict(
                    rnd,
                    summary,
                    parsed=parsed,
                    record=record,
                    ended=ended,
                    where=where,
                    max_attempts=max_attempts,
                )
            )

    def _budget(self, rnd: RoundSummary, summary: AttemptSummary) -> int:
        """The attempt budget of a stage is not in the records (0: unknown); an undecidable
        run spent it on the stage of its last attempt, so that stage's attempts were all."""
        last = self.state.rounds[-1]
        undecidable = (self.summary or {}).get("status") == "undecidable"
        if not undecidable or rnd.round != last.round or not last.attempts:
            return 0
        if summary.stage != last.attempts[-1].stage:
            return 0
        return max(a.attempt for a in rnd.attempts if a.stage == summary.stage)

    def _verdict(
        self,
        rnd: RoundSummary,
        summary: AttemptSummary,
        *,
        parsed: dict[str, Any],
        record: dict[str, Any],
        ended: datetime,
        where: dict[str, Any],
        max_attempts: int,
    ) -> VerdictEvent:
        decision = str(parsed.get("decision") or summary.decision)
        evidence = parsed.get("evidence") or {}
        findings = [
            FindingRef(
                id=str(f.get("id")),
                severity=f.get("severity"),
                title=str(f.get("title") or ""),
                file=str(f.get("file") or ""),
                line=f.get("line"),
                status=_status_in_round(self.ledger.get(str(f.get("id"))), rnd.round),
            )
            for f in parsed.get("findings") or []
        ]
        reasons = parsed.get("reasons") or []
        status = record.get("status")
        return VerdictEvent(
            **where,
            event_id=self._id(f"{Path(summary.report).stem}:verdict"),
            at=ended,
            attempt=summary.attempt,
            max_attempts=max_attempts,
            decision=decision,
            dialect=str(parsed.get("dialect") or ""),
            evidence_line=evidence.get("line"),
            evidence=str(evidence.get("text") or ""),
            passes=None if decision not in _VALID else status == "passed",
            reason=str(reasons[0]) if reasons else summary.note,
            review_id=summary.review_id,
            findings=findings,
            findings_total=len(findings),
            answer_via=str(parsed.get("answer_via") or summary.answer_via),
            summary=summary.summary,
            confidence=summary.confidence,
        )

    def _fix(self, rnd: RoundSummary) -> None:
        assert rnd.fix is not None
        path = Path(rnd.fix.report)
        record = _read_json(path) if path.is_file() else {}
        agent: dict[str, Any] = record.get("agent") or {}
        ended = _mtime(path) if path.is_file() else datetime.now(UTC)
        duration = float(agent.get("duration_s") or 0.0)
        begun = _started(path.with_suffix(""), ended, duration)
        where = {**self.context, "operation": self.operation, "round": rnd.round}
        if agent:
            self.events.append(
                _agent_event(
                    agent,
                    role="fixer",
                    attempt=1,
                    span=(begun, max(ended, begun)),
                    where={**where, "stage": "fix", "attempt_dir": str(path.with_suffix(""))},
                    event_id=self._id(f"{path.stem}:attempt"),
                    max_attempts=1,
                )
            )
        fix = rnd.fix
        unchanged = fix.commit is None and fix.error is None
        self.events.append(
            FixRound(
                **where,
                event_id=self._id(f"{path.stem}:fix"),
                at=max(ended, begun),
                source="review",
                findings=fix.findings,
                commit=fix.commit or "",
                ok=fix.commit is not None and fix.error is None,
                error=fix.error or ("the implementer changed nothing" if unchanged else ""),
            )
        )

    def _finish(self) -> None:
        if self.summary is None:
            return
        path = self.run_dir / _SUMMARY
        at = max([_mtime(path), *(e.at for e in self.events)])
        status = str(self.summary.get("status") or "")
        message = str(self.summary.get("message") or "")
        if status == "needs_manual_review":
            self.events.append(
                Escalation(
                    **self.context,
                    event_id=self._id("escalation"),
                    at=at,
                    scope="review",
                    reason=message,
                    package=str(self.run_dir / "escalation"),
                )
            )
        self.events.append(
            ReviewFinished(
                **self.context,
                event_id=self._id("finished"),
                at=at,
                operation=self.operation,
                status=status,
                decision=str(self.summary.get("decision") or "none"),
                rounds=len(self.state.rounds),
                message=message,
            )
        )


def _agent_event(
    agent: dict[str, Any],
    *,
    role: str,
    attempt: int,
    span: tuple[datetime, datetime],
    where: dict[str, Any],
    event_id: str,
    max_attempts: int,
    note: str = "",
) -> AgentAttempt:
    """An attempt from its record's `agent` object (an `AgentResult` dump without the text)."""
    usage = agent.get("usage") or {}
    status = str(agent.get("status") or "error")
    begun, ended = span
    return AgentAttempt(
        **where,
        event_id=event_id,
        at=ended,
        role=role,
        backend=str(agent.get("backend") or "unknown"),
        attempt=attempt,
        max_attempts=max_attempts,
        started_at=begun,
        duration_s=max(0.0, float(agent.get("duration_s") or 0.0)),
        tokens_in=int(usage.get("input_tokens") or 0),
        tokens_out=int(usage.get("output_tokens") or 0),
        cache_read_tokens=int(usage.get("cache_read_tokens") or 0),
        cache_write_tokens=int(usage.get("cache_write_tokens") or 0),
        cost_usd=agent.get("cost_usd"),
        status=status,
        exit_code=agent.get("exit_code"),
        timed_out=status in ("timeout", "stalled"),
        error=str(agent.get("error") or note or ""),
        session_id=str(agent.get("session_id") or ""),
        requested_help=bool(agent.get("signals")),
    )
