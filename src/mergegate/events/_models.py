"""The typed events of one run: a pydantic model per kind, one discriminated union.

Every event shares a small header (`schema_version`, `kind`, `event_id`, `at`, and where it
happened: `run_id`, `phase`, `unit`, `task`) and adds the fields of its kind. Models are frozen
and forbid unknown fields, so a known kind is read strictly; kinds this version does not know
are read as `UnknownEvent` by `mergegate.events.read_events` (kept, never a crash).

Bounds: agent output is untrusted and can be huge, so every text field is cut on construction
(`…[+N chars]` marks the cut) and every list is capped; the longest possible event serialises
well under `MAX_LINE_BYTES` (a property test checks it), so one event is one bounded line.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "KINDS",
    "MAX_LINE_BYTES",
    "SCHEMA_VERSION",
    "AgentAttempt",
    "AgentRole",
    "Alert",
    "AlertRule",
    "CheckRun",
    "Escalation",
    "EventBase",
    "FindingRef",
    "FixRound",
    "HandoffAttempt",
    "HandoffFinished",
    "HelpAdvice",
    "HelpRequested",
    "KnownEvent",
    "MergeResult",
    "Notice",
    "PhaseFinished",
    "PhaseStarted",
    "ReviewFinished",
    "RunFinished",
    "RunStarted",
    "StepProgress",
    "TaskFinished",
    "TaskStarted",
    "UnitEscalated",
    "UnitFinished",
    "UnitMerged",
    "UnitSkipped",
    "UnitStarted",
    "VerdictEvent",
    "VerificationEvent",
    "Wave",
]

SCHEMA_VERSION: Literal[1] = 1
"""Bumped when a field of a known kind changes meaning or is removed (adding a kind is not a
bump: old readers keep new kinds as `UnknownEvent`)."""
MAX_LINE_BYTES = 64 * 1024
"""No event line is longer than this (the sink refuses one that would be: a bug, not data)."""

SHORT = 200
"""Names, ids, backends, statuses, paths' last parts."""
LINE = 1_000
"""One line of untrusted text: an error, a reason, an evidence line, a command."""
TEXT = 4_000
"""A paragraph of untrusted text: advice, a help context."""
MAX_FINDINGS = 50
MAX_IDS = 100


def _cut(limit: int) -> Any:
    def cut(value: Any) -> Any:
        if isinstance(value, str) and len(value) > limit:
            keep = limit - 16
            return f"{value[:keep]}…[+{len(value) - keep} chars]"
        return value

    return BeforeValidator(cut)


def _cap(limit: int) -> Any:
    def cap(value: Any) -> Any:
        if isinstance(value, list | tuple) and len(value) > limit:
            return tuple(value[:limit])
        if isinstance(value, dict) and len(value) > limit:
            return dict(list(value.items())[:limit])
        return value

    return BeforeValidator(cap)


def _utc(value: datetime) -> datetime:
    """Naive times are taken as UTC; every time is stored in UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


Short = Annotated[str, _cut(SHORT)]
Line = Annotated[str, _cut(LINE)]
Text = Annotated[str, _cut(TEXT)]
Time = Annotated[datetime, AfterValidator(_utc)]
Ids = Annotated[tuple[Short, ...], _cap(MAX_IDS)]


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return uuid.uuid4().hex


class EventBase(BaseModel):
    """What every event carries. `event_id` identifies an event across replays: a producer that
    may emit the same event twice (a durable step re-run after a crash) gives it a stable id,
    and readers keep the first of each id."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    schema_version: Literal[1] = SCHEMA_VERSION
    kind: str
    event_id: Short = Field(default_factory=_new_id)
    at: Time = Field(default_factory=_now)
    run_id: Short = ""
    phase: Short = ""
    unit: Short = ""
    task: Short = ""

    @property
    def task_key(self) -> tuple[str, str, str, str]:
        """Where it happened, as one key (`""` parts when they do not apply)."""
        return (self.run_id, self.phase, self.unit, self.task)


# ---------------------------------------------------------------- run, phase, unit, task


class RunStarted(EventBase):
    kind: Literal["run.started"] = "run.started"
    plan: Line = ""
    plan_path: Line = ""
    repo: Line = ""
    into: Short = ""
    base_sha: Short = ""
    generation: int = 1
    agents: Annotated[dict[Short, Short], _cap(20)] = Field(default_factory=dict)
    """Role → backend name (`implementer`, `reviewer`, `advisor`, …)."""


class RunFinished(EventBase):
    kind: Literal["run.finished"] = "run.finished"
    status: Short
    """A run state: completed, escalated, waiting_for_human, failed, cancelled."""
    exit_code: int = 0
    message: Line = ""


class PhaseStarted(EventBase):
    kind: Literal["phase.started"] = "phase.started"
    name: Line = ""


class PhaseFinished(EventBase):
    kind: Literal["phase.finished"] = "phase.finished"
    status: Short
    """completed, incomplete, not_started."""


class Wave(EventBase):
    kind: Literal["wave"] = "wave"
    number: int
    units: Ids = ()


class UnitStarted(EventBase):
    kind: Literal["unit.started"] = "unit.started"
    name: Line = ""
    branch: Line = ""
    worktree: Line = ""


class UnitFinished(EventBase):
    kind: Literal["unit.finished"] = "unit.finished"
    status: Short
    """A unit status: ready, merged, needs_manual_review, skipped, failed, cancelled, …"""
    reason: Line = ""
    exit_code: int = 0


class UnitMerged(EventBase):
    kind: Literal["unit.merged"] = "unit.merged"
    into: Short = ""
    commit: Short = ""


class UnitEscalated(EventBase):
    kind: Literal["unit.escalated"] = "unit.escalated"
    reason: Line = ""
    package: Line = ""
    """The folder a person reads (a conflict package, open findings)."""


class UnitSkipped(EventBase):
    kind: Literal["unit.skipped"] = "unit.skipped"
    reason: Line = ""


class TaskStarted(EventBase):
    kind: Literal["task.started"] = "task.started"
    name: Line = ""
    number: int = 0


class TaskFinished(EventBase):
    kind: Literal["task.finished"] = "task.finished"
    decision: Short
    """A task decision: approved, needs_manual_review, failed, undecidable, cancelled, …"""
    reason: Line = ""
    exit_code: int = 0
    rounds: int = 0


class StepProgress(EventBase):
    """A progress line (the engine's `step` events, the review loop's progress) kept whole."""

    kind: Literal["step"] = "step"
    step: Short
    """implement, commit, check, review, fix, merge, waiting, done, round, …"""
    message: Line = ""
    round: int = 0
    stage: Short = ""


class Notice(EventBase):
    kind: Literal["notice"] = "notice"
    message: Line
    level: Literal["info", "warning"] = "info"


# ---------------------------------------------------------------- agents


AgentRole = Literal["implementer", "reviewer", "advisor", "verifier", "fixer"]
AgentStatus = Literal[
    "ok", "error", "timeout", "stalled", "crashed", "killed", "missing", "not_installed"
]


class _UsageLike(Protocol):
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cache_read_tokens(self) -> int: ...
    @property
    def cache_write_tokens(self) -> int: ...


class _ResultLike(Protocol):
    """The fields of `mergegate.agents.AgentResult` an attempt event reads (this layer cannot
    import the agents package, which sits above it)."""

    @property
    def backend(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def usage(self) -> _UsageLike: ...
    @property
    def cost_usd(self) -> float | None: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def error(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def signals(self) -> Sequence[object]: ...


class AgentAttempt(EventBase):
    """One agent run, whatever its role: what it cost and how it ended."""

    kind: Literal["agent.attempt"] = "agent.attempt"
    role: AgentRole
    backend: Short
    model: Short = ""
    operation: Short = ""
    """Which retryable operation of the task this attempt belongs to (e.g. a review run's
    name): attempts of one operation share role, round, stage and operation."""
    round: int = 0
    stage: Short = ""
    attempt: int = Field(1, ge=1)
    max_attempts: int = Field(0, ge=0)
    """The attempt budget of the operation; 0 when unknown."""
    started_at: Time | None = None
    duration_s: float = Field(0.0, ge=0)
    tokens_in: int = Field(0, ge=0)
    tokens_out: int = Field(0, ge=0)
    cache_read_tokens: int = Field(0, ge=0)
    cache_write_tokens: int = Field(0, ge=0)
    cost_usd: float | None = Field(None, ge=0)
    status: AgentStatus
    exit_code: int | None = None
    timed_out: bool = False
    """The run hit its wall-clock or stall limit."""
    error: Line = ""
    session_id: Short = ""
    attempt_dir: Line = ""
    requested_help: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out + self.cache_read_tokens + self.cache_write_tokens

    @classmethod
    def from_result(cls, result: _ResultLike, *, role: AgentRole, **fields: Any) -> AgentAttempt:
        """The event for a finished `AgentResult`; `fields` add the context (run_id, task,
        attempt, max_attempts, round, stage, operation, model, started_at, attempt_dir, …).
        `started_at` defaults to now minus the run's duration."""
        status = str(getattr(result.status, "value", result.status))
        duration = max(0.0, float(result.duration_s))
        usage = result.usage
        values: dict[str, Any] = {
            "role": role,
            "backend": result.backend,
            "status": status,
            "exit_code": result.exit_code,
            "duration_s": duration,
            "tokens_in": usage.input_tokens,
            "tokens_out": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "cost_usd": result.cost_usd,
            "timed_out": status in ("timeout", "stalled"),
            "error": result.error or "",
            "session_id": result.session_id or "",
            "requested_help": bool(result.signals),
        }
        values.update(fields)
        if values.get("started_at") is None:
            ended = values.get("at") or _now()
            values["started_at"] = datetime.fromtimestamp(ended.timestamp() - duration, UTC)
        return cls.model_validate(values)


# ---------------------------------------------------------------- reviews

Decision = Literal["approve", "fixes", "reject", "malformed", "empty"]
Severity = Literal["critical", "important", "minor"]


class FindingRef(BaseModel):
    """One finding of a verdict, as the report and the circular-retry alert need it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Short
    severity: Severity
    title: Line = ""
    file: Line = ""
    line: int | None = None
    status: Short = ""
    """open, resolved, deferred, advisory (the ledger's view), or empty when unknown."""


class VerdictEvent(EventBase):
    """What the verdict parser decided about one reviewer attempt (kind `verdict`)."""

    kind: Literal["verdict"] = "verdict"
    stage: Short = ""
    round: int = 0
    operation: Short = ""
    attempt: int = Field(1, ge=1)
    max_attempts: int = Field(0, ge=0)
    decision: Decision
    dialect: Short = ""
    evidence_line: int | None = None
    evidence: Line = ""
    """The line the deciding verdict was found on (untrusted reviewer text)."""
    passes: bool | None = None
    """Whether the gate let the stage pass (None for malformed / empty)."""
    reason: Line = ""
    review_id: Short = ""
    findings: Annotated[tuple[FindingRef, ...], _cap(MAX_FINDINGS)] = ()
    findings_total: int = 0
    """How many findings the verdict had (more than `findings` holds when it was capped)."""
    answer_via: Short = ""
    """The mechanism that made the reviewer's answer one verdict object (`claude_json_schema`,
    `codex_output_schema`, `chat_response_format`, `grammar`, `final_message`)."""
    summary: Line = ""
    """The verdict object's one-line summary (untrusted reviewer text)."""
    confidence: float | None = Field(None, ge=0, le=1)
    """The verdict object's confidence."""

    @property
    def retry(self) -> int:
        """0 for the first attempt, 1 for the first retry, …"""
        return self.attempt - 1

    @property
    def valid(self) -> bool:
        return self.decision in ("approve", "fixes", "reject")


class ReviewFinished(EventBase):
    kind: Literal["review.finished"] = "review.finished"
    operation: Short = ""
    status: Short
    """A review status: approved, changes_requested, rejected, undecidable, agent_failed,
    needs_manual_review."""
    decision: Decision | Literal["none"] = "none"
    rounds: int = 0
    message: Line = ""


class FixRound(EventBase):
    kind: Literal["fix.round"] = "fix.round"
    round: int
    source: Literal["review", "checks"] = "review"
    operation: Short = ""
    findings: Ids = ()
    commit: Short = ""
    ok: bool = True
    error: Line = ""


class Escalation(EventBase):
    kind: Literal["escalation"] = "escalation"
    scope: Literal["task", "unit", "run", "review", "handoff"] = "task"
    reason: Line
    package: Line = ""


# ---------------------------------------------------------------- handoffs and help


class HandoffAttempt(EventBase):
    """One attempt of a JSON handoff (`mergegate.handoff`'s `handoff.attempt` event)."""

    kind: Literal["handoff.attempt"] = "handoff.attempt"
    handoff_type: Short
    component: Short = ""
    session_id: Short = ""
    attempt: int = Field(1, ge=1)
    max_attempts: int = Field(0, ge=0)
    result: Literal["success", "failure"]
    error_type: Short = ""
    """An `ErrorKind` value (empty, json_syntax, truncated, …), or `stuck` / `exception`."""
    error: Line = ""
    duration_s: float = Field(0.0, ge=0)


class HandoffFinished(EventBase):
    kind: Literal["handoff.finished"] = "handoff.finished"
    handoff_type: Short
    component: Short = ""
    session_id: Short = ""
    final_status: Literal["recovered", "escalated", "fatal"]
    attempts: int = Field(1, ge=0)
    max_attempts: int = Field(0, ge=0)
    error_type: Short = ""
    duration_s: float = Field(0.0, ge=0)


class HelpRequested(EventBase):
    kind: Literal["help.requested"] = "help.requested"
    marker: Short = ">>>HELP<<<"
    context: Text = ""
    """The optional JSON context line, as text (untrusted)."""
    source: Literal["stream", "result", "both"] = "stream"
    discrepancy: bool = False
    """The stream signalled help and the agent's result said it did not (the stream wins)."""
    attempt: int = Field(1, ge=1)
    offset_s: float = Field(0.0, ge=0)


class HelpAdvice(EventBase):
    kind: Literal["help.advice"] = "help.advice"
    advisor: Short
    operation: Short = ""
    """Shared with the advisor's `agent.attempt` events of this consultation (e.g. `help-1`)."""
    status: Literal["ok", "failed"]
    action: Literal["continue", "skip", "escalate", "none"] = "none"
    guidance: Text = ""
    attempt: int = Field(1, ge=1)
    max_attempts: int = Field(0, ge=0)
    error: Line = ""


# ---------------------------------------------------------------- git, checks, verification


class MergeResult(EventBase):
    kind: Literal["merge"] = "merge"
    into: Short = ""
    branch: Line = ""
    commit: Short = ""
    outcome: Literal["merged", "already", "conflict"]
    conflicts: Ids = ()


class CheckRun(EventBase):
    """One machine check of a task (a plan command run by mergegate itself)."""

    kind: Literal["check"] = "check"
    command: Line
    round: int = 0
    exit_code: int | None = None
    expect_exit: int = 0
    passed: bool
    reason: Short = "exited"
    """How the process ended: exited, timeout, stalled, killed, …"""
    duration_s: float = Field(0.0, ge=0)
    started_at: Time | None = None


class VerificationEvent(EventBase):
    kind: Literal["verification"] = "verification"
    status: Short
    """passed, gaps_found, human_needed, complete_with_gaps."""
    reason: Line = ""
    criteria: int = 0
    passed: int = 0
    failed: int = 0
    uncertain: int = 0
    unverified: int = 0
    checks_run: int = 0
    verifier_status: Short = ""


# ---------------------------------------------------------------- alerts

AlertRule = Literal["retry_exhaustion", "average_retries", "component_timeout", "circular_retry"]


class Alert(EventBase):
    """A threshold crossed (`mergegate.metrics`); raised once per rule, component and subject."""

    kind: Literal["alert"] = "alert"
    rule: AlertRule
    component: Short
    subject: Line = ""
    """What repeats or took long: a finding id, a failure signature, an attempt."""
    value: float
    threshold: float
    message: Line

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.run_id, self.rule, self.component, self.subject)


KnownEvent = Annotated[
    RunStarted
    | RunFinished
    | PhaseStarted
    | PhaseFinished
    | Wave
    | UnitStarted
    | UnitFinished
    | UnitMerged
    | UnitEscalated
    | UnitSkipped
    | TaskStarted
    | TaskFinished
    | StepProgress
    | Notice
    | AgentAttempt
    | VerdictEvent
    | ReviewFinished
    | FixRound
    | Escalation
    | HandoffAttempt
    | HandoffFinished
    | HelpRequested
    | HelpAdvice
    | MergeResult
    | CheckRun
    | VerificationEvent
    | Alert,
    Field(discriminator="kind"),
]
"""Every kind this version knows, discriminated by `kind`."""

KINDS: frozenset[str] = frozenset(
    str(model.model_fields["kind"].default)
    for model in (
        RunStarted,
        RunFinished,
        PhaseStarted,
        PhaseFinished,
        Wave,
        UnitStarted,
        UnitFinished,
        UnitMerged,
        UnitEscalated,
        UnitSkipped,
        TaskStarted,
        TaskFinished,
        StepProgress,
        Notice,
        AgentAttempt,
        VerdictEvent,
        ReviewFinished,
        FixRound,
        Escalation,
        HandoffAttempt,
        HandoffFinished,
        HelpRequested,
        HelpAdvice,
        MergeResult,
        CheckRun,
        VerificationEvent,
        Alert,
    )
)
