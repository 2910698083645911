"""The task pipeline: implement → commit → check → review → fix rounds → decision.

One task is one durable workflow (a child of its unit's), under a stable id
`<run>/<unit>/<task>`: once it finished, a replay of its unit (after a crash, or a new
generation after `resume --answer`) gets its recorded outcome in one read, never its steps.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from mergegate.agents.base import AgentRequest, AgentResult
from mergegate.decisions import ExitCode
from mergegate.engine._outcomes import TaskOutcome
from mergegate.engine._plan import task_checks, task_spec
from mergegate.engine._review import TaskReview, review_task
from mergegate.engine._runtime import Runtime, current
from mergegate.engine._steps import (
    Cursor,
    DurableBackend,
    DurableRepository,
    check_step,
    commit_step,
    human_step,
)
from mergegate.engine.events import RunEvent
from mergegate.git import GitRepository
from mergegate.plans import Task
from mergegate.review import ReviewStatus
from mergegate.review.reports import fence
from mergegate.store import step, workflow

__all__ = ["task_workflow"]

_NOTES_CHARS = 4000
_FILES_LIMIT = 100_000


@step("mergegate.clock")
def clock_step() -> float:
    """Now, recorded (a task's wall-time budget starts at a fixed moment across replays)."""
    return time.time()


def _files_block(worktree: Path, head: str, paths: list[str]) -> str:
    repo = GitRepository(worktree)
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


def implement_prompt(spec: str, files: str) -> str:
    return (
        "You are the implementer of one task of a plan. Work in the current directory (a git "
        "work tree for this unit of the plan). Do not commit: mergegate commits your changes "
        "as one commit per task, then runs the task's checks and a two-stage review.\n\n"
        f"{spec}\n## The task's files as they are now\n\n{files}\n\n"
        "When you are done, reply with a short note of what you changed and why."
    )


def check_fix_prompt(failing: list[dict[str, Any]], files: str) -> str:
    lines = [
        "The checks mergegate ran after your change failed. Fix the cause so that they pass, "
        "and change nothing else. Do not commit: mergegate commits your changes itself.",
        "",
        "## Failing checks",
        "",
    ]
    for i, check in enumerate(failing, start=1):
        lines.append(
            f"- [CHECK-{i}] (critical) `{check['run']}` exited {check['exit']} "
            f"(expected {check['expect_exit']}; {check['reason']}); the end of its output:"
        )
        lines.append(fence(check["output"] or "(no output)\n"))
    lines += ["## The files of the change, as they are now", "", files, ""]
    lines.append("When you are done, reply with one line per check saying what you changed.")
    return "\n".join(lines)


class _Pipeline:
    """The steps of one task, in order; each method returns an outcome when the task ends."""

    def __init__(self, rt: Runtime, args: dict[str, Any]) -> None:
        self.rt = rt
        self.phase_id, self.unit_id, self.index = args["phase"], args["unit"], args["index"]
        self.task: Task = rt.task(self.phase_id, self.unit_id, self.index)
        unit_dir = rt.unit_dir(self.phase_id, self.unit_id)
        self.start = args["start"]
        self.cursor = Cursor(
            run_id=rt.run_id,
            phase=self.phase_id,
            unit=self.unit_id,
            task=self.task.id,
            number=self.index + 1,
            worktree=Path(args["worktree"]),
            task_dir=unit_dir / self.task.id,
            head=self.start,
            session=args.get("session"),
        )
        phase, unit = rt.phase(self.phase_id), rt.unit(self.phase_id, self.unit_id)
        self.spec = task_spec(rt.plan, phase, unit, self.task)
        self.backend = DurableBackend(
            "implementer", rt.implementer.name, rt.implementer.capabilities, self.cursor
        )
        self.commit: str | None = None
        self.notes = ""
        self.checks: list[dict[str, Any]] = []
        self.reviews: list[TaskReview] = []
        self.rounds_left = rt.options.max_rounds

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

    def outcome(self, decision: str, reason: str = "", code: ExitCode = ExitCode.OK) -> TaskOutcome:
        last = self.reviews[-1] if self.reviews else None
        return TaskOutcome(
            id=self.task.id,
            number=self.cursor.number,
            name=self.task.name,
            decision=decision,
            reason=reason,
            review_status=last.status if last else None,
            start=self.start,
            head=self.cursor.head,
            commit=self.commit,
            session=self.cursor.session,
            notes=self.notes[-_NOTES_CHARS:],
            open_findings=(last.open_findings if last else []) + _check_findings(self.checks),
            checks=self.checks,
            reports=[r.report_dir for r in self.reviews],
            rounds=sum(r.rounds for r in self.reviews),
            tokens=sum(self.cursor.usage.values()),
            exit_code=int(code),
        )

    def agent_failed(self, result: AgentResult, what: str) -> TaskOutcome:
        if self.cursor.stopped:
            return self.stopped()
        why = result.error or result.status.value
        return self.outcome("failed", f"{what}: {why}", ExitCode.AGENT_FAILURE)

    def stopped(self) -> TaskOutcome:
        reason = self.cursor.stopped or "stopped"
        if reason.startswith("budget"):
            return self.outcome("needs_manual_review", reason, ExitCode.ESCALATED)
        return self.outcome("cancelled", reason, ExitCode.AGENT_FAILURE)

    def files(self, paths: list[str] | None = None) -> str:
        if paths is None:
            paths = GitRepository(self.cursor.worktree).changed_files(self.start, self.cursor.head)
        return _files_block(self.cursor.worktree, self.cursor.head, paths)

    # ------------------------------------------------------------ steps
    def implement(self) -> TaskOutcome | None:
        opts = self.rt.options
        if opts.task_wall_s is not None:
            self.cursor.deadline = clock_step() + opts.task_wall_s
        self.emit("implement", f"implementing {self.task.id}: {self.task.name}")
        files = self.files(list(self.task.files)) if self.task.files else "None listed."
        result = self.backend.run(
            AgentRequest(
                prompt=implement_prompt(self.spec, files),
                cwd=self.cursor.worktree,
                timeout_s=opts.agent_timeout_s,
                stall_timeout_s=opts.stall_timeout_s,
            )
        )
        if not result.ok:
            return self.agent_failed(result, "the implementer failed")
        self.notes = result.text
        self.emit("commit", f"committing {self.task.id}")
        sha = commit_step(
            {
                "worktree": str(self.cursor.worktree),
                "message": f"{self.task.id}: {self.task.name}",
                "key": f"Mergegate-Task: {self.cursor.key}",
                "squash_onto": self.start,
            }
        )
        if sha is None:
            return self.outcome(
                "needs_manual_review", "the implementer changed nothing", ExitCode.ESCALATED
            )
        self.commit = self.cursor.head = sha
        return None

    def run_checks(self, round_no: int) -> list[dict[str, Any]]:
        checks = task_checks(self.task)
        if not checks:
            return []
        self.emit("check", f"running {len(checks)} check(s) of {self.task.id}")
        folder = self.cursor.task_dir / "checks" / f"{round_no:02d}"
        self.checks = check_step(
            str(self.cursor.worktree), [c.model_dump(mode="json") for c in checks], str(folder)
        )
        return [c for c in self.checks if not c["passed"]]

    def fix_checks(self, failing: list[dict[str, Any]]) -> TaskOutcome | None:
        self.emit("fix", f"{len(failing)} check(s) failed: asking for a fix")
        opts = self.rt.options
        result = self.backend.run(
            AgentRequest(
                prompt=check_fix_prompt(failing, self.files()),
                cwd=self.cursor.worktree,
                timeout_s=opts.agent_timeout_s,
                stall_timeout_s=opts.stall_timeout_s,
            )
        )
        if not result.ok:
            return self.agent_failed(result, "the implementer failed to fix the checks")
        self.notes = result.text
        repo = DurableRepository(self.cursor, amend=opts.fix_commits == "amend")
        names = ", ".join(c["run"] for c in failing)[:300]
        if repo.commit_all(f"mergegate: fix failing checks\n\nChecks: {names}\n") is None:
            return self.outcome(
                "needs_manual_review",
                "checks fail and the implementer changed nothing",
                ExitCode.ESCALATED,
            )
        self.rounds_left -= 1
        return None

    def review(self) -> TaskOutcome | None:
        """Review (and fix) the task; None when it must go round again (checks to re-run)."""
        mode = self.rt.options.review_mode
        reviewed = self.cursor.head
        self.emit("review", f"reviewing {self.task.id} ({mode})")
        review = review_task(
            self.cursor,
            base=self.start,
            spec=self.spec,
            fix=mode == "auto",
            max_rounds=max(1, self.rounds_left),
        )
        self.reviews.append(review)
        self.rounds_left -= review.rounds
        if review.approved:
            if mode == "manual":
                return self.ask_person(review)
            if review.head != reviewed and task_checks(self.task):
                return None  # fix commits since the checks ran: check again
            return self.outcome("approved", review.message)
        if mode == "manual" and review.status in (
            ReviewStatus.CHANGES_REQUESTED.value,
            ReviewStatus.REJECTED.value,
        ):
            return self.ask_person(review)
        return self.review_failed(review)

    def ask_person(self, review: TaskReview) -> TaskOutcome:
        self.emit(
            "waiting", f"{self.task.id}: review {review.status}; asking the person at the terminal"
        )
        lines = [
            f"Task {self.task.id} ({self.task.name}): review {review.status}: {review.message}"
        ]
        lines += [
            f"  [{f.get('severity')}] {f.get('id')}: {f.get('title')}" for f in review.open_findings
        ]
        lines.append(f"reports: {review.report_dir}")
        if human_step("\n".join(lines)):
            return self.outcome("approved", "approved by a person after the review")
        return self.outcome(
            "needs_manual_review", "rejected by a person after the review", ExitCode.ESCALATED
        )

    def review_failed(self, review: TaskReview) -> TaskOutcome:
        if review.status == ReviewStatus.UNDECIDABLE.value:
            return self.outcome("undecidable", review.message, ExitCode.UNDECIDABLE)
        if review.status == ReviewStatus.AGENT_FAILED.value:
            if self.cursor.stopped:
                return self.stopped()
            return self.outcome("failed", review.message, ExitCode.AGENT_FAILURE)
        return self.outcome("needs_manual_review", review.message, ExitCode.ESCALATED)

    # ------------------------------------------------------------ the whole task
    def escalate(self, reason: str) -> TaskOutcome:
        return self.outcome("needs_manual_review", reason, ExitCode.ESCALATED)

    def checks_round(
        self, round_no: int, last_failure: str | None
    ) -> tuple[TaskOutcome | None, str | None]:
        """Run the checks; on failure ask for a fix (bounded, stall-detected). Returns an
        ending outcome (or None) and the failure signature (None when the checks pass)."""
        failing = self.run_checks(round_no)
        if not failing:
            return None, None
        signature = _signature(failing)
        if signature == last_failure:
            return self.escalate("checks still fail the same way after a fix (stalled)"), signature
        if self.rounds_left <= 1:
            cap = self.rt.options.max_rounds
            return self.escalate(f"checks still fail at the revision cap ({cap} rounds)"), signature
        return self.fix_checks(failing), signature

    def run(self) -> TaskOutcome:
        ended = self.implement()
        round_no, last_failure = 0, None
        while ended is None:
            round_no += 1
            ended, failure = self.checks_round(round_no, last_failure)
            if ended is not None or failure is not None:
                last_failure = failure
                continue
            if self.rt.options.review_mode == "off":
                return self.outcome("approved", "not reviewed (review.mode = off); checks pass")
            if self.rounds_left <= 0:
                return self.escalate(f"revision cap reached ({self.rt.options.max_rounds} rounds)")
            ended = self.review()
        return ended


def _signature(failing: list[dict[str, Any]]) -> str:
    text = "\n".join(f"{c['run']}\0{c['exit']}\0{c['output']}" for c in failing)
    return hashlib.sha256(text.encode()).hexdigest()


def _check_findings(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": f"CHECK-{i}",
            "severity": "critical",
            "status": "open",
            "stage": "check",
            "title": f"check `{c['run']}` exited {c['exit']} (expected {c['expect_exit']})",
        }
        for i, c in enumerate((c for c in checks if not c["passed"]), start=1)
    ]


@workflow("mergegate.task")
def task_workflow(args: dict[str, Any]) -> dict[str, Any]:
    """Run one task of a unit in the unit's work tree; its `TaskOutcome` as a dict."""
    rt = current()
    pipeline = _Pipeline(rt, args)
    outcome = pipeline.run()
    pipeline.emit(
        "done",
        f"{outcome.id}: {outcome.decision}" + (f" ({outcome.reason})" if outcome.reason else ""),
    )
    return outcome.dump()
