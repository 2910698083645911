"""The ONE adapter between the run engine and the review machinery.

`review_task` reviews one task's commit (base = the task's start commit, head = its commit,
spec = the task block) with `mergegate.review.ReviewLoop`, and, in auto mode, drives its fix
rounds. The loop's agent runs and fix commits go through `DurableBackend` and
`DurableRepository`, so each reviewer attempt and each fix round is its own recorded step: a
crash in round 2 replays round 1 from the record and re-runs only what was in flight.

When the review steps over a serialisable state land (the engine-ready-structure issue), this
function is the only place to switch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from mergegate.engine._runtime import current
from mergegate.engine._steps import Cursor, DurableBackend, DurableRepository
from mergegate.engine.events import RunEvent
from mergegate.review import GatePolicy, ReviewEvent, ReviewLoop, ReviewOptions, ReviewStatus

__all__ = ["TaskReview", "review_task"]


@dataclass(frozen=True)
class TaskReview:
    """What the engine needs from one review of a task."""

    status: str
    """A `ReviewStatus` value."""
    message: str
    head: str
    """The commit the last round reviewed (after the loop's fix commits)."""
    rounds: int
    open_findings: list[dict[str, Any]]
    report_dir: str
    outcome: dict[str, Any]

    @property
    def approved(self) -> bool:
        return self.status == ReviewStatus.APPROVED.value


def _options(cursor: Cursor, base: str, spec: str, fix: bool, max_rounds: int) -> ReviewOptions:
    rt = current()
    review = rt.config.review
    return ReviewOptions(
        base=base,
        head=cursor.head,
        spec=spec,
        fix=fix,
        max_rounds=max_rounds,
        malformed_retries=review.malformed_retries,
        policy=GatePolicy.from_names(
            with_fixes_blocks=review.policy.with_fixes_blocks,
            blocking_severities=[str(s) for s in review.policy.blocking_severities],
            minor_blocks=review.policy.minor_blocks,
        ),
        defer_out_of_scope=review.defer_out_of_scope,
        diff_size_limit=review.diff_size_limit,
        timeout_s=rt.options.agent_timeout_s,
        stall_timeout_s=rt.options.stall_timeout_s,
        rereview=review.rereview,
        stages=tuple(review.stages),
    )


def _review_name(cursor: Cursor) -> str:
    """A report folder name not used yet (a review replayed after a crash writes anew)."""
    name, n = "review", 1
    while (cursor.task_dir / name).exists():
        n += 1
        name = f"review.{n}"
    return name


def _nonce(cursor: Cursor) -> str:
    """The next review nonce: derived from the run's secret salt, so a replayed review asks
    for (and parses its recorded answer with) the same id."""
    cursor.nonces += 1
    salt = current().record.salt
    digest = hashlib.sha256(f"{salt}:{cursor.key}:{cursor.nonces}".encode()).hexdigest()
    return f"mg-{digest[:16]}"


def _forward(cursor: Cursor) -> Any:
    rt = current()

    def on_event(event: ReviewEvent) -> None:
        step = "fix" if event.stage == "fix" else "review"
        rt.events.emit(
            RunEvent(
                "step",
                event.message,
                phase=cursor.phase,
                unit=cursor.unit,
                task=cursor.task,
                step=step,
            )
        )

    return on_event


def review_task(cursor: Cursor, *, base: str, spec: str, fix: bool, max_rounds: int) -> TaskReview:
    """Review the task's commit `base..cursor.head` against `spec`; with `fix`, run the
    bounded fix rounds. Advances `cursor.head` past the loop's fix commits."""
    rt = current()
    assert rt.reviewer is not None
    reviewer = DurableBackend("reviewer", rt.reviewer.name, rt.reviewer.capabilities, cursor)
    implementer = DurableBackend(
        "implementer", rt.implementer.name, rt.implementer.capabilities, cursor
    )
    loop = ReviewLoop(
        DurableRepository(cursor, amend=rt.options.fix_commits == "amend"),
        reviewer,
        _options(cursor, base, spec, fix, max_rounds),
        report_root=cursor.task_dir,
        implementer=implementer if fix else None,
        events=_forward(cursor),
        run_id=_review_name(cursor),
        new_review_id=lambda: _nonce(cursor),
    )
    outcome = loop.run()
    head = outcome.rounds[-1].head_sha if outcome.rounds else cursor.head
    open_findings = [f.to_dict() for f in outcome.findings if f.status.value == "open"]
    return TaskReview(
        status=outcome.status.value,
        message=outcome.message,
        head=head,
        rounds=len(outcome.rounds),
        open_findings=open_findings,
        report_dir=str(outcome.report_dir),
        outcome=outcome.to_dict(),
    )
