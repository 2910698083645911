"""The review gate and the revision loop.

One run: review the change in stages (spec compliance, then code quality), each parsed by the
verdict library; a malformed or empty review is retried (once by default) in the same session
with the parse error fed back, and then stops the run — it never becomes fix work. With `fix`,
a non-approving valid verdict becomes a fix prompt built only from its findings; mergegate
commits the implementer's changes as one fix commit per round and re-reviews **only the fix
diff** plus the still-open findings (or, with `rereview="full"`, the whole change again). Every
loop is capped and a loop that stops converging is escalated to a person with a package on disk.
Every agent run's usage (tokens, duration) is recorded per attempt and totalled per run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from mergegate.agents.base import AgentRequest, AgentResult, Backend
from mergegate.decisions import Decision, ExitCode
from mergegate.errors import UsageError
from mergegate.review._context import render_changes, render_files, render_findings
from mergegate.review._usage import UsageTotal, usage_of
from mergegate.review.events import EventKind, ReviewEvent
from mergegate.review.ledger import FindingLedger, FindingStatus
from mergegate.review.policy import GatePolicy, StageGate, gate_stage
from mergegate.review.prompts import RenderedPrompt, load_template
from mergegate.review.reports import AttemptReport, ReportWriter
from mergegate.verdicts import Finding, Severity, Verdict, parse_verdict

__all__ = [
    "AttemptSummary",
    "Repository",
    "ReviewLoop",
    "ReviewOptions",
    "ReviewOutcome",
    "ReviewStatus",
    "RoundSummary",
]

STAGE_TEMPLATES = {"spec": "spec-review", "quality": "quality-review"}


class Repository(Protocol):
    """The git operations the loop needs (implemented over the supervisor in agents.git)."""

    root: Path

    def resolve(self, ref: str) -> str: ...
    def diff(self, base: str, head: str) -> str: ...
    def changed_files(self, base: str, head: str) -> list[str]: ...
    def read_file(self, rev: str, path: str) -> str | None: ...
    def commit_all(self, message: str) -> str | None: ...
    def checkout(self, rev: str) -> AbstractContextManager[Path]:
        """A throwaway checkout of `rev` for a read-only reviewer (the same path each time)."""
        ...


class ReviewStatus(StrEnum):
    APPROVED = "approved"
    CHANGES_REQUESTED = "changes_requested"
    REJECTED = "rejected"
    UNDECIDABLE = "undecidable"
    AGENT_FAILED = "agent_failed"
    NEEDS_MANUAL_REVIEW = "needs_manual_review"


_STATUS_EXIT = {
    ReviewStatus.APPROVED: ExitCode.OK,
    ReviewStatus.CHANGES_REQUESTED: ExitCode.NO,
    ReviewStatus.REJECTED: ExitCode.NO,
    ReviewStatus.UNDECIDABLE: ExitCode.UNDECIDABLE,
    ReviewStatus.AGENT_FAILED: ExitCode.AGENT_FAILURE,
    ReviewStatus.NEEDS_MANUAL_REVIEW: ExitCode.ESCALATED,
}


@dataclass(frozen=True)
class ReviewOptions:
    """How one review run behaves (the CLI builds this from config and flags)."""

    base: str
    head: str = "HEAD"
    spec: str | None = None
    fix: bool = False
    max_rounds: int = 3
    malformed_retries: int = 1
    policy: GatePolicy = field(default_factory=GatePolicy)
    defer_out_of_scope: bool = True
    diff_size_limit: int = 200_000
    fresh_implementer_after: int | None = None
    timeout_s: float = 1800.0
    stall_timeout_s: float = 300.0
    rereview: Literal["scoped", "full"] = "scoped"
    stages: tuple[str, ...] = ("spec", "quality")
    """The stages to run, in order (`spec` runs only with a `spec`)."""
    """Later rounds review only the fix diff (`scoped`) or the whole change base..new head
    (`full`, where nothing is deferred as out of scope)."""


@dataclass
class AttemptSummary:
    stage: str
    attempt: int
    decision: str
    review_id: str
    report: str
    note: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    """The reviewer's tokens for this attempt, as its backend reported them."""
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass
class RoundSummary:
    round: int
    base_sha: str
    head_sha: str
    scoped: bool
    attempts: list[AttemptSummary] = field(default_factory=list)
    fix_commit: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "base_sha": self.base_sha,
            "head_sha": self.head_sha,
            "scoped": self.scoped,
            "attempts": [a.to_dict() for a in self.attempts],
            "fix_commit": self.fix_commit,
        }


@dataclass
class ReviewOutcome:
    """The answer of one run, and where its proof is on disk."""

    run_id: str
    status: ReviewStatus
    decision: Decision
    message: str
    rounds: list[RoundSummary]
    findings: list[dict[str, object]]
    report_dir: Path
    outputs: list[str] = field(default_factory=list)
    """Raw reviewer outputs shown to the user when the run is undecidable."""
    usage: dict[str, dict[str, object]] = field(default_factory=dict)
    """Totals per role (`reviewer`, `implementer`): runs, tokens, duration."""

    @property
    def exit_code(self) -> ExitCode:
        return _STATUS_EXIT[self.status]

    def to_dict(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "status": self.status.value,
            "decision": self.decision.value,
            "exit_code": int(self.exit_code),
            "message": self.message,
            "rounds": [r.to_dict() for r in self.rounds],
            "findings": self.findings,
            "report_dir": str(self.report_dir),
            "usage": self.usage,
        }


class _Stop(Exception):
    """Internal: a stage ended the run (agent failure or undecidable)."""

    def __init__(self, status: ReviewStatus, decision: Decision, message: str, outputs: list[str]):
        super().__init__(message)
        self.status, self.decision, self.message, self.outputs = status, decision, message, outputs


@dataclass(frozen=True)
class _Attempt:
    """One reviewer attempt of a stage: what was asked and what came back."""

    summary: RoundSummary
    stage: str
    attempt: int
    review_id: str
    prompt: RenderedPrompt
    result: AgentResult


@dataclass(frozen=True)
class _StageResult:
    verdict: Verdict
    gate: StageGate


def _new_review_id() -> str:
    return f"mg-{uuid.uuid4().hex[:16]}"


def _new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def _reviewer_format(review_id: str) -> dict[str, object]:
    """The `AgentRequest.response_format` of a reviewer run: the verdict shape with the
    JSON trailer for `review_id` (see `mergegate.agents.openai.verdict_grammar`)."""
    return {"type": "verdict", "review_id": review_id}


def describe_problem(verdict: Verdict) -> str:
    """Why a review could not be used, in the words seed 000 uses."""
    if verdict.decision is Decision.EMPTY:
        return "no output"
    reason = verdict.reasons[0] if verdict.reasons else "no verdict found"
    return f"missing 'Ready to merge?' field ({reason})"


class ReviewLoop:
    """Runs the review gate (and, with `options.fix`, the revision loop) for one change.

    Progress is reported twice over: `events` receives a typed `ReviewEvent` per step (for
    live displays), and `progress` receives each event's message as one plain line. Both carry
    raw reviewer text; a renderer must escape it.
    """

    def __init__(
        self,
        repo: Repository,
        reviewer: Backend,
        options: ReviewOptions,
        *,
        report_root: Path,
        implementer: Backend | None = None,
        fresh_implementer: Backend | None = None,
        progress: Callable[[str], None] = lambda _msg: None,
        events: Callable[[ReviewEvent], None] | None = None,
        run_id: str | None = None,
        new_review_id: Callable[[], str] = _new_review_id,
    ) -> None:
        if options.fix and implementer is None:
            raise ValueError("fix mode needs an implementer")
        self.repo, self.reviewer, self.options = repo, reviewer, options
        self.implementer, self.fresh_implementer = implementer, fresh_implementer
        self.progress, self.new_review_id = progress, new_review_id
        self._on_event = events
        self.run_id = run_id or _new_run_id()
        self.writer = ReportWriter(report_root, self.run_id)
        self.ledger = FindingLedger(defer_out_of_scope=options.defer_out_of_scope)
        self.rounds: list[RoundSummary] = []
        self.diffs: dict[str, str] = {}
        self._implementer_session: str | None = None
        self._last_problem = ""
        self._implementer_usage = UsageTotal()

    def _emit(
        self,
        kind: EventKind,
        message: str,
        *,
        round: int = 0,
        stage: str = "",
        attempt: int = 0,
        ok: bool | None = None,
        details: tuple[str, ...] = (),
    ) -> None:
        if self._on_event is not None:
            self._on_event(ReviewEvent(kind, message, round, stage, attempt, ok, details))
        self.progress(message)

    # ------------------------------------------------------------------ the run
    def run(self) -> ReviewOutcome:
        opts = self.options
        base = first_base = self.repo.resolve(opts.base)
        head = self.repo.resolve(opts.head)
        scoped = opts.rereview == "scoped"
        stages = [s for s in opts.stages if s != "spec" or opts.spec]
        if not opts.spec and "spec" in opts.stages:
            self._emit(EventKind.NOTICE, "no --spec given: skipping the spec-compliance stage")
        if not stages:
            raise UsageError("nothing to review: the only configured stage is spec; pass --spec")
        round_no = 1
        try:
            while True:
                summary = RoundSummary(round_no, base, head, scoped=scoped and round_no > 1)
                self.rounds.append(summary)
                self._emit(EventKind.ROUND_STARTED, _round_message(summary, stages), round=round_no)
                results = {s: self._review_stage(summary, s) for s in stages}
                failing = [s for s, r in results.items() if not r.gate.passes]
                if not failing and not self.ledger.open_blocking():
                    return self._finish(ReviewStatus.APPROVED, Decision.APPROVE, self._approved())
                stop = self._why_not_fix(results, failing, round_no)
                if stop is not None:
                    return stop
                new_head = self._fix_round(summary, results, failing)
                if new_head is None:
                    return self._escalate("the implementer changed nothing")
                base = head if scoped else first_base
                head, stages, round_no = new_head, failing, round_no + 1
        except _Stop as stop_:
            return self._finish(stop_.status, stop_.decision, stop_.message, stop_.outputs)

    def _approved(self) -> str:
        deferred = [r for r in self.ledger.records if r.status is FindingStatus.DEFERRED]
        if not deferred:
            return "approved"
        ids = ", ".join(r.finding.id for r in deferred)
        return f"approved; {len(deferred)} out-of-scope finding(s) deferred for later: {ids}"

    def _why_not_fix(
        self, results: dict[str, _StageResult], failing: list[str], round_no: int
    ) -> ReviewOutcome | None:
        worst = _worst_decision([results[s].verdict for s in failing])
        status = (
            ReviewStatus.REJECTED if worst is Decision.REJECT else ReviewStatus.CHANGES_REQUESTED
        )
        reasons = "; ".join(f"{s}: {results[s].gate.reason}" for s in failing)
        if not self.options.fix:
            return self._finish(status, worst, reasons)
        if not self._fixable(results, failing):
            return self._finish(
                status,
                worst,
                f"{reasons}; the reviewer listed no findings, so there is nothing to fix",
            )
        if round_no > 1 and (stall := self.ledger.stall_reason(round_no)):
            return self._escalate(f"revision loop stalled: {stall}")
        if round_no >= self.options.max_rounds:
            return self._escalate(f"revision cap reached ({self.options.max_rounds} rounds)")
        return None

    def _fixable(self, results: dict[str, _StageResult], failing: list[str]) -> bool:
        return bool(self.ledger.open_blocking()) or any(
            results[s].verdict.findings for s in failing
        )

    # ------------------------------------------------------------------ one stage
    def _review_stage(self, summary: RoundSummary, stage: str) -> _StageResult:
        changes, files = self._changes(summary)
        open_findings = render_findings(
            [f for f in self.ledger.open_blocking() if self._stage_of(f) == stage]
        )
        session: str | None = None
        outputs: list[str] = []
        attempts = 1 + max(0, self.options.malformed_retries)
        for attempt in range(1, attempts + 1):
            review_id = self.new_review_id()
            prompt = self._stage_prompt(stage, summary, changes, open_findings, review_id)
            if attempt > 1 and session is not None and self.reviewer.capabilities.sessions:
                prompt = load_template("retry").render(
                    problem=self._last_problem, review_id=review_id
                )
            else:
                session = None  # a backend without sessions gets a fresh, complete dispatch
            self._emit(
                EventKind.AGENT_STARTED,
                f"round {summary.round}: {stage} review, attempt {attempt} ({self.reviewer.name})",
                round=summary.round,
                stage=stage,
                attempt=attempt,
            )
            result = self._run_reviewer(prompt.text, review_id, attempt, session, summary.head_sha)
            self._emit(
                EventKind.AGENT_FINISHED,
                f"{stage} reviewer finished ({result.status.value})",
                round=summary.round,
                stage=stage,
                attempt=attempt,
                ok=result.ok,
            )
            verdict = self._judge(_Attempt(summary, stage, attempt, review_id, prompt, result))
            outputs.append(result.text)
            if verdict.decision.is_verdict:
                if attempt > 1:
                    self._emit(
                        EventKind.NOTICE,
                        f"{stage} review: {verdict.decision.value} (retry succeeded)",
                        round=summary.round,
                        stage=stage,
                        attempt=attempt,
                    )
                gate = gate_stage(verdict, self.options.policy)
                gate = self._record(summary, stage, verdict, gate, files)
                return _StageResult(verdict, gate)
            self._last_problem = describe_problem(verdict)
            session = result.session_id
            if attempt < attempts:
                again = (
                    "retrying once" if attempts == 2 else f"retrying ({attempts - attempt} left)"
                )
                self._emit(
                    EventKind.RETRY,
                    f"{stage} review output {self._last_problem} — {again}",
                    round=summary.round,
                    stage=stage,
                    attempt=attempt,
                )
        raise _Stop(
            ReviewStatus.UNDECIDABLE,
            verdict.decision,
            f"{stage} review failed {attempts} times with {verdict.decision.value} output; "
            "the reviewer may not be following the template — check the reviewer and re-run",
            outputs,
        )

    def _changes(self, summary: RoundSummary) -> tuple[str, frozenset[str]]:
        key = f"{summary.base_sha}..{summary.head_sha}"
        diff = self.repo.diff(summary.base_sha, summary.head_sha)
        self.diffs.setdefault(key, diff)
        paths = self.repo.changed_files(summary.base_sha, summary.head_sha)
        files = {p: self.repo.read_file(summary.head_sha, p) for p in paths}
        text, trimmed = render_changes(diff, files, size_limit=self.options.diff_size_limit)
        if trimmed:
            self._emit(
                EventKind.NOTICE,
                f"change larger than {self.options.diff_size_limit} bytes: diff only",
                round=summary.round,
            )
        return text, frozenset(paths)

    def _stage_prompt(
        self, stage: str, summary: RoundSummary, changes: str, open_findings: str, review_id: str
    ) -> RenderedPrompt:
        spec = self.options.spec or "(no specification given: review the change on its merits)"
        if summary.scoped:
            changes = (
                "This is a SCOPED RE-REVIEW of a fix commit. Review only this fix and whether "
                "it resolves the still-open findings below; report a finding again (same id) "
                "only if it is still present.\n\n" + changes
            )
        elif summary.round > 1:
            changes = (
                "This is a FULL RE-REVIEW of the whole change after fix commit(s). Check "
                "whether the still-open findings below are resolved; report a finding again "
                "(same id) only if it is still present.\n\n" + changes
            )
        return load_template(STAGE_TEMPLATES[stage]).render(
            spec=spec,
            changes=changes,
            open_findings=open_findings,
            review_id=review_id,
            base_sha=summary.base_sha[:12],
            head_sha=summary.head_sha[:12],
        )

    def _run_reviewer(
        self, prompt: str, review_id: str, attempt: int, session: str | None, head: str
    ) -> AgentResult:
        # The reviewer works in a throwaway checkout of the commit under review: the user's
        # working tree and .git are out of its reach, and are checked unchanged all the same.
        with self.repo.checkout(head) as checkout:
            return self.reviewer.run(
                self._reviewer_request(prompt, review_id, attempt, session, checkout)
            )

    def _reviewer_request(
        self, prompt: str, review_id: str, attempt: int, session: str | None, cwd: Path
    ) -> AgentRequest:
        return AgentRequest(
            prompt=prompt,
            cwd=cwd,
            protected_repos=(self.repo.root,),
            timeout_s=self.options.timeout_s,
            stall_timeout_s=self.options.stall_timeout_s,
            read_only=True,
            attempt=attempt,
            review_id=review_id,
            resume_session_id=session,
            # The review shape as an output constraint: grammar-capable backends (local, a
            # llama.cpp server) enforce it, every other backend ignores it (CLI agents) or
            # says in a warning that it was not enforced (openai without grammar support).
            response_format=_reviewer_format(review_id),
        )

    def _judge(self, att: _Attempt) -> Verdict:
        """Parse one attempt's output and record it; a failed run stops the review."""
        result = att.result
        if not result.ok:
            why = result.error or result.status.value
            if result.worktree_changed:
                why = (
                    "the reviewer changed the working tree (a read-only run may not); attempt void"
                    f" ({result.error})"  # which files: a planted hook, .git/config, …
                )
            self._write_attempt(att, None, note=why)
            raise _Stop(
                ReviewStatus.AGENT_FAILED,
                Decision.MALFORMED,
                f"{att.stage} reviewer: {why}",
                [result.text],
            )
        verdict = parse_verdict(result.text, review_id=att.review_id)
        self._write_attempt(att, verdict, note="")
        return verdict

    def _write_attempt(self, att: _Attempt, verdict: Verdict | None, *, note: str) -> None:
        summary, prompt, result = att.summary, att.prompt, att.result
        decision = verdict.decision.value if verdict else "none"
        usage = usage_of(result)
        counts = {s.value: 0 for s in Severity}
        for f in verdict.findings if verdict else ():
            counts[f.severity.value] += 1
        report = AttemptReport(
            run_id=self.run_id,
            round=summary.round,
            stage=att.stage,
            attempt=att.attempt,
            status=_attempt_status(verdict, self.options.policy),
            decision=decision,
            review_id=att.review_id,
            template=f"{prompt.template}.v{prompt.version}",
            template_sha256=prompt.template_sha256,
            base_sha=summary.base_sha,
            head_sha=summary.head_sha,
            backend=self.reviewer.name,
            prompt=prompt.text,
            output=result.text,
            parsed=verdict.to_dict() if verdict else {},
            agent=result.model_dump(mode="json", exclude={"text"}),
            severity_counts=counts,
            note=note,
            usage=usage,
            duration_s=result.duration_s,
        )
        path = self.writer.write_attempt(report)
        summary.attempts.append(
            AttemptSummary(
                att.stage,
                att.attempt,
                decision,
                att.review_id,
                str(path),
                note,
                usage=usage,
                duration_s=round(result.duration_s, 3),
            )
        )

    def _record(
        self,
        summary: RoundSummary,
        stage: str,
        verdict: Verdict,
        gate: StageGate,
        files: frozenset[str],
    ) -> StageGate:
        """Fold the stage's findings into the ledger; return the gate, deferral applied."""
        status = self.ledger.record_review(
            round=summary.round,
            stage=stage,
            findings=gate.findings,  # as the policy saw them: architectural ones capped
            blocking_ids=frozenset(f.id for f in gate.blocking),
            scope_files=files if summary.scoped else None,
        )
        gate = _with_deferral(verdict, gate, status)
        self._emit(
            EventKind.STAGE_RESULT,
            f"{stage} review: {verdict.decision.value} — {gate.reason}",
            round=summary.round,
            stage=stage,
            ok=gate.passes,
            details=tuple(_finding_line(f, status[f.id].value) for f in gate.findings),
        )
        return gate

    def _stage_of(self, finding: Finding) -> str:
        for record in self.ledger.records:
            if record.finding.id == finding.id:
                return record.stage
        return ""

    # ------------------------------------------------------------------ fixing
    def _fix_round(
        self, summary: RoundSummary, results: dict[str, _StageResult], failing: list[str]
    ) -> str | None:
        findings = self.ledger.open_blocking() or tuple(
            f for s in failing for f in results[s].verdict.findings
        )
        backend, session = self._implementer_for(summary.round)
        prompt = load_template("fix").render(
            findings=render_findings(findings), files=self._change_files(summary.head_sha)
        )
        self._emit(
            EventKind.AGENT_STARTED,
            f"round {summary.round}: asking {backend.name} to fix {len(findings)} finding(s)",
            round=summary.round,
            stage="fix",
            attempt=1,
        )
        result = backend.run(
            AgentRequest(
                prompt=prompt.text,
                cwd=self.repo.root,
                timeout_s=self.options.timeout_s,
                stall_timeout_s=self.options.stall_timeout_s,
                attempt=summary.round,
                resume_session_id=session,
            )
        )
        self._emit(
            EventKind.AGENT_FINISHED,
            f"implementer finished ({result.status.value})",
            round=summary.round,
            stage="fix",
            attempt=1,
            ok=result.ok,
        )
        self.writer.write_json(
            f"r{summary.round:02d}-fix.json",
            {
                "template": f"{prompt.template}.v{prompt.version}",
                "template_sha256": prompt.template_sha256,
                "findings": [f.id for f in findings],
                "prompt": prompt.text,
                "agent": result.model_dump(mode="json"),
            },
        )
        self._implementer_usage.add(usage_of(result), result.duration_s)
        if not result.ok:
            raise _Stop(
                ReviewStatus.AGENT_FAILED,
                Decision.FIXES,
                f"implementer failed in round {summary.round}: "
                f"{result.error or result.status.value}",
                [],
            )
        self._implementer_session = result.session_id
        ids = ", ".join(f.id for f in findings)
        sha = self.repo.commit_all(f"mergegate: fix round {summary.round}\n\nFindings: {ids}\n")
        summary.fix_commit = sha
        if sha is not None:
            self._emit(
                EventKind.FIX_COMMITTED,
                f"round {summary.round}: fix committed as {sha[:12]}",
                round=summary.round,
                stage="fix",
            )
        return sha

    def _change_files(self, head: str) -> str:
        """Every file the change (all rounds so far) touched, as it is at `head`."""
        paths = self.repo.changed_files(self.rounds[0].base_sha, head)
        files = {p: self.repo.read_file(head, p) for p in paths}
        return render_files(files, size_limit=self.options.diff_size_limit)

    def _implementer_for(self, round_no: int) -> tuple[Backend, str | None]:
        after = self.options.fresh_implementer_after
        assert self.implementer is not None
        if after is not None and round_no > after:
            return self.fresh_implementer or self.implementer, None
        return self.implementer, self._implementer_session

    # ------------------------------------------------------------------ endings
    def _escalate(self, why: str) -> ReviewOutcome:
        self._emit(EventKind.ESCALATED, f"escalating to a person: {why}", ok=False)
        package = "escalation"
        self.writer.write_json(
            f"{package}/open-findings.json", [r.to_dict() for r in self.ledger.records]
        )
        for i, (key, diff) in enumerate(self.diffs.items(), start=1):
            self.writer.write_text(f"{package}/diff-{i:02d}.diff", f"# {key}\n{diff}")
        self.writer.write_text(
            f"{package}/README.md", _escalation_readme(why, self.run_id, self.ledger)
        )
        return self._finish(ReviewStatus.NEEDS_MANUAL_REVIEW, Decision.FIXES, why)

    def _finish(
        self,
        status: ReviewStatus,
        decision: Decision,
        message: str,
        outputs: list[str] | None = None,
    ) -> ReviewOutcome:
        outcome = ReviewOutcome(
            run_id=self.run_id,
            status=status,
            decision=decision,
            message=message,
            rounds=self.rounds,
            findings=[r.to_dict() for r in self.ledger.records],
            report_dir=self.writer.run_dir,
            outputs=outputs or [],
            usage=self._usage_totals(),
        )
        lines = [f"**Status:** {status.value} — {message}", ""]
        for rnd in self.rounds:
            for a in rnd.attempts:
                lines.append(
                    f"- round {rnd.round} {a.stage} attempt {a.attempt}: `{a.decision}` "
                    f"({_tokens(a.usage)}, {a.duration_s:.1f} s)"
                )
        for role, total in outcome.usage.items():
            lines.append(
                f"- {role} total: {total['runs']} run(s), {total['input_tokens']} input and "
                f"{total['output_tokens']} output tokens, {total['duration_s']} s"
            )
        self.writer.write_summary(outcome.to_dict(), lines)
        self._emit(
            EventKind.FINISHED,
            f"{status.value}: {message}",
            round=len(self.rounds),
            ok=status is ReviewStatus.APPROVED,
        )
        return outcome

    def _usage_totals(self) -> dict[str, dict[str, object]]:
        reviewer = UsageTotal()
        for rnd in self.rounds:
            for a in rnd.attempts:
                reviewer.add(a.usage, a.duration_s)
        totals = {"reviewer": reviewer.to_dict()}
        if self._implementer_usage.runs:
            totals["implementer"] = self._implementer_usage.to_dict()
        return totals


def _tokens(usage: dict[str, int]) -> str:
    return f"{usage.get('input_tokens', 0)} input / {usage.get('output_tokens', 0)} output tokens"


def _round_message(summary: RoundSummary, stages: list[str]) -> str:
    span = f"{summary.base_sha[:12]}..{summary.head_sha[:12]}"
    if summary.scoped:
        what = f"scoped re-review of the fix {span}"
    elif summary.round > 1:
        what = f"full re-review {span}"
    else:
        what = f"reviewing {span}"
    return f"round {summary.round}: {what} (stages: {', '.join(stages)})"


def _finding_line(finding: Finding, status: str) -> str:
    line = f":{finding.line}" if finding.line is not None else ""
    where = f" ({finding.file}{line})" if finding.file else ""
    return f"[{finding.severity.value}] {finding.id} {status}: {finding.title}{where}"


def _with_deferral(
    verdict: Verdict, gate: StageGate, status: dict[str, FindingStatus]
) -> StageGate:
    """A scoped re-review whose only blockers are deferred (outside the fix diff) passes.

    The reviewer may say "With fixes" for them, but they are recorded for later, not fix work
    for this loop; a rejection still blocks.
    """
    if gate.passes or not gate.blocking or verdict.decision is not Decision.FIXES:
        return gate
    if any(status[f.id] is not FindingStatus.DEFERRED for f in gate.blocking):
        return gate
    reason = f"only out-of-scope findings block ({len(gate.blocking)} deferred)"
    return StageGate(True, (), reason, gate.findings)


def _worst_decision(verdicts: list[Verdict]) -> Decision:
    if any(v.decision is Decision.REJECT for v in verdicts):
        return Decision.REJECT
    return Decision.FIXES


def _attempt_status(verdict: Verdict | None, policy: GatePolicy) -> str:
    if verdict is None:
        return "agent_error"
    if verdict.decision in (Decision.MALFORMED, Decision.EMPTY):
        return verdict.decision.value
    return "passed" if gate_stage(verdict, policy).passes else "issues_found"


def _escalation_readme(why: str, run_id: str, ledger: FindingLedger) -> str:
    open_ = [r for r in ledger.records if r.status.value in ("open", "deferred")]
    lines = [
        f"# Review {run_id} needs a person",
        "",
        f"**Why:** {why}",
        "",
        "## Open findings",
        "",
    ]
    lines += [
        f"- `{r.finding.id}` ({r.finding.severity.value}, {r.status.value}, {r.stage}): "
        f"{' '.join(r.finding.title.split())[:200]}"
        for r in open_
    ] or ["None."]
    lines += [
        "",
        "## What to do next",
        "",
        "1. Read the reviews (`r*-*.md` beside this folder) and the diffs here.",
        "2. Decide each open finding: fix it by hand, or accept it and note why.",
        "3. Re-run `mergegate review` on the result; it starts a new run and keeps this one.",
        "",
        "`open-findings.json` has every finding with its history across rounds.",
    ]
    return "\n".join(lines) + "\n"
