"""The step that runs one reviewer attempt of one stage and folds its verdict into the state.

The reviewer answers with the verdict object (`mergegate.verdicts.VerdictObject`), asked for
through the backend's strongest mechanism (`AgentRequest.answer_schema`, with this attempt's
`review_id` and the review's `scope` pinned); the decision is `decide_object` — prose is never
read. A malformed or empty answer is recorded (the next attempt retries it in the same session
with the validation error fed back); a valid verdict is gated by the policy, which can only
refuse what the object's approval rule approved, and recorded in the ledger;
a failed reviewer run is recorded and ends the run (`decide` says so). Every attempt writes its
records under a fresh attempt directory of the run and never overwrites one.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Any

from mergegate.agents import FailureKind, failure_kind
from mergegate.agents.answers import answer_schema, final_message_answer
from mergegate.agents.base import AgentRequest, AgentResult, StructuredAnswer
from mergegate.decisions import Decision
from mergegate.handoff import backoff_delay, store_record
from mergegate.review._decide import ReviewAttempt, StepResult, decide
from mergegate.review._render import (
    CONVENTION_FILES,
    render_changes,
    render_conventions,
    render_findings,
)
from mergegate.review.context import ReviewContext
from mergegate.review.events import EventKind
from mergegate.review.ledger import FindingLedger, FindingStatus, LedgerState
from mergegate.review.options import ReviewOptions
from mergegate.review.policy import GatePolicy, StageGate, gate_stage
from mergegate.review.prompts import RenderedPrompt, load_template
from mergegate.review.reports import AttemptReport
from mergegate.review.state import (
    AttemptSummary,
    ReviewState,
    RoundSummary,
    StageProgress,
    StageResult,
)
from mergegate.verdicts import (
    Finding,
    ObjectDecision,
    Severity,
    Verdict,
    VerdictObject,
    VerdictRequest,
    decide_object,
)

__all__ = ["describe_problem", "review_attempt"]

STAGE_TEMPLATES = {"spec": "spec-review", "quality": "quality-review"}
VERDICT_FILE = "verdict.json"
"""Each reviewer attempt's handoff record, in the common envelope, in its folder."""
CONVENTIONS_SIZE_LIMIT = 8_000
"""Bytes of the project's convention files a quality prompt carries at most."""
REVIEW_ID_ENV = "MERGEGATE_REVIEW_ID"
"""The environment variable that carries a reviewer attempt's `review_id`."""
REVIEW_SCOPE_ENV = "MERGEGATE_REVIEW_SCOPE"
"""The environment variable that carries the `scope` a reviewer's verdict object must name."""


def describe_problem(verdict: Verdict) -> str:
    """Why a review could not be used, in the words the retry prompt gives the reviewer."""
    if verdict.decision is Decision.EMPTY:
        return "no output (answer with the verdict object)"
    reason = verdict.reasons[0] if verdict.reasons else "no verdict object found"
    return f"the answer is not a usable verdict object: {reason}"


@dataclass(frozen=True)
class _Asked:
    """One reviewer attempt: what was asked, where its records go, and what came back."""

    step: ReviewAttempt
    stem: str
    review_id: str
    prompt: RenderedPrompt
    result: AgentResult
    diff_only: bool = False
    """The prompt carried the diff alone (the affected files left out)."""


def review_attempt(ctx: ReviewContext, state: ReviewState) -> StepResult:
    """Run the next reviewer attempt (`decide` must answer a `ReviewAttempt`); return the new
    state and, when this attempt ended the run (agent failure, retries spent), its stop."""
    step = decide(state, ctx.options)
    if not isinstance(step, ReviewAttempt):
        raise ValueError(f"the next step of this run is not a reviewer attempt: {step!r}")
    rnd = state.current
    if not rnd.progress:
        ctx.emit(EventKind.ROUND_STARTED, _round_message(rnd), round=rnd.round)
    progress = rnd.progress_of(step.stage) or StageProgress(stage=step.stage)
    changes, files, diff_only = _changes(
        ctx, rnd, notice=step.attempt == 1, trimmed=progress.trimmed
    )
    asked = _ask(ctx, state, step, progress, changes)
    asked = replace(asked, diff_only=diff_only)
    if not asked.result.ok:
        return StepResult.after(_failed(ctx, state, asked, progress), ctx.options)
    decided = _decide(ctx, asked)
    verdict = decided.verdict()
    summary = _write_attempt(ctx, state, asked, verdict, note="", decided=decided)
    rnd = rnd.model_copy(update={"attempts": (*rnd.attempts, summary)})
    if verdict.decision.is_verdict:
        new = _judged(ctx, state.with_round(rnd), asked, verdict, files)
    else:
        new = state.with_round(_unusable(ctx, rnd, asked, verdict, progress))
    return StepResult.after(new, ctx.options)


def _ask(
    ctx: ReviewContext,
    state: ReviewState,
    step: ReviewAttempt,
    progress: StageProgress,
    changes: str,
) -> _Asked:
    reviewer = ctx.agents.reviewer
    rnd = state.current
    review_id = ctx.new_review_id()
    # A retry resumes the reviewer's session with the problem fed back; a backend without
    # sessions gets a fresh, complete dispatch instead.
    session = progress.session_id if reviewer.capabilities.sessions else None
    scope = ctx.options.scope
    if step.attempt > 1 and session is not None and not progress.resend:
        prompt = load_template("retry").render(
            problem=progress.problem, review_id=review_id, scope=scope
        )
    else:
        session = None
        prompt = _stage_prompt(ctx, state, step.stage, changes, review_id)
    ctx.emit(
        EventKind.AGENT_STARTED,
        f"round {rnd.round}: {step.stage} review, attempt {step.attempt} ({reviewer.name})",
        round=rnd.round,
        stage=step.stage,
        attempt=step.attempt,
    )
    attempt_dir = ctx.writer.claim(f"r{rnd.round:02d}-{step.stage}-a{step.attempt}")
    # The reviewer works in a throwaway checkout of the commit under review: the user's
    # working tree and .git are out of its reach, and are checked unchanged all the same.
    with ctx.repo.checkout(rnd.head_sha) as checkout:
        request = AgentRequest(
            prompt=prompt.text,
            cwd=checkout,
            protected_repos=(ctx.repo.root,),
            read_only=True,
            kept_snapshots=ctx.snapshots,
            attempt=step.attempt,
            resume_session_id=session,
            # The nonce and scope the verdict object must carry, for programs (`command`
            # agents) that answer without reading the prompt's words; it is a review concept,
            # so the agent layer only passes it on like any variable.
            env={REVIEW_ID_ENV: review_id, REVIEW_SCOPE_ENV: scope},
            attempt_dir=attempt_dir,
            # The answer is the verdict object, by the backend's strongest mechanism (Claude
            # Code --json-schema, Codex --output-schema, a strict response_format, a grammar
            # for the local model, else the final message alone); the id and scope pinned.
            answer_schema=answer_schema(
                "verdict", VerdictObject, {"review_id": review_id, "scope": scope}
            ),
            **ctx.options.agent_limits(),
        )
        result = reviewer.run(request)
    ctx.emit(
        EventKind.AGENT_FINISHED,
        f"{step.stage} reviewer finished ({result.status.value})",
        round=rnd.round,
        stage=step.stage,
        attempt=step.attempt,
        ok=result.ok,
    )
    return _Asked(step, attempt_dir.name, review_id, prompt, result)


def _decide(ctx: ReviewContext, asked: _Asked) -> ObjectDecision:
    """The decision from the answer the backend's mechanism delivered (a backend that knows no
    mechanism: its final message, which must be the object alone). Prose is never read."""
    answer = _answer_of(asked.result)
    request = VerdictRequest(
        asked.review_id, ctx.options.scope, blocking_from=ctx.options.policy.blocking_from
    )
    if answer.problem is not None:
        return ObjectDecision(Decision.MALFORMED, answer.problem)
    return decide_object(answer.text, request)


def _answer_of(result: AgentResult) -> StructuredAnswer:
    return result.answer if result.answer is not None else final_message_answer(result.text)


def _failed(
    ctx: ReviewContext, state: ReviewState, asked: _Asked, progress: StageProgress
) -> ReviewState:
    """A reviewer run that failed: recorded; run again when it failed by transport (with a
    backoff, while `transport_retries` last) or hit the token limit with the affected files
    in its prompt (once, with the diff alone); else the stage ends with the failure."""
    result = asked.result
    why = result.error or result.status.value
    kind = None if result.worktree_changed else failure_kind(result)
    if result.worktree_changed:
        why = (
            "the reviewer changed the working tree (a read-only run may not); attempt void"
            f" ({result.error})"  # which files: a planted hook, .git/config, …
        )
    progress = progress.model_copy(
        update={"attempts": asked.step.attempt, "outputs": (*progress.outputs, result.text)}
    )
    again = _again(ctx, asked, progress, kind, why)
    note = f"{kind}: {why}" if kind else why
    summary = _write_attempt(ctx, state, asked, None, note=note)
    if again is not None:
        return state.with_round(_with_progress(state.current, again, summary))
    if kind == "token_limit":
        why = (
            f"token limit: the request does not fit the reviewer's context even with the diff "
            f"alone ({why}); review a smaller change, or use a reviewer with a larger context"
        )
    failed = progress.model_copy(update={"failure": why, "failure_kind": kind or ""})
    return state.with_round(_with_progress(state.current, failed, summary))


def _again(
    ctx: ReviewContext,
    asked: _Asked,
    progress: StageProgress,
    kind: FailureKind | None,
    why: str,
) -> StageProgress | None:
    """The stage's progress when the failed run is to be run again (after the backoff a
    transport failure waits out), or None when the failure ends the stage."""
    step, rnd = asked.step, asked.step.round
    options = ctx.options
    if kind == "transport" and progress.transport_failures < options.transport_retries:
        n = progress.transport_failures + 1
        delay = _backoff(options, n)
        ctx.emit(
            EventKind.RETRY,
            f"{step.stage} reviewer failed by transport ({why}) — retry {n} of "
            f"{options.transport_retries} in {delay:.1f} s (not a malformed answer)",
            round=rnd,
            stage=step.stage,
            attempt=step.attempt,
        )
        time.sleep(delay)
        return progress.model_copy(update={"transport_failures": n, "resend": True})
    if kind == "token_limit" and not progress.trimmed and not asked.diff_only:
        ctx.emit(
            EventKind.RETRY,
            f"{step.stage} reviewer hit its token limit ({why}) — retrying once with the "
            "diff alone",
            round=rnd,
            stage=step.stage,
            attempt=step.attempt,
        )
        return progress.model_copy(update={"trimmed": True, "resend": True})
    return None


def _backoff(options: ReviewOptions, retry: int) -> float:
    """Seconds before the `retry`-th transport retry: doubling from the base, capped, with
    "equal jitter" (half to all of it)."""
    jitter = random.random()  # noqa: S311 - spreads retries out; nothing secret
    return backoff_delay(retry, jitter, base=options.backoff_base_s, cap=options.backoff_max_s)


def _unusable(
    ctx: ReviewContext,
    rnd: RoundSummary,
    asked: _Asked,
    verdict: Verdict,
    progress: StageProgress,
) -> RoundSummary:
    """A malformed or empty answer: recorded, to be retried while retries are left."""
    step = asked.step
    problem = describe_problem(verdict)
    attempts = 1 + max(0, ctx.options.malformed_retries)
    if step.attempt < attempts:
        again = "retrying once" if attempts == 2 else f"retrying ({attempts - step.attempt} left)"
        ctx.emit(
            EventKind.RETRY,
            f"{step.stage} review output {problem} — {again}",
            round=rnd.round,
            stage=step.stage,
            attempt=step.attempt,
        )
    progress = progress.model_copy(
        update={
            "attempts": step.attempt,
            "session_id": asked.result.session_id,
            "problem": problem,
            "outputs": (*progress.outputs, asked.result.text),
            "resend": False,
        }
    )
    return _with_progress(rnd, progress)


def _judged(
    ctx: ReviewContext,
    state: ReviewState,
    asked: _Asked,
    verdict: Verdict,
    files: frozenset[str],
) -> ReviewState:
    """A valid verdict: gated by the policy, folded into the ledger, the stage done."""
    step, rnd = asked.step, state.current
    if step.attempt > 1:
        ctx.emit(
            EventKind.NOTICE,
            f"{step.stage} review: {verdict.decision.value} (retry succeeded)",
            round=rnd.round,
            stage=step.stage,
            attempt=step.attempt,
        )
    gate = _only_approval_passes(verdict, gate_stage(verdict, ctx.options.policy))
    ledger = FindingLedger(defer_out_of_scope=ctx.options.defer_out_of_scope, state=state.ledger)
    status = ledger.record_review(
        round=rnd.round,
        stage=step.stage,
        findings=gate.findings,  # as the policy saw them: architectural ones capped
        blocking_ids=frozenset(f.id for f in gate.blocking),
        scope_files=files if rnd.scoped else None,
    )
    gate = _with_deferral(verdict, gate, status)
    _notice_many_warnings(ctx, rnd.round, state.ledger, ledger.state())
    ctx.emit(
        EventKind.STAGE_RESULT,
        f"{step.stage} review: {verdict.decision.value} — {gate.reason}",
        round=rnd.round,
        stage=step.stage,
        ok=gate.passes,
        details=tuple(_finding_line(f, status[f.id].value) for f in gate.findings),
    )
    result = StageResult(
        decision=verdict.decision, passes=gate.passes, reason=gate.reason, findings=verdict.findings
    )
    progress = (rnd.progress_of(step.stage) or StageProgress(stage=step.stage)).model_copy(
        update={"attempts": step.attempt, "result": result}
    )
    new = state.with_round(_with_progress(rnd, progress))
    return new.model_copy(update={"ledger": ledger.state()})


def _warnings(ledger: LedgerState) -> int:
    return sum(1 for r in ledger.records if r.finding.severity is Severity.IMPORTANT)


def _notice_many_warnings(
    ctx: ReviewContext, round: int, before: LedgerState, after: LedgerState
) -> None:
    """Seed 004: "4+ warnings in a single task: log a notice that accumulated warnings are
    high" — once, when this review's findings bring the task's count to the threshold. The
    notice never blocks (the policy decides that)."""
    threshold = ctx.options.policy.warning_notice_at
    count = _warnings(after)
    if _warnings(before) < threshold <= count:
        ctx.emit(
            EventKind.NOTICE,
            f"{count} warnings (important findings) accumulated in this task's review "
            f"(notice at {threshold}); see the review's report",
            round=round,
        )


def _with_progress(
    rnd: RoundSummary, progress: StageProgress, summary: AttemptSummary | None = None
) -> RoundSummary:
    others = tuple(p for p in rnd.progress if p.stage != progress.stage)
    attempts = rnd.attempts if summary is None else (*rnd.attempts, summary)
    return rnd.model_copy(update={"progress": (*others, progress), "attempts": attempts})


def _changes(
    ctx: ReviewContext, rnd: RoundSummary, *, notice: bool, trimmed: bool = False
) -> tuple[str, frozenset[str], bool]:
    """The change as the prompt shows it, the changed paths, and whether the affected files
    were left out (past `diff_size_limit`, or `trimmed` after a token limit)."""
    diff = ctx.repo.diff(rnd.base_sha, rnd.head_sha)
    paths = ctx.repo.changed_files(rnd.base_sha, rnd.head_sha)
    files = {p: ctx.repo.read_file(rnd.head_sha, p) for p in paths}
    limit = 1 if trimmed else ctx.options.diff_size_limit
    text, diff_only = render_changes(diff, files, size_limit=limit)
    if diff_only and notice:
        ctx.emit(EventKind.NOTICE, f"change larger than {limit} bytes: diff only", round=rnd.round)
    return text, frozenset(paths), diff_only


def _stage_prompt(
    ctx: ReviewContext, state: ReviewState, stage: str, changes: str, review_id: str
) -> RenderedPrompt:
    rnd = state.current
    spec = ctx.options.spec or load_template("no-spec").render().text.strip()
    if rnd.round > 1:
        note = load_template("rereview-scoped" if rnd.scoped else "rereview-full")
        changes = note.render().text.strip() + "\n\n" + changes
    open_findings = render_findings(
        [
            r.finding
            for r in state.ledger.records
            if r.status is FindingStatus.OPEN and r.stage == stage
        ]
    )
    extra = {"conventions": _conventions(ctx, state)} if stage == "quality" else {}
    return load_template(STAGE_TEMPLATES[stage]).render(
        **extra,
        spec=spec,
        changes=changes,
        open_findings=open_findings,
        blocking_rule=ctx.options.policy.blocking_rule,
        review_id=review_id,
        scope=ctx.options.scope,
        base_sha=rnd.base_sha[:12],
        head_sha=rnd.head_sha[:12],
    )


def _conventions(ctx: ReviewContext, state: ReviewState) -> str:
    """The project's written conventions as they stand at the review's base (the first
    round's), so the quality stage can check the change against the project's own patterns."""
    base = state.rounds[0].base_sha
    files = ctx.repo.read_files(base, CONVENTION_FILES)
    return render_conventions(files, size_limit=CONVENTIONS_SIZE_LIMIT)


def _only_approval_passes(verdict: Verdict, gate: StageGate) -> StageGate:
    """The policy may refuse what the approval rule approved, never pass what it did not (a
    `fixes` the policy would weigh as harmless is still not an approval)."""
    if gate.passes and not verdict.approved:
        reason = "only an approving verdict object passes"
        return StageGate(False, gate.blocking, reason, gate.findings)
    return gate


def _write_attempt(
    ctx: ReviewContext,
    state: ReviewState,
    asked: _Asked,
    verdict: Verdict | None,
    *,
    note: str,
    decided: ObjectDecision | None = None,
) -> AttemptSummary:
    rnd, prompt, result = state.current, asked.prompt, asked.result
    decision = verdict.decision.value if verdict else "none"
    obj = decided.obj if decided else None
    via = _answer_of(result).via.value if verdict else ""
    counts = {s.value: 0 for s in Severity}
    for f in verdict.findings if verdict else ():
        counts[f.severity.value] += 1
    report = AttemptReport(
        run_id=state.run_id,
        round=rnd.round,
        stage=asked.step.stage,
        attempt=asked.step.attempt,
        status=_attempt_status(verdict, ctx.options.policy),
        decision=decision,
        review_id=asked.review_id,
        template=f"{prompt.template}.v{prompt.version}",
        template_sha256=prompt.template_sha256,
        base_sha=rnd.base_sha,
        head_sha=rnd.head_sha,
        backend=ctx.agents.reviewer.name,
        prompt=prompt.text,
        output=result.text,
        parsed=_parsed(verdict, decided, via),
        agent=result.model_dump(mode="json", exclude={"text"}),
        severity_counts=counts,
        note=note,
        usage=result.usage.model_dump(),
        duration_s=result.duration_s,
        answer_via=via,
        summary=obj.summary if obj else "",
        confidence=obj.confidence if obj else None,
    )
    path = ctx.writer.write_attempt(report, stem=asked.stem)
    _store_verdict(ctx, state, asked, report)
    return AttemptSummary(
        stage=asked.step.stage,
        attempt=asked.step.attempt,
        decision=decision,
        review_id=asked.review_id,
        report=str(path),
        note=note,
        usage=result.usage,
        duration_s=round(result.duration_s, 3),
        answer_via=via,
        summary=obj.summary if obj else "",
        confidence=obj.confidence if obj else None,
    )


def _store_verdict(
    ctx: ReviewContext, state: ReviewState, asked: _Asked, report: AttemptReport
) -> None:
    """The reviewer's handoff as every handoff is stored (`mergegate.handoff.store_record`):
    `verdict.json` in the attempt's folder, the common envelope around what was decided, with
    the stage's earlier attempts as its retry metadata."""
    step = asked.step
    earlier = [a for a in state.current.attempts if a.stage == step.stage]
    store_record(
        ctx.writer.run_dir / asked.stem / VERDICT_FILE,
        component="reviewer",
        session_id=asked.result.session_id,
        data={
            "review_id": asked.review_id,
            "scope": ctx.options.scope,
            "round": report.round,
            "stage": report.stage,
            "attempt": report.attempt,
            "decision": report.decision,
            "note": report.note,
            "parsed": dict(report.parsed),
        },
        status="success" if report.decision in ("approve", "fixes", "reject") else "failure",
        retry_count=step.attempt - 1,
        previous_errors=[f"{a.decision}: {a.note}".rstrip(": ") for a in earlier],
    )


def _parsed(verdict: Verdict | None, decided: ObjectDecision | None, via: str) -> dict[str, Any]:
    """The attempt record's `parsed`: the decision, why, the findings, the mechanism behind
    the answer and the object itself (when it was valid)."""
    if verdict is None:
        return {}
    parsed = verdict.to_dict()
    parsed["answer_via"] = via
    if decided is not None:
        parsed["malformed"] = decided.malformed.value if decided.malformed else None
        parsed["object"] = decided.obj.model_dump(mode="json") if decided.obj else None
    return parsed


def _round_message(rnd: RoundSummary) -> str:
    span = f"{rnd.base_sha[:12]}..{rnd.head_sha[:12]}"
    if rnd.scoped:
        what = f"scoped re-review of the fix {span}"
    elif rnd.round > 1:
        what = f"full re-review {span}"
    else:
        what = f"reviewing {span}"
    return f"round {rnd.round}: {what} (stages: {', '.join(rnd.stages)})"


def _finding_line(finding: Finding, status: str) -> str:
    line = f":{finding.line}" if finding.line is not None else ""
    where = f" ({finding.file}{line})" if finding.file else ""
    return f"[{finding.severity.value}] {finding.id} {status}: {finding.title}{where}"


def _with_deferral(
    verdict: Verdict, gate: StageGate, status: dict[str, FindingStatus]
) -> StageGate:
    """With `defer_out_of_scope` (opt-in), a scoped re-review whose only blockers are deferred
    (outside the fix diff) passes; they are recorded for later, not fix work for this loop. A
    rejection still blocks."""
    if gate.passes or not gate.blocking or verdict.decision is not Decision.FIXES:
        return gate
    if any(status[f.id] is not FindingStatus.DEFERRED for f in gate.blocking):
        return gate
    reason = f"only out-of-scope findings block ({len(gate.blocking)} deferred)"
    return StageGate(True, (), reason, gate.findings)


def _attempt_status(verdict: Verdict | None, policy: GatePolicy) -> str:
    if verdict is None:
        return "agent_error"
    if verdict.decision in (Decision.MALFORMED, Decision.EMPTY):
        return verdict.decision.value
    passes = _only_approval_passes(verdict, gate_stage(verdict, policy)).passes
    return "passed" if passes else "issues_found"
