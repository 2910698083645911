"""The run report as a model: what `run`, `resume`, `status` and `cancel` print (`--format
json`), and what `summary.json` holds, built once from the run's state and read by attribute.

Its JSON form (`RunReport.dump`) is the report's public shape (docs/run.md): the fields keep
their names and their order, and the optional ones (`metrics`, a fleet's `worker` and
`orphaned`) are absent, not null, when a report has none — pinned byte for byte against
recorded reports by `tests/test_run_report_model.py`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mergegate.engine._context.journal import NoCounts, RunCounts
from mergegate.engine._context.outcomes import VerificationOutcome
from mergegate.handoff import AgentResultPayload
from mergegate.implementer import TaskJudgement

__all__ = [
    "AlertEntry",
    "AnswerEntry",
    "CancelReport",
    "OrphanEntry",
    "PhaseEntry",
    "RunReport",
    "SandboxEntry",
    "TaskEntry",
    "UnitEntry",
]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskEntry(_Entry):
    """One task of a unit: its decision, commits, the implementer's claim and how it was
    judged, and the reports written for people."""

    id: str
    name: str = ""
    decision: str
    reason: str = ""
    review_status: str | None = None
    commit: str | None = None
    head: str | None = None
    help_requests: int = 0
    agent_result: AgentResultPayload | None = None
    """The implementer's validated `agent-result`, as its task recorded it."""
    judgement: TaskJudgement | None = None
    """The claim set against the task's first checks, as its task recorded it."""
    review_outputs: list[str] = Field(default_factory=list)
    reports: list[str] = Field(default_factory=list)


class UnitEntry(_Entry):
    """One unit of the run: where it stands, its branch and workspace, its tasks."""

    id: str
    phase: str
    status: str
    reason: str = ""
    branch: str = ""
    workspace: str | None = None
    merge_commit: str | None = None
    summary: str
    escalation: str | None = None
    tasks: list[TaskEntry] = Field(default_factory=list)
    exit_code: int = 0
    worker: str | None = Field(default=None, exclude_if=lambda worker: worker is None)
    """A queued run's unit: the fleet worker holding it now ("" for none); absent otherwise."""


class PhaseEntry(_Entry):
    """One phase: `not_started`, `incomplete`, `not_verified` or `completed`, and its
    verification (None when it was not verified)."""

    id: str
    name: str
    status: str
    verification: VerificationOutcome | None = None


class AlertEntry(_Entry):
    """An alert of the run's event stream (`mergegate.events.Alert`, where and what)."""

    phase: str | None = None
    unit: str | None = None
    task: str | None = None
    rule: str
    component: str
    subject: str = ""
    value: float
    threshold: float
    message: str


class SandboxEntry(_Entry):
    """The run's sandbox as recorded when it started, and one line for people."""

    enabled: bool
    allow: list[str] = Field(default_factory=list)
    read: list[str] = Field(default_factory=list)
    summary: str


class AnswerEntry(_Entry):
    """A person's answer to a task (a checkpoint or a takeover), with who and when."""

    unit: str
    task: str
    answer: str
    who: str
    at: str
    note: str = ""
    generation: int | None = None
    head: str | None = None


class OrphanEntry(_Entry):
    """An agent of a dead fleet worker (or of a worker's earlier process) on another host,
    found by a live one."""

    worker: str
    noted_by: str
    pid: int
    pgid: int
    program: str
    host: str | None = Field(default=None, exclude_if=lambda host: host is None)
    """The host the agent runs on (absent for a record made before hosts were recorded)."""
    noted_on: str | None = Field(default=None, exclude_if=lambda host: host is None)
    """The host `noted_by` found it from (absent likewise)."""


class RunReport(_Entry):
    """The run as one object (see docs/run.md for its fields)."""

    run_id: str
    status: str
    exit_code: int | None
    message: str
    into: str
    remote: str | None
    base: str
    plan: str
    started: str
    finished: str | None
    run_dir: str
    phases: list[PhaseEntry]
    units: list[UnitEntry]
    alerts: list[AlertEntry]
    report: str | None
    sandbox: SandboxEntry
    answers: list[AnswerEntry]
    next: str = ""
    metrics: RunCounts | NoCounts | None = Field(
        default=None, exclude_if=lambda metrics: metrics is None
    )
    """The run's counts, once it finished here (`NoCounts`: its stream could not be read)."""
    worker: str | None = Field(default=None, exclude_if=lambda worker: worker is None)
    """A queued run: the fleet worker running its phases and merges ("" for none)."""
    orphaned: list[OrphanEntry] | None = Field(
        default=None, exclude_if=lambda orphaned: orphaned is None
    )
    """A queued run: agents of dead workers on other hosts."""

    def dump(self) -> dict[str, Any]:
        """The report's JSON form (what `--format json` prints and `summary.json` holds)."""
        return self.model_dump(mode="json")


class CancelReport(RunReport):
    """`cancel`'s report: the run's, and what it killed and removed."""

    killed_groups: int = 0
    """How many recorded agent groups were signalled on this host."""
    removed_worktrees: list[str] = Field(default_factory=list)
