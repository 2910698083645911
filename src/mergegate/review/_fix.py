"""The step that runs one fix round: the implementer fixes the open findings, mergegate commits
what it changed as one commit, and the next round (the re-review) is opened.

The fix prompt is built only from findings of valid, non-approving verdicts (never from a
malformed review). The implementer's records go under a fresh attempt directory of the run.
"""

from __future__ import annotations

from mergegate.agents.base import AgentRequest, AgentResult, Backend
from mergegate.review._decide import FixRound, StepResult, decide
from mergegate.review._render import render_files, render_findings
from mergegate.review.context import ReviewContext
from mergegate.review.events import EventKind
from mergegate.review.ledger import FindingLedger
from mergegate.review.prompts import RenderedPrompt, load_template
from mergegate.review.state import FixSummary, ReviewState, RoundSummary
from mergegate.verdicts import Finding

__all__ = ["fix_round"]


def fix_round(ctx: ReviewContext, state: ReviewState) -> StepResult:
    """Run the fix round `decide` asks for; return the new state (with the next round opened
    when a fix was committed) and, when the round ended the run, its stop."""
    step = decide(state, ctx.options)
    if not isinstance(step, FixRound):
        raise ValueError(f"the next step of this run is not a fix round: {step!r}")
    rnd = state.current
    findings = _fix_work(state)
    backend, session = _implementer_for(ctx, state)
    prompt = load_template("fix").render(
        findings=render_findings(findings), files=_change_files(ctx, state)
    )
    ctx.emit(
        EventKind.AGENT_STARTED,
        f"round {rnd.round}: asking {backend.name} to fix {len(findings)} finding(s)",
        round=rnd.round,
        stage="fix",
        attempt=1,
    )
    attempt_dir = ctx.writer.claim(f"r{rnd.round:02d}-fix")
    result = backend.run(
        AgentRequest(
            prompt=prompt.text,
            cwd=ctx.repo.root,
            attempt=rnd.round,
            resume_session_id=session,
            attempt_dir=attempt_dir,
            **ctx.options.agent_limits(),
        )
    )
    ctx.emit(
        EventKind.AGENT_FINISHED,
        f"implementer finished ({result.status.value})",
        round=rnd.round,
        stage="fix",
        attempt=1,
        ok=result.ok,
    )
    report = _record(ctx, attempt_dir.name, prompt, findings, result)
    state = state.model_copy(
        update={"implementer_usage": state.implementer_usage.add(result.usage, result.duration_s)}
    )
    ids = tuple(f.id for f in findings)
    if not result.ok:
        fix = FixSummary(findings=ids, report=report, error=result.error or result.status.value)
        return StepResult.after(state.with_round(rnd.model_copy(update={"fix": fix})), ctx.options)
    sha = ctx.repo.commit_all(f"mergegate: fix round {rnd.round}\n\nFindings: {', '.join(ids)}\n")
    fix = FixSummary(findings=ids, report=report, commit=sha)
    state = state.with_round(rnd.model_copy(update={"fix": fix})).model_copy(
        update={"implementer_session": result.session_id}
    )
    if sha is not None:
        ctx.emit(
            EventKind.FIX_COMMITTED,
            f"round {rnd.round}: fix committed as {sha[:12]}",
            round=rnd.round,
            stage="fix",
        )
        state = state.model_copy(update={"rounds": (*state.rounds, _next_round(ctx, state, sha))})
    return StepResult.after(state, ctx.options)


def _fix_work(state: ReviewState) -> tuple[Finding, ...]:
    """The ledger's open blocking findings, else the failing stages' findings."""
    open_ = FindingLedger(state=state.ledger).open_blocking()
    if open_:
        return open_
    rnd = state.current
    progress = [rnd.progress_of(s) for s in rnd.stages]
    return tuple(
        f
        for p in progress
        if p is not None and p.result is not None and not p.result.passes
        for f in p.result.findings
    )


def _next_round(ctx: ReviewContext, state: ReviewState, head: str) -> RoundSummary:
    """The re-review of a fix: only the stages that did not pass, of the fix commit (scoped) or
    of the whole change from its base (full)."""
    rnd = state.current
    scoped = ctx.options.rereview == "scoped"
    failing = tuple(
        s
        for s in rnd.stages
        if (p := rnd.progress_of(s)) is not None and p.result is not None and not p.result.passes
    )
    return RoundSummary(
        round=rnd.round + 1,
        base_sha=rnd.head_sha if scoped else state.base_sha,
        head_sha=head,
        scoped=scoped,
        stages=failing,
    )


def _implementer_for(ctx: ReviewContext, state: ReviewState) -> tuple[Backend, str | None]:
    implementer = ctx.agents.implementer
    if implementer is None:
        raise ValueError("fix mode needs an implementer")
    after = ctx.options.fresh_implementer_after
    if after is not None and state.current.round > after:
        return ctx.agents.fresh_implementer or implementer, None
    return implementer, state.implementer_session


def _change_files(ctx: ReviewContext, state: ReviewState) -> str:
    """Every file the change (all rounds so far) touched, as it is at the current head."""
    head = state.current.head_sha
    paths = ctx.repo.changed_files(state.base_sha, head)
    files = {p: ctx.repo.read_file(head, p) for p in paths}
    return render_files(files, size_limit=ctx.options.diff_size_limit)


def _record(
    ctx: ReviewContext,
    stem: str,
    prompt: RenderedPrompt,
    findings: tuple[Finding, ...],
    result: AgentResult,
) -> str:
    path = ctx.writer.write_json(
        f"{stem}.json",
        {
            "template": f"{prompt.template}.v{prompt.version}",
            "template_sha256": prompt.template_sha256,
            "findings": [f.id for f in findings],
            "prompt": prompt.text,
            "agent": result.model_dump(mode="json"),
        },
    )
    return str(path)
