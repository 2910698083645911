"""The task pipeline: implement → commit → check → review → fix rounds → decision.

One task is one durable workflow (a child of its unit's), under a stable id
`<run>/<unit>/<task>`: once it finished, a replay of its unit (after a crash, or a new
generation after `resume --answer`) gets its recorded outcome in one read, never its steps.

After the implementer's commit, the task goes round until it ends: the checks run whenever the
head moved since they last ran (a failing check is a blocking finding from a program: its
output goes to a fix round, and the same failure after a fix is a stall), and the review runs
whenever the head moved since it was last reviewed. Check fixes and review rounds share one
cap (`review.max_rounds`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mergegate.agents.base import AgentRequest, AgentResult
from mergegate.decisions import ExitCode
from mergegate.engine._context.outcomes import (
    CheckFinding,
    CheckResult,
    TaskArgs,
    TaskOutcome,
    VerdictEntry,
)
from mergegate.engine._context.plan_views import task_checks, task_spec
from mergegate.engine._context.run_events import RunEvent
from mergegate.engine._context.runtime import Runtime, current, working_on
from mergegate.engine._steps.core import (
    AgentCall,
    CommitCall,
    FixCommit,
    agent_step,
    check_step,
    clock_step,
    commit_step,
    human_step,
)
from mergegate.engine._steps.implementer_turn import implement_turns, judge_claim
from mergegate.engine._steps.review_stage import ReviewCall, review_step
from mergegate.handoff import AgentResultPayload
from mergegate.ids import Trailer, TrailerLine, WorkflowId
from mergegate.implementer import TaskJudgement, result_schema, task_environment
from mergegate.plans import Task
from mergegate.review import FindingRecord, FindingStatus, ReviewState, ReviewStatus
from mergegate.review.reports import fence
from mergegate.review.state import ReviewRecord
from mergegate.store import workflow

__all__ = ["task_workflow"]

_NOTES_CHARS = 4000
_FILES_LIMIT = 100_000


def _files_block(rt: Runtime, worktree: Path, unit: str, head: str, paths: list[str]) -> str:
    repo = rt.repository(worktree, unit)
    blocks, size = [], 0
    for path in paths:
        text = repo.read_file(head, path)
        if text is None:
            continue
        size += len(text)
        if size > _FILES_LIMIT:
            blocks.append(f"(further files left out: read them in the work tree: {path} …)")
            break
        blocks.append(f"### {path}\n\n" + fence(text, ""))
    return "\n".join(blocks) or "None yet."


def check_fix_prompt(failing: list[CheckResult], files: str) -> str:
    lines = [
        "The checks mergegate ran after your change failed. Fix the cause so that they pass, "
        "and change nothing else. Do not commit: mergegate commits your changes itself.",
        "",
        "## Failing checks",
        "",
    ]
    for i, check in enumerate(failing, start=1):
        lines.append(
            f"- [CHECK-{i}] (critical) `{check.run}` exited {check.exit} "
            f"(expected {check.expect_exit}; {check.reason}); the end of its output:"
        )
        lines.append(fence(check.output or "(no output)\n"))
    lines += ["## The files of the change, as they are now", "", files, ""]
    lines.append("When you are done, reply with one line per check saying what you changed.")
    return "\n".join(lines)


class _Pipeline:
    """The steps of one task, in order. Every field changes only from recorded step results,
    so a replay walks the same path."""

    def __init__(self, rt: Runtime, args: TaskArgs) -> None:
        self.rt = rt
        self.phase_id, self.unit_id, self.index = args.phase, args.unit, args.index
        self.task: Task = rt.task(self.phase_id, self.unit_id, self.index)
        self.worktree = Path(args.worktree)
        # a task a person asked to retry runs again in folders and under commit keys of its
        # own (`retry-gN`): nothing of the first run is mistaken for the retry's
        again = args.again
        folder = f"{self.task.id}-{again}" if again else self.task.id
        self.task_dir = rt.unit_dir(self.phase_id, self.unit_id) / folder
        self.key = WorkflowId.task(rt.run_id, self.unit_id, self.task.id, again).format()
        self.start = self.head = args.start
        self.session: str | None = args.session
        self.spec = task_spec(
            rt.plan, rt.phase(self.phase_id), rt.unit(self.phase_id, self.unit_id), self.task
        )
        self.commit: str | None = None
        self.notes = ""
        self.checks: list[CheckResult] = []
        self.check_rounds = 0
        self.checked: str | None = None
        self.last_failure: str | None = None
        self.reviewed: str | None = None
        self.review: ReviewRecord | None = None
        self.reports: list[str] = []
        self.review_rounds = 0
        self.rounds_left = rt.options.review.max_rounds
        self.attempts = 0
        self.deadline: float | None = None
        self.tokens = 0
        self.stopped: str | None = None
        self.request: AgentRequest | None = None
        """The implementer's last request (its handoff is asked again with it)."""
        self.attempt_dir = ""
        self.claim: AgentResultPayload | None = None
        """The implementer's validated `agent-result`: a claim, set against the checks."""
        self.judgement: TaskJudgement | None = None
        self.claim_checked = False
        self.help_requests = 0
        self.reviewed_at: float | None = None
        self.findings: dict[str, FindingRecord] = {}
        """Every finding the task's reviews recorded, by id (the latest record)."""
        self.verdicts: list[VerdictEntry] = []

    # ------------------------------------------------------------ pieces
    def emit(self, step: str, message: str) -> None:
        self.rt.events.emit(
            RunEvent(
                "step",
                message,
                phase=self.phase_id,
                unit=self.unit_id,
                task=self.task.id,
                step=step,
            )
        )

    def count(self, tokens: int) -> None:
        """Tokens an agent step used: for the task's record and the live view."""
        self.tokens += tokens
        if tokens:
            event = RunEvent(
                "usage",
                "",
                phase=self.phase_id,
                unit=self.unit_id,
                task=self.task.id,
                tokens=tokens,
            )
            self.rt.events.emit(event)

    def outcome(self, decision: str, reason: str = "", code: ExitCode = ExitCode.OK) -> TaskOutcome:
        review = self.review
        findings = [] if review is None else review.findings
        open_ = [f for f in findings if f.status is FindingStatus.OPEN]
        return TaskOutcome(
            id=self.task.id,
            number=self.index + 1,
            name=self.task.name,
            decision=decision,
            reason=reason,
            review_status=None if review is None else review.status.value,
            start=self.start,
            head=self.head,
            commit=self.commit,
            session=self.session,
            notes=self.notes[-_NOTES_CHARS:],
            open_findings=[*open_, *_check_findings(self.checks)],
            checks=self.checks,
            reports=self.reports,
            rounds=self.review_rounds + self.check_rounds,
            tokens=self.tokens,
            exit_code=int(code),
            agent_result=self.claim,
            judgement=self.judgement,
            help_requests=self.help_requests,
            reviewed_at=self.reviewed_at,
            findings=list(self.findings.values()),
            verdicts=self.verdicts,
            review_outputs=[] if review is None else list(review.outputs),
        )

    def escalate(self, reason: str) -> TaskOutcome:
        return self.outcome("needs_manual_review", reason, ExitCode.ESCALATED)

    def ended_by_stop(self) -> TaskOutcome:
        reason = self.stopped or "stopped"
        if reason.startswith("budget"):
            return self.escalate(reason).model_copy(update={"stopped": True})
        return self.outcome("cancelled", reason, ExitCode.AGENT_FAILURE)

    def agent_failed(self, result: AgentResult, what: str) -> TaskOutcome:
        if self.stopped:
            return self.ended_by_stop()
        why = result.error or result.status.value
        return self.outcome("failed", f"{what}: {why}", ExitCode.AGENT_FAILURE)

    def files(self, paths: list[str] | None = None) -> str:
        if paths is None:
            repo = self.rt.repository(self.worktree, self.unit_id)
            paths = repo.changed_files(self.start, self.head)
        return _files_block(self.rt, self.worktree, self.unit_id, self.head, paths)

    def run_agent(
        self,
        prompt: str,
        commit: FixCommit | None = None,
        *,
        resume: bool = True,
        result: bool = False,
    ) -> tuple[AgentResult, str | None]:
        """The implementer, resuming the unit's session (a new one when not `resume`), as one
        recorded step (with its commit, for a fix of failing checks). `result`: the prompt
        asks for the `agent-result`, as the run's typed answer (`result_schema`)."""
        self.attempts += 1
        request = AgentRequest(
            prompt=prompt,
            cwd=self.worktree,
            resume_session_id=self.session if resume else None,
            env=task_environment(self.rt.run_id, self.task.id),
            answer_schema=result_schema(self.task.id) if result else None,
            **self.rt.options.review.agent_limits(),
        )
        self.request = request
        self.attempt_dir = str(self.task_dir / "attempts" / f"{self.attempts:02d}-implementer")
        out = agent_step(
            AgentCall(
                request=request,
                attempt_dir=self.attempt_dir,
                reset_to=self.head,
                deadline=self.deadline,
                commit=commit,
            )
        )
        self.count(out.tokens)
        self.stopped = self.stopped or out.stopped
        self.session = out.result.session_id or self.session
        return out.result, out.commit

    # ------------------------------------------------------------ steps
    def implement(self) -> TaskOutcome | None:
        if self.rt.options.task_wall_s is not None:
            self.deadline = clock_step() + self.rt.options.task_wall_s
        self.emit("implement", f"implementing {self.task.id}: {self.task.name}")
        files = self.files(list(self.task.files)) if self.task.files else "None listed."
        ended = implement_turns(self, files)
        if ended is not None:
            return ended
        checks = task_checks(self.task)
        also = f" and running {len(checks)} check(s) of it" if checks else ""
        self.emit("commit", f"committing {self.task.id}{also}")
        made = commit_step(
            CommitCall(
                worktree=str(self.worktree),
                message=f"{self.task.id}: {self.task.name}",
                key=TrailerLine(Trailer.TASK, self.key).format(),
                onto=self.start,
                checks=list(checks),
                checks_folder=str(self.checks_folder(self.check_rounds + 1)),
            )
        )
        if made.commit is None:
            return self.escalate("the implementer changed nothing")
        self.commit = self.head = made.commit
        if made.checks is None:
            return None
        self.check_rounds += 1  # the first round ran in the commit's step
        return self.checked_as(made.checks)

    def checks_folder(self, number: int) -> Path:
        return self.task_dir / "checks" / f"{number:02d}"

    def checks_round(self) -> TaskOutcome | None:
        """Run the checks on the current head (after a fix: the first round runs in the
        commit's step), and go on from their results (`checked_as`)."""
        checks = task_checks(self.task)
        self.check_rounds += 1
        self.emit("check", f"running {len(checks)} check(s) of {self.task.id}")
        folder = self.checks_folder(self.check_rounds)
        return self.checked_as(check_step(str(self.worktree), list(checks), str(folder)))

    def checked_as(self, checks: list[CheckResult]) -> TaskOutcome | None:
        """The checks' results on the current head; on failure, a fix round (bounded, stall-
        detected)."""
        self.checks = checks
        self.checked = self.head
        self.judge_claim()
        failing = [c for c in self.checks if not c.passed]
        if not failing:
            self.last_failure = None
            return None
        signature = _signature(failing)
        if signature == self.last_failure:
            return self.escalate("checks still fail the same way after a fix (stalled)")
        self.last_failure = signature
        if self.rounds_left <= 1:
            cap = self.rt.options.review.max_rounds
            return self.escalate(f"checks still fail at the revision cap ({cap} rounds)")
        return self.fix_checks(failing)

    def judge_claim(self) -> None:
        """Set the implementer's claim against the first checks of its change (once): the
        record keeps both; a claim of success never outweighs a failing check."""
        if self.claim is None or self.claim_checked:
            return
        self.claim_checked = True
        self.judgement = judge_claim(self.claim, self.checks)
        if self.judgement and self.judgement.discrepancy:
            self.emit("check", f"{self.task.id}: {self.judgement.discrepancy}")

    def fix_checks(self, failing: list[CheckResult]) -> TaskOutcome | None:
        self.emit("fix", f"{len(failing)} check(s) failed: asking for a fix")
        names = ", ".join(c.run for c in failing)[:300]
        result, sha = self.run_agent(
            check_fix_prompt(failing, self.files()),
            commit=FixCommit(
                message=f"mergegate: fix failing checks\n\nChecks: {names}\n",
                key=TrailerLine.fix(self.key, f"checks-{self.check_rounds:02d}").format(),
                amend=self.rt.options.fix_commits == "amend",
            ),
        )
        if not result.ok:
            return self.agent_failed(result, "the implementer failed to fix the checks")
        self.notes = result.text
        if sha is None:
            return self.escalate("checks fail and the implementer changed nothing")
        self.head = sha
        self.rounds_left -= 1
        return None

    def run_review(self) -> TaskOutcome | None:
        """Review (and fix) the task's change; None when it must go round again."""
        mode = self.rt.options.review_mode
        number = len(self.reports) + 1
        run_dir = self.task_dir / ("review" if number == 1 else f"review-{number}")
        options = self.rt.options.review.model_copy(
            update={
                "base": self.start,
                "head": self.head,
                "spec": self.spec,
                "scope": self.task.id,
                "fix": mode == "auto",
                "max_rounds": max(1, self.rounds_left),
            }
        )
        self.emit("review", f"reviewing {self.task.id} ({mode})")
        call = ReviewCall(
            options=options,
            run_dir=str(run_dir),
            task_dir=str(self.task_dir),
            worktree=str(self.worktree),
            phase=self.phase_id,
            unit=self.unit_id,
            task=self.task.id,
            key=self.key,
            session=self.session,
            deadline=self.deadline,
            amend=self.rt.options.fix_commits == "amend",
        )
        while True:
            out = review_step(self.rt, call)
            self.count(out.tokens)
            self.stopped = self.stopped or out.stopped
            call = call.model_copy(update={"state": out.state})
            if out.outcome is not None:
                break
        self.reviewed_at = out.reviewed_at
        return self.reviewed_as(out.state, out.outcome)

    def reviewed_as(self, state: ReviewState, review: ReviewRecord) -> TaskOutcome | None:
        self.review = review
        self.record_review(review)
        self.reports.append(review.report_dir)
        self.head = self.reviewed = state.current.head_sha
        self.session = state.implementer_session or self.session
        self.review_rounds += len(state.rounds)
        self.rounds_left -= len(state.rounds)
        status, mode = review.status, self.rt.options.review_mode
        if status is ReviewStatus.APPROVED:
            return self.ask_person(review) if mode == "manual" else None
        if mode == "manual" and status in (ReviewStatus.CHANGES_REQUESTED, ReviewStatus.REJECTED):
            return self.ask_person(review)
        return self.review_failed(review)

    def record_review(self, review: ReviewRecord) -> None:
        """Keep what a finished review recorded for the task's report: its findings (by id,
        the latest record wins) and each reviewer attempt with its verdict's summary."""
        number = len(self.reports)
        for record in review.findings:
            self.findings[record.finding.id] = record
        self.verdicts += [
            VerdictEntry(
                review=number,
                round=rnd.round,
                stage=a.stage,
                attempt=a.attempt,
                decision=a.decision,
                summary=a.summary,
                confidence=a.confidence,
                answer_via=a.answer_via,
            )
            for rnd in review.rounds
            for a in rnd.attempts
        ]

    def ask_person(self, review: ReviewRecord) -> TaskOutcome:
        status = review.status.value
        self.emit("waiting", f"{self.task.id}: review {status}; asking the person at the terminal")
        lines = [f"Task {self.task.id} ({self.task.name}): review {status}: {review.message}"]
        lines += [
            f"  [{r.finding.severity.value}] {r.finding.id}: {r.finding.title}"
            for r in review.findings
            if r.status is FindingStatus.OPEN
        ]
        lines.append(f"reports: {review.report_dir}")
        if human_step("\n".join(lines)):
            return self.outcome("approved", "approved by a person after the review")
        return self.escalate("rejected by a person after the review")

    def review_failed(self, review: ReviewRecord) -> TaskOutcome:
        status, message = review.status, review.message
        if status is ReviewStatus.UNDECIDABLE:
            return self.outcome("undecidable", message, ExitCode.UNDECIDABLE)
        if status is ReviewStatus.AGENT_FAILED:
            if self.stopped:
                return self.ended_by_stop()
            return self.outcome("failed", message, ExitCode.AGENT_FAILURE)
        return self.escalate(message)

    # ------------------------------------------------------------ the whole task
    def next(self) -> TaskOutcome | None:
        """The next step of the task; an outcome when it ended."""
        if task_checks(self.task) and self.checked != self.head:
            return self.checks_round()
        if self.rt.options.review_mode == "off":
            return self.outcome("approved", "not reviewed (review.mode = off); checks pass")
        if self.reviewed != self.head:
            if self.rounds_left <= 0:
                cap = self.rt.options.review.max_rounds
                return self.escalate(f"revision cap reached ({cap} rounds)")
            return self.run_review()
        message = (self.review.message if self.review else "") or "approved"
        return self.outcome("approved", message)

    def run(self) -> TaskOutcome:
        ended = self.implement()
        while ended is None:
            ended = self.next()
        return ended


def _signature(failing: list[CheckResult]) -> str:
    text = "\n".join(f"{c.run}\0{c.exit}\0{c.output}" for c in failing)
    return hashlib.sha256(text.encode()).hexdigest()


def _check_findings(checks: list[CheckResult]) -> list[CheckFinding]:
    return [
        CheckFinding(
            id=f"CHECK-{i}", title=f"check `{c.run}` exited {c.exit} (expected {c.expect_exit})"
        )
        for i, c in enumerate((c for c in checks if not c.passed), start=1)
    ]


@workflow("mergegate.task")
def task_workflow(args: TaskArgs) -> TaskOutcome:
    """Run one task of a unit in the unit's work tree; its `TaskOutcome`.

    `args.workspace` is the unit's workspace as its step recorded it: adopted first (a task
    recovered after a crash may run before its unit's workflow replays to it)."""
    rt = current()
    rt.adopt(args.workspace)
    pipeline = _Pipeline(rt, args)
    with working_on(pipeline.phase_id, pipeline.unit_id, pipeline.task.id):
        outcome = pipeline.run()
    pipeline.emit(
        "done",
        f"{outcome.id}: {outcome.decision}" + (f" ({outcome.reason})" if outcome.reason else ""),
    )
    return outcome
