"""Run directories with event streams, for the stats, report and browser tests.

`plan_run` writes what a plan run's engine would emit (phases, units, tasks, implementer and
reviewer attempts, verdicts, checks, a fix round, a merge); `HOSTILE` is agent text that tries
every way of running something in a page.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from mergegate.events import (
    AgentAttempt,
    CheckRun,
    EventBase,
    EventLog,
    FindingRef,
    FixRound,
    HelpAdvice,
    HelpRequested,
    MergeResult,
    PhaseFinished,
    PhaseStarted,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    UnitMerged,
    UnitStarted,
    VerdictEvent,
    VerificationEvent,
)

__all__ = ["HOSTILE", "T0", "plan_run", "write_run"]

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

HOSTILE = (
    "<script>document.title='PWNED';console.log('PWNED-script')</script>"
    "<img src=x onerror=\"console.log('PWNED-img');"
    "document.body.appendChild(document.createElement('pwned'))\">"
    "[click me](javascript:console.log('PWNED-link')) <a href=\"javascript:alert(1)\">x</a>"
    "<svg onload=\"console.log('PWNED-svg')\"></svg></title></style></textarea>"
    "<iframe src=\"javascript:console.log('PWNED-frame')\"></iframe>"
    "\"'><body onload=console.log('PWNED-body')>]]><!--"
)


def write_run(state_dir: Path, run_id: str, events: list[EventBase]) -> Path:
    run_dir = state_dir / "runs" / run_id
    log = EventLog.in_run_dir(run_dir, fsync=False)
    for event in events:
        log.emit(event)
    return run_dir


def plan_run(
    run_id: str,
    *,
    tasks: int = 3,
    reviews_per_task: int = 2,
    start: datetime = T0,
    text: str = "",
) -> list[EventBase]:
    """One phase, one unit per task; each task: an implementer attempt, `reviews_per_task`
    reviewer attempts (malformed first when there are two or more, then approve), a check.
    `text` goes into every field that carries agent or plan text."""
    now = start
    events: list[EventBase] = [RunStarted(run_id=run_id, at=now, plan=f"plan {text}")]
    events.append(PhaseStarted(run_id=run_id, phase="01", name=f"phase {text}", at=now))

    def tick(seconds: float) -> datetime:
        nonlocal now
        now += timedelta(seconds=seconds)
        return now

    for n in range(1, tasks + 1):
        where = {"run_id": run_id, "phase": "01", "unit": f"u{n}{text[:20]}", "task": f"T{n}"}
        events.append(UnitStarted(**{**where, "task": ""}, at=now, name=text))
        events.append(TaskStarted(**where, at=now, name=f"task {text}", number=n))
        begun = now
        events.append(
            AgentAttempt(
                **where,
                role="implementer",
                backend="claude",
                model="sonnet",
                started_at=begun,
                at=tick(20),
                duration_s=20,
                status="ok",
                tokens_in=1000 * n,
                tokens_out=200,
                cost_usd=0.01 * n,
                error=text,
                requested_help=bool(text),
            )
        )
        if text:
            events.append(HelpRequested(**where, at=now, context=text))
            events.append(
                HelpAdvice(**where, advisor="local", status="ok", guidance=text, at=tick(1))
            )
        events.append(
            CheckRun(**where, command=f"pytest -q {text}", passed=True, duration_s=2, at=tick(2))
        )
        for attempt in range(1, reviews_per_task + 1):
            begun = now
            decision = "approve" if attempt == reviews_per_task else "malformed"
            events.append(
                AgentAttempt(
                    **where,
                    role="reviewer",
                    backend="local",
                    round=1,
                    stage="quality",
                    attempt=attempt,
                    max_attempts=reviews_per_task,
                    started_at=begun,
                    at=tick(10),
                    duration_s=10,
                    status="ok",
                    tokens_in=3000,
                    tokens_out=300,
                )
            )
            events.append(
                VerdictEvent(
                    **where,
                    round=1,
                    stage="quality",
                    attempt=attempt,
                    max_attempts=reviews_per_task,
                    decision=decision,
                    dialect="superpowers" if decision == "approve" else "",
                    evidence_line=12,
                    evidence=f"Ready to merge? Yes {text}",
                    reason=text,
                    findings=[
                        FindingRef(
                            id="F-abc123",
                            severity="minor",
                            title=f"nit {text}",
                            file=f"src/{text}.py",
                            line=3,
                            status="advisory",
                        )
                    ],
                    at=now,
                )
            )
        if text:
            events.append(FixRound(**where, round=1, findings=("F-abc123",), error=text, at=now))
        events.append(TaskFinished(**where, decision="approved", at=now))
        events.append(
            MergeResult(
                **{**where, "task": ""}, into="main", outcome="merged", commit="c0ffee", at=tick(1)
            )
        )
        events.append(UnitMerged(**{**where, "task": ""}, into="main", commit="c0ffee", at=now))
    events.append(
        VerificationEvent(
            run_id=run_id,
            phase="01",
            status="passed",
            criteria=3,
            passed=3,
            reason=text,
            at=tick(3),
        )
    )
    events.append(PhaseFinished(run_id=run_id, phase="01", status="completed", at=now))
    events.append(RunFinished(run_id=run_id, status="completed", message=text, at=tick(1)))
    return events
