"""The state of one review run, and its answer: typed, frozen values that round-trip as JSON.

A `ReviewState` is everything the review steps (`mergegate.review.steps`) need to go on: the
SHAs of the change, its rounds (with every attempt, the reviewer sessions and each stage's
result), the finding ledger, the implementer's session and the agents' usage. Steps never
change a state; they return a new one. `ReviewState.model_dump_json()` is a checkpoint: a run
continued from `ReviewState.model_validate_json(...)` goes on exactly where it stood.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import Usage
from mergegate.decisions import Decision, ExitCode
from mergegate.errors import AgentError, EscalationError, MergegateError, UndecidableError
from mergegate.review._usage import FlatUsageTotal, UsageTotal
from mergegate.review.ledger import FindingRecord, FlatFindingRecord, LedgerState
from mergegate.verdicts import Finding

__all__ = [
    "AttemptSummary",
    "FixSummary",
    "ReviewOutcome",
    "ReviewRecord",
    "ReviewState",
    "ReviewStatus",
    "ReviewStop",
    "RoundRecord",
    "RoundSummary",
    "StageProgress",
    "StageResult",
    "UsageTotal",
]


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


_STATUS_ERROR: dict[ReviewStatus, type[MergegateError]] = {
    ReviewStatus.UNDECIDABLE: UndecidableError,
    ReviewStatus.AGENT_FAILED: AgentError,
    ReviewStatus.NEEDS_MANUAL_REVIEW: EscalationError,
}


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AttemptSummary(_Value):
    """One reviewer attempt as the run's answer lists it."""

    stage: str
    attempt: int
    decision: str
    """The parsed decision, or `none` when the agent run failed."""
    review_id: str
    report: str
    """Path of the attempt's markdown report."""
    note: str = ""
    usage: Usage = Field(default_factory=Usage)
    """The reviewer's tokens for this attempt, as its backend reported them."""
    duration_s: float = 0.0
    answer_via: str = ""
    """The mechanism behind the answer (`AnswerMechanism`); empty for an agent failure."""
    summary: str = ""
    """The verdict object's one-line summary."""
    confidence: float | None = None
    """The verdict object's confidence, 0 to 1."""

    def to_dict(self) -> dict[str, object]:
        return self.model_dump(mode="json")


class StageResult(_Value):
    """A stage's valid verdict as the gate saw it (deferral applied)."""

    decision: Decision
    passes: bool
    reason: str
    findings: tuple[Finding, ...] = ()
    """The verdict's findings: the fix work when the ledger holds no open blocking one."""


class StageProgress(_Value):
    """One stage of one round: its attempts so far, and how it ended once it did."""

    stage: str
    attempts: int = 0
    session_id: str | None = None
    """The reviewer session of the last attempt (a retry resumes it)."""
    problem: str = ""
    """Why the last attempt's output could not be used (fed back to the retry)."""
    outputs: tuple[str, ...] = ()
    """Raw outputs of the attempts that gave no verdict (shown when the run is undecidable)."""
    result: StageResult | None = None
    """Set once an attempt gave a valid verdict."""
    failure: str | None = None
    """Set when the reviewer run failed (timeout, crash, a read-only run that wrote): why."""
    failure_kind: str = ""
    """`token_limit` when the failure is a request too large even with the diff alone (the
    review escalates); empty for any other failure (the review ends as an agent failure)."""
    transport_failures: int = 0
    """Runs that failed by transport and were run again (not malformed answers)."""
    trimmed: bool = False
    """A run hit the token limit: the next prompts carry the diff alone."""
    resend: bool = False
    """The last run failed before answering: the next one is a complete, fresh dispatch."""

    @property
    def unusable(self) -> int:
        """Runs that answered without a usable verdict (malformed or empty)."""
        return self.attempts - self.transport_failures - int(self.trimmed)


class FixSummary(_Value):
    """The fix round of a round: what the implementer did and what mergegate committed."""

    findings: tuple[str, ...]
    """Ids of the findings the implementer was asked to fix."""
    report: str
    """Path of the round's `rNN-fix.json` record."""
    commit: str | None = None
    """The fix commit; None when the implementer failed or changed nothing."""
    error: str | None = None
    """Why the implementer run failed, if it did."""


class RoundSummary(_Value):
    """One round: the range it reviewed, its stages and attempts, and its fix."""

    round: int
    base_sha: str
    head_sha: str
    scoped: bool
    stages: tuple[str, ...] = ()
    """The stages this round reviews, in order (later rounds: only those that did not pass)."""
    progress: tuple[StageProgress, ...] = ()
    attempts: tuple[AttemptSummary, ...] = ()
    fix: FixSummary | None = None

    @property
    def fix_commit(self) -> str | None:
        return self.fix.commit if self.fix else None

    def progress_of(self, stage: str) -> StageProgress | None:
        return next((p for p in self.progress if p.stage == stage), None)

    def record(self) -> RoundRecord:
        """The round as its review's outcome records it."""
        return RoundRecord(
            round=self.round,
            base_sha=self.base_sha,
            head_sha=self.head_sha,
            scoped=self.scoped,
            attempts=self.attempts,
            fix_commit=self.fix_commit,
        )

    def to_dict(self) -> dict[str, object]:
        return self.record().model_dump(mode="json")


class RoundRecord(_Value):
    """A round as a review's outcome records it: the range it reviewed, every reviewer
    attempt, and the fix commit (not the stages' progress, nor the fix round's own record)."""

    round: int
    base_sha: str
    head_sha: str
    scoped: bool
    attempts: tuple[AttemptSummary, ...] = ()
    fix_commit: str | None = None


class ReviewState(_Value):
    """Where one review run stands. Create it with `steps.start_review`."""

    version: Literal[1] = 1
    run_id: str
    base_sha: str
    """The change's base: round 1 reviews `base_sha..head_sha`."""
    head_sha: str
    rounds: tuple[RoundSummary, ...]
    ledger: LedgerState = Field(default_factory=LedgerState)
    implementer_session: str | None = None
    implementer_usage: UsageTotal = Field(default_factory=UsageTotal)

    @property
    def current(self) -> RoundSummary:
        return self.rounds[-1]

    def with_round(self, round_: RoundSummary) -> ReviewState:
        """This state with its last round replaced."""
        return self.model_copy(update={"rounds": (*self.rounds[:-1], round_)})

    def usage_totals(self) -> dict[str, UsageTotal]:
        """Totals per role: `reviewer` always, `implementer` once it ran."""
        reviewer = UsageTotal()
        for rnd in self.rounds:
            for a in rnd.attempts:
                reviewer = reviewer.add(a.usage, a.duration_s)
        totals = {"reviewer": reviewer}
        if self.implementer_usage.runs:
            totals["implementer"] = self.implementer_usage
        return totals


class ReviewStop(_Value):
    """How a run ends: decided by `steps.decide` from the state, never raised."""

    status: ReviewStatus
    decision: Decision
    message: str
    outputs: tuple[str, ...] = ()
    """Raw reviewer outputs shown to the user when the run is undecidable or failed."""


OUTPUT_EXCERPT_CHARS = 2000
"""How much of each raw reviewer output an outcome's dict (and a run's records) carries."""


def excerpt(text: str, limit: int = OUTPUT_EXCERPT_CHARS) -> str:
    """The start of a raw reviewer output, at most `limit` characters (marked when cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class ReviewOutcome:
    """The answer of one run, and where its proof is on disk."""

    run_id: str
    status: ReviewStatus
    decision: Decision
    message: str
    rounds: tuple[RoundSummary, ...]
    findings: tuple[FindingRecord, ...]
    report_dir: Path
    outputs: tuple[str, ...] = ()
    """Raw reviewer outputs shown to the user when the run is undecidable."""
    usage: dict[str, UsageTotal] = field(default_factory=dict)
    """Totals per role (`reviewer`, `implementer`): runs, tokens, duration."""
    sandbox: str = ""
    """The agents' sandbox, for people (`on (bubblewrap)…`, `off (--no-sandbox)…`); empty
    when the caller gave the agents as they are."""

    @property
    def exit_code(self) -> ExitCode:
        return _STATUS_EXIT[self.status]

    def raise_for_status(self) -> None:
        """Raise the error of `mergegate.errors` that carries this outcome's exit code, unless
        the change was approved (like httpx's `Response.raise_for_status`): `EscalationError`
        (5) when a person must decide, `AgentError` (4), `UndecidableError` (3), and
        `MergegateError` (1) for a real "no"."""
        if self.status is ReviewStatus.APPROVED:
            return
        error = _STATUS_ERROR.get(self.status, MergegateError)
        raise error(
            f"review {self.run_id}: {self.status.value}: {self.message} "
            f"(reports: {self.report_dir})"
        )

    def record(self) -> ReviewRecord:
        """The outcome as it is recorded (a review's `summary.json`, a task's review step):
        its rounds without their progress, each raw output cut to an excerpt."""
        return ReviewRecord(
            run_id=self.run_id,
            status=self.status,
            decision=self.decision,
            exit_code=int(self.exit_code),
            message=self.message,
            rounds=tuple(r.record() for r in self.rounds),
            findings=self.findings,
            report_dir=str(self.report_dir),
            outputs=tuple(excerpt(text) for text in self.outputs),
            usage=dict(self.usage),
            sandbox=self.sandbox,
        )

    def to_dict(self) -> dict[str, object]:
        return self.record().model_dump(mode="json")


class ReviewRecord(_Value):
    """A review's outcome as it is recorded (`ReviewOutcome.record`), and read back: what a
    task's review step returns to its workflow, and the review's `summary.json`. Its JSON form
    keeps the fields in this order, a finding in its flat form (`FindingRecord.to_dict`) and a
    usage total in its (`UsageTotal.to_dict`)."""

    run_id: str
    status: ReviewStatus
    decision: Decision
    exit_code: int
    message: str
    rounds: tuple[RoundRecord, ...]
    findings: tuple[FlatFindingRecord, ...]
    report_dir: str
    outputs: tuple[str, ...] = ()
    """The starts of the raw reviewer outputs shown when the review was undecidable."""
    usage: dict[str, FlatUsageTotal] = Field(default_factory=dict)
    sandbox: str = ""
