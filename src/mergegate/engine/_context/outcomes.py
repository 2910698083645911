"""The values workflows take and return and the run's state holds: each workflow's arguments,
a task's decision, a unit's status, a phase's result, a person's answer.

Workflows and steps take and return these models; DBOS records them as plain JSON-able dicts,
dumped and validated at one seam (`mergegate.store.Seam`), so a recorded run can be read back
by any later version that keeps these field names (and their order: the recorded form is
pinned by `tests/test_dbos_seam.py` and `tests/test_persisted_golden.py`); the same values
are the rows of the run's state in its database (`mergegate.store.RunRows`), which `status`,
the next generation and `resume` read (never the copies in the run's folder).

A task's outcome carries the models of the packages that define them — the review's
`FindingRecord` (in its flat recorded form), the handoff's `AgentResultPayload`, the
implementer's `TaskJudgement` — never a dict of them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.git import Workspace
from mergegate.handoff import AgentResultPayload
from mergegate.implementer import TaskJudgement
from mergegate.review.ledger import FlatFindingRecord
from mergegate.verdicts import Finding, Severity

__all__ = [
    "CheckFinding",
    "CheckResult",
    "CheckpointAnswer",
    "Merged",
    "OpenFinding",
    "PhaseArgs",
    "PhaseOutcome",
    "PhaseResult",
    "RunArgs",
    "RunResult",
    "TakeoverAnswer",
    "TaskArgs",
    "TaskOutcome",
    "UnitArgs",
    "UnitOutcome",
    "UnitStatus",
    "VerdictEntry",
    "VerificationOutcome",
    "WorkspaceRecord",
]

TaskDecision = Literal[
    "approved",
    "skipped",
    "needs_manual_review",
    "failed",
    "undecidable",
    "waiting_for_human",
    "cancelled",
    "not_run",
]
UnitStatus = Literal[
    "pending",
    "running",
    "ready",
    "merged",
    "needs_manual_review",
    "skipped",
    "failed",
    "cancelled",
    "waiting_for_human",
]


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class RunArgs(_Value):
    """The run workflow's input: its generation, and the integration tip the run was created
    at (a later generation starts from the tip its previous one recorded instead)."""

    generation: int
    tip: str


class PhaseArgs(_Value):
    """A phase workflow's input: the phase, the generation, the integration tip it starts
    from."""

    phase: str
    generation: int
    tip: str


class UnitArgs(_Value):
    """A unit workflow's input: the phase, the unit, the integration tip its branch starts
    from."""

    phase: str
    unit: str
    base: str


class TaskArgs(_Value):
    """A task workflow's input: where the task starts (`start`, the implementer `session` it
    resumes), and the unit's workspace as its step recorded it. `again` names a run a person
    asked for (`retry-gN`): its folders and commit keys are its own; absent from the recorded
    form when empty, as before it was typed."""

    phase: str
    unit: str
    index: int
    start: str
    session: str | None
    worktree: str
    workspace: Workspace
    again: str = Field(default="", exclude_if=lambda again: not again)


class CheckResult(_Value):
    """One machine check as its step ran it: the command, the exit it expected and got, why
    it ended (`exited`, `timeout`, …), whether it passed, the end of its output."""

    run: str
    expect_exit: int
    exit: int | None
    reason: str
    passed: bool
    output: str
    duration_s: float


class CheckFinding(_Value):
    """A failing check as an open blocking finding of its task (`CHECK-<n>`): a program's
    finding, not a reviewer's, so it has no place in a file and no history."""

    id: str
    severity: Severity = Severity.CRITICAL
    status: Literal["open"] = "open"
    stage: Literal["check"] = "check"
    title: str

    @property
    def finding(self) -> Finding:
        """The finding it is, in the verdicts' terms (as a review's record holds one)."""
        return Finding(id=self.id, severity=self.severity, title=self.title)


OpenFinding = FlatFindingRecord | CheckFinding
"""A finding a task left open: a review's (its record, flat) or a failing check's."""


class VerdictEntry(_Value):
    """One reviewer attempt of a task's reviews, as the task's report lists it: which review
    and round, the stage and attempt, the decision (`none` when the agent run failed) and the
    verdict object's one-line `summary` and `confidence` (`AttemptSummary`'s, in short)."""

    review: int
    round: int
    stage: str
    attempt: int
    decision: str
    summary: str
    confidence: float | None
    answer_via: str


class TaskOutcome(_Value):
    """How one task ended."""

    id: str
    number: int
    name: str = ""
    decision: TaskDecision
    reason: str = ""
    review_status: str | None = None
    start: str = ""
    head: str = ""
    commit: str | None = None
    """The task's own commit (before any fix commits)."""
    session: str | None = None
    notes: str = ""
    """The implementer's last words (its implementation notes)."""
    open_findings: list[OpenFinding] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    reports: list[str] = Field(default_factory=list)
    rounds: int = 0
    tokens: int = 0
    exit_code: int = 0
    answer: CheckpointAnswer | TakeoverAnswer | None = None
    """A person's answer to the task: a checkpoint's, or the takeover it ended with."""
    agent_result: AgentResultPayload | None = None
    """The implementer's validated `agent-result` (its claim; the checks and review decide)."""
    judgement: TaskJudgement | None = None
    """The claim set against the task's first checks (both, side by side)."""
    help_requests: int = 0
    """Help requests answered by advisors (or escalated) for this task."""
    stopped: bool = False
    """The task ended because the run refused its agents (a budget, a stop request): the run
    is stopping, so its unit does not go on without it."""
    reviewed_at: float | None = None
    """When the task's last review ended (recorded by its step)."""
    findings: list[FlatFindingRecord] = Field(default_factory=list)
    """Every finding the task's reviews recorded (recorded flat: `FindingRecord.to_dict()`),
    the latest record of each id."""
    verdicts: list[VerdictEntry] = Field(default_factory=list)
    """Every reviewer attempt of the task's reviews."""
    review_outputs: list[str] = Field(default_factory=list)
    """The starts of the reviewer outputs a review could not decide from (both attempts of a
    stage that stayed malformed or empty, or a failed run's): shown to the person (seed 000:
    "Display both outputs for debugging")."""


class UnitOutcome(_Value):
    """How one unit ended (or where it stands)."""

    id: str
    phase: str
    status: UnitStatus
    reason: str = ""
    branch: str = ""
    worktree: str = ""
    """The unit's workspace (a repository of its own, borrowing the user's objects)."""
    base: str = ""
    """The integration branch's commit the unit started from."""
    head: str = ""
    merge_commit: str | None = None
    tasks: list[TaskOutcome] = Field(default_factory=list)
    exit_code: int = 0
    escalation: str | None = None
    """The folder of the package a person needs (conflict, open findings)."""
    started: float | None = None
    finished: float | None = None
    """When the unit started and finished its tasks (recorded; GSD summaries use them)."""


class VerificationOutcome(_Value):
    """A phase's verification as its phase records it (the whole result is a row of its own,
    `StateKind.VERIFICATION`)."""

    status: str
    reason: str = ""
    report: str = ""
    """The `VERIFICATION.md` written for people."""
    questions: list[str] = Field(default_factory=list)
    """Criteria a person is asked about."""
    counts: dict[str, int] = Field(default_factory=dict)
    verifier: str = ""


class PhaseOutcome(_Value):
    """A phase of a run: the integration branch's commit it started from, its units and its
    verification (None when it did not run)."""

    id: str
    base: str = ""
    units: list[UnitOutcome] = Field(default_factory=list)
    verification: VerificationOutcome | None = None


class PhaseResult(PhaseOutcome):
    """What a phase workflow returns: the phase as recorded, and the integration tip after
    it (its merges and write-backs)."""

    tip: str


class RunResult(_Value):
    """What a run workflow returns: the phases that ran and the tip they left (absent from a
    run of an older mergegate: `""`)."""

    phases: list[PhaseResult] = Field(default_factory=list)
    tip: str = ""


class Merged(_Value):
    """A unit's merge as its step recorded it: the merge commit (None for a conflict), or the
    paths that conflicted, and the three commits; `already` is set by the workflow once the
    branch move is known (moved before a crash)."""

    commit: str | None
    already: bool
    conflicts: list[str]
    ours: str
    theirs: str
    base: str


class CheckpointAnswer(_Value):
    """A person's answer to a checkpoint task, given with `resume --answer`."""

    answer: Literal["approve", "reject"]
    note: str = ""
    at: float
    who: str = "unknown"


class TakeoverAnswer(_Value):
    """A person taking over a task that went to them (escalated, failed), given with
    `resume --answer UNIT/TASK=approve|skip|retry`, for the generation it starts:

    * `approve` — they fixed the unit's branch by hand; `head` is the commit they approve
      (the branch's tip when they answered). The task's checks run on it first; a failing
      check refuses the approval.
    * `skip` — the task is recorded skipped; the unit goes on from the task's start.
    * `retry` — the task runs again from its start, in a fresh implementer session."""

    answer: Literal["approve", "skip", "retry"]
    generation: int
    head: str | None = None
    note: str = ""
    at: float
    who: str = "unknown"


class WorkspaceRecord(_Value):
    """Where a unit's workspace is, on a fleet that shares a filesystem."""

    path: str
