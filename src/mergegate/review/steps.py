"""The review loop as steps over a typed state — the API the run engine calls.

A review run is a `ReviewState` (frozen, JSON-round-trippable) moved along by steps::

    state = start_review(ctx)                      # resolve the range, open round 1
    next_ = decide(state, ctx.options)             # pure: what comes next
    while not isinstance(next_, ReviewStop):
        result = run_step(ctx, state, next_)       # review_attempt or fix_round
        state = result.state                       # checkpoint it here
        next_ = result.stop or decide(state, ctx.options)
    outcome = finish_review(ctx, state, next_)     # escalation package, summary

* `decide(state, options)` is pure: it reads only the state, so the same checkpoint always
  leads to the same step. It answers `ReviewAttempt`, `FixRound` or the `ReviewStop` that
  ends the run — stops are values, never exceptions.
* `review_attempt(ctx, state)` runs one reviewer attempt of one stage; `fix_round(ctx, state)`
  runs the implementer and commits its fix. Each returns a `StepResult`: the new state, and
  the stop when this step ended the run. Neither changes the state it was given.
* Steps may run again after a crash (at least once): each agent attempt claims a fresh
  directory under `ctx.run_dir` (`r01-spec-a1/`, or `r01-spec-a1-rerun2/` when a crashed
  run left the first), so a re-run never overwrites a record. `finish_review` writes records
  whose content follows from the state alone, so writing them again is a no-op.

Every record of the run (reports, prompts, raw outputs, agent logs, process records, the
escalation package and the summary) is under `ctx.run_dir`.
"""

from __future__ import annotations

import contextlib

from mergegate.decisions import Decision
from mergegate.errors import UsageError
from mergegate.review._attempt import describe_problem, review_attempt
from mergegate.review._decide import FixRound, NextStep, ReviewAttempt, StepResult, decide
from mergegate.review._fix import fix_round
from mergegate.review.context import ReviewContext, new_run_id
from mergegate.review.events import EventKind
from mergegate.review.ledger import LedgerState
from mergegate.review.reports import escalation_readme, summary_lines
from mergegate.review.state import (
    ReviewOutcome,
    ReviewState,
    ReviewStatus,
    ReviewStop,
    RoundSummary,
)

__all__ = [
    "FixRound",
    "NextStep",
    "ReviewAttempt",
    "ReviewStop",
    "StepResult",
    "decide",
    "describe_problem",
    "finish_review",
    "fix_round",
    "review_attempt",
    "run_step",
    "start_review",
]


def start_review(ctx: ReviewContext, *, run_id: str | None = None) -> ReviewState:
    """The first state of a run over `ctx.options.base..head`, with round 1 open.

    Checks the input before anything is written: raises `UsageError` (exit 2) for an unknown
    ref, an empty range (nothing to review), a spec-only review without a spec, or a run
    directory that already holds files. Then creates `ctx.run_dir`.
    """
    opts = ctx.options
    base = ctx.repo.resolve(opts.base)
    head = ctx.repo.resolve(opts.head)
    if not ctx.repo.diff(base, head).strip():
        raise UsageError(
            f"nothing to review: {opts.base}..{opts.head} ({base[:12]}..{head[:12]}) "
            "changes no file"
        )
    stages = tuple(s for s in opts.stages if s != "spec" or opts.spec)
    if not stages:
        raise UsageError("nothing to review: the only configured stage is spec; pass --spec")
    _create_run_dir(ctx)
    if not opts.spec and "spec" in opts.stages:
        ctx.emit(EventKind.NOTICE, "no --spec given: skipping the spec-compliance stage")
    first = RoundSummary(round=1, base_sha=base, head_sha=head, scoped=False, stages=stages)
    return ReviewState(
        run_id=run_id or new_run_id(),
        base_sha=base,
        head_sha=head,
        rounds=(first,),
        ledger=LedgerState(),
    )


def _create_run_dir(ctx: ReviewContext) -> None:
    run_dir = ctx.run_dir
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the run directory {run_dir}: {exc}") from exc
    with contextlib.suppress(OSError):
        if any(run_dir.iterdir()):
            raise UsageError(f"the run directory already holds files: {run_dir}")


def run_step(ctx: ReviewContext, state: ReviewState, step: ReviewAttempt | FixRound) -> StepResult:
    """Run the step `decide` answered."""
    if isinstance(step, ReviewAttempt):
        return review_attempt(ctx, state)
    return fix_round(ctx, state)


def finish_review(ctx: ReviewContext, state: ReviewState, stop: ReviewStop) -> ReviewOutcome:
    """End the run: the escalation package when a person must decide, then the summary.

    Safe to run again: what it writes follows from `state` and `stop` alone, and an identical
    existing file is kept.
    """
    if stop.status is ReviewStatus.NEEDS_MANUAL_REVIEW:
        ctx.emit(EventKind.ESCALATED, f"escalating to a person: {stop.message}", ok=False)
        _write_escalation(ctx, state, stop.message)
    outcome = ReviewOutcome(
        run_id=state.run_id,
        status=stop.status,
        decision=stop.decision,
        message=stop.message,
        rounds=state.rounds,
        findings=state.ledger.records,
        report_dir=ctx.run_dir,
        outputs=stop.outputs,
        usage=state.usage_totals(),
        sandbox=ctx.options.sandbox.describe() if ctx.options.sandbox is not None else "",
    )
    ctx.writer.write_summary(outcome.to_dict(), summary_lines(outcome))
    ctx.emit(
        EventKind.FINISHED,
        f"{stop.status.value}: {stop.message}",
        round=len(state.rounds),
        ok=stop.decision is Decision.APPROVE and stop.status is ReviewStatus.APPROVED,
    )
    return outcome


def _write_escalation(ctx: ReviewContext, state: ReviewState, why: str) -> None:
    package = "escalation"
    records = state.ledger.records
    writer = ctx.writer
    writer.write_json(f"{package}/open-findings.json", [r.to_dict() for r in records], same_ok=True)
    spans = list(dict.fromkeys((r.base_sha, r.head_sha) for r in state.rounds))
    for i, (base, head) in enumerate(spans, start=1):
        diff = ctx.repo.diff(base, head)
        writer.write_text(f"{package}/diff-{i:02d}.diff", f"# {base}..{head}\n{diff}", same_ok=True)
    writer.write_text(
        f"{package}/README.md", escalation_readme(why, state.run_id, records), same_ok=True
    )
