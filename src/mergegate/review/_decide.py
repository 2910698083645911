"""What comes next in a review run, decided from its state alone (pure: no I/O, no clock).

This is the review's workflow logic, kept apart from the steps that do the work (reviewer
attempts, fix rounds), the way durable engines split a workflow from its activities: given
the same state and options, `decide` always answers the same, so a run continued from a
checkpoint goes on exactly as the interrupted one would have.
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.review.ledger import FindingLedger, FindingStatus
from mergegate.review.options import ReviewOptions
from mergegate.review.state import (
    ReviewState,
    ReviewStatus,
    ReviewStop,
    RoundSummary,
    StageProgress,
    StageResult,
)

__all__ = ["FixRound", "NextStep", "ReviewAttempt", "StepResult", "decide"]


@dataclass(frozen=True)
class ReviewAttempt:
    """Next: reviewer attempt `attempt` of `stage` in round `round` (`steps.review_attempt`)."""

    round: int
    stage: str
    attempt: int


@dataclass(frozen=True)
class FixRound:
    """Next: the fix round of round `round` (`steps.fix_round`)."""

    round: int


NextStep = ReviewAttempt | FixRound | ReviewStop
"""What `decide` answers: a step to run, or how the run ends."""


@dataclass(frozen=True)
class StepResult:
    """What a step returns: the new state, and the run's end when this step decided it."""

    state: ReviewState
    stop: ReviewStop | None = None

    @classmethod
    def after(cls, state: ReviewState, options: ReviewOptions) -> StepResult:
        next_ = decide(state, options)
        return cls(state, next_ if isinstance(next_, ReviewStop) else None)


def decide(state: ReviewState, options: ReviewOptions) -> NextStep:
    """The next step of the run in `state`, or the `ReviewStop` that ends it."""
    rnd = state.current
    for stage in rnd.stages:
        progress = rnd.progress_of(stage)
        if progress is None:
            return ReviewAttempt(rnd.round, stage, 1)
        if progress.result is None:
            return _unfinished_stage(rnd, progress, options)
    if rnd.fix is not None:
        return _after_fix(rnd)
    results = {s: _result(rnd, s) for s in rnd.stages}
    ledger = FindingLedger(state=state.ledger)
    failing = [s for s in rnd.stages if not results[s].passes]
    if not failing and not ledger.open_blocking():
        return ReviewStop(
            status=ReviewStatus.APPROVED, decision=Decision.APPROVE, message=_approved(ledger)
        )
    return _why_not_fix(rnd.round, results, failing, ledger, options) or FixRound(rnd.round)


def _result(rnd: RoundSummary, stage: str) -> StageResult:
    progress = rnd.progress_of(stage)
    assert progress is not None
    assert progress.result is not None
    return progress.result


def _unfinished_stage(
    rnd: RoundSummary, progress: StageProgress, options: ReviewOptions
) -> NextStep:
    stage = progress.stage
    if progress.failure is not None:
        if progress.failure_kind == "token_limit":
            return _escalate(f"{stage} reviewer: {progress.failure}")
        return ReviewStop(
            status=ReviewStatus.AGENT_FAILED,
            decision=Decision.MALFORMED,
            message=f"{stage} reviewer: {progress.failure}",
            outputs=progress.outputs[-1:],
        )
    if progress.resend or progress.unusable < 1 + max(0, options.malformed_retries):
        return ReviewAttempt(rnd.round, stage, progress.attempts + 1)
    last = [a for a in rnd.attempts if a.stage == stage][-1]
    decision = Decision(last.decision)
    return ReviewStop(
        status=ReviewStatus.UNDECIDABLE,
        decision=decision,
        message=f"{stage} review failed {progress.unusable} times with {decision.value} "
        "output; the reviewer may not be following the template — check the reviewer and "
        "re-run",
        outputs=progress.outputs,
    )


def _after_fix(rnd: RoundSummary) -> ReviewStop:
    """A fix round that opened no next round: the implementer failed or changed nothing."""
    assert rnd.fix is not None
    if rnd.fix.error is not None:
        return ReviewStop(
            status=ReviewStatus.AGENT_FAILED,
            decision=Decision.FIXES,
            message=f"implementer failed in round {rnd.round}: {rnd.fix.error}",
        )
    return _escalate("the implementer changed nothing")


def _why_not_fix(
    round_no: int,
    results: dict[str, StageResult],
    failing: list[str],
    ledger: FindingLedger,
    options: ReviewOptions,
) -> ReviewStop | None:
    """Why the run ends here instead of fixing, or None to go on with a fix round."""
    worst = (
        Decision.REJECT
        if any(results[s].decision is Decision.REJECT for s in failing)
        else Decision.FIXES
    )
    status = ReviewStatus.REJECTED if worst is Decision.REJECT else ReviewStatus.CHANGES_REQUESTED
    reasons = "; ".join(f"{s}: {results[s].reason}" for s in failing)
    if not options.fix:
        return ReviewStop(status=status, decision=worst, message=reasons)
    if not (ledger.open_blocking() or any(results[s].findings for s in failing)):
        message = f"{reasons}; the reviewer listed no findings, so there is nothing to fix"
        return ReviewStop(status=status, decision=worst, message=message)
    if round_no > 1 and (stall := ledger.stall_reason(round_no)):
        return _escalate(f"revision loop stalled: {stall}")
    if round_no >= options.max_rounds:
        return _escalate(f"revision cap reached ({options.max_rounds} rounds)")
    return None


def _escalate(why: str) -> ReviewStop:
    return ReviewStop(status=ReviewStatus.NEEDS_MANUAL_REVIEW, decision=Decision.FIXES, message=why)


def _approved(ledger: FindingLedger) -> str:
    deferred = [r for r in ledger.records if r.status is FindingStatus.DEFERRED]
    if not deferred:
        return "approved"
    ids = ", ".join(r.finding.id for r in deferred)
    return f"approved; {len(deferred)} out-of-scope finding(s) deferred for later: {ids}"
