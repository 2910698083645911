"""The values workflows return: a task's decision, a unit's status, a phase's result.

Workflows hand these to DBOS as plain JSON-able dicts (`.dump()`), so a recorded run can be read
back by any later version that keeps these field names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TaskOutcome", "UnitOutcome", "UnitStatus"]

TaskDecision = Literal[
    "approved",
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
    open_findings: list[dict[str, Any]] = Field(default_factory=list)
    checks: list[dict[str, Any]] = Field(default_factory=list)
    reports: list[str] = Field(default_factory=list)
    rounds: int = 0
    tokens: int = 0
    exit_code: int = 0
    answer: dict[str, Any] | None = None
    """A person's answer to a checkpoint task."""
    agent_result: dict[str, Any] | None = None
    """The implementer's validated `agent-result` (its claim; the checks and review decide)."""
    judgement: dict[str, Any] | None = None
    """The claim set against the task's first checks (`TaskJudgement`: both, side by side)."""
    help_requests: int = 0
    """Help requests answered by advisors (or escalated) for this task."""


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
