"""The built-in payload schemas (seed 002's handoff points) and their consistency checks.

Every model is strict (`"yes"` is not a boolean, `"12"` is not a number) and forbids unknown
fields. Consistency rules that a JSON Schema cannot state live in `check_*` functions; their
findings are `semantic` errors, answered with a targeted correction prompt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.verdicts import ReviewVerdict, Severity, TrailerFinding

__all__ = [
    "AdvicePayload",
    "AgentResultPayload",
    "CodeReviewIssue",
    "CodeReviewResultPayload",
    "CodeReviewSeverity",
    "ReviewFinding",
    "ReviewVerdictPayload",
    "ScratchpadPayload",
    "SupervisorComplete",
    "SupervisorDecision",
    "SupervisorError",
    "SupervisorExecute",
    "SupervisorReview",
    "SupervisorSkip",
    "VerifierJudgement",
    "VerifierVerdictPayload",
    "check_advice",
    "check_agent_result",
    "check_code_review_result",
    "check_review_verdict",
    "check_scratchpad",
    "check_supervisor_decision",
    "check_verifier_verdict",
]

NonEmpty = Annotated[str, Field(min_length=1)]


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# ------------------------------------------------------------------ agent → orchestrator


MAX_NOTES_CHARS = 20_000
"""Longest `notes` an agent result may carry (a summary, not a transcript)."""
MAX_LIST_ITEMS = 500
"""Longest `todos`, `errors` and `files_changed` lists."""


class AgentResultPayload(_Payload):
    """`agent-result`: what an implementer agent reports when it stops.

    `{"task_id", "success", "completed_normally"}` is a complete, valid result; every other
    field is optional. What the agent claims is a claim: mergegate's own checks decide whether
    the task passed (`mergegate.implementer.judge_task_result`).
    """

    task_id: NonEmpty
    success: bool
    completed_normally: bool
    todos: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Work left undone; empty when the task is finished."""
    scratchpad_path: str | None = None
    execution_time: float | None = Field(None, ge=0)
    requested_help: bool = False
    """The agent asked for help (it also wrote the `>>>HELP<<<` line; the stream wins)."""
    help_context: dict[str, Any] | None = None
    """What the agent is stuck on, as it put it on the line after the marker (any JSON object:
    `reason`, `question`, `tried`, ...)."""
    errors: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    notes: str | None = Field(None, max_length=MAX_NOTES_CHARS)
    """A short note of what was changed and why."""
    files_changed: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Paths the agent says it changed (mergegate reads the real ones from git)."""


class ScratchpadPayload(_Payload):
    """`scratchpad`: the notes file an implementer names in its result (`scratchpad_path`),
    a JSON object in its work tree: what it did, what is left, and what it noted on the way.

    `{"task_id", "summary"}` is a complete scratchpad; the lists and `notes` are optional."""

    task_id: NonEmpty
    summary: NonEmpty = Field(max_length=MAX_NOTES_CHARS)
    """What the task came to, in a few lines."""
    completed: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Steps done."""
    remaining: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Steps left undone (empty when the task is finished)."""
    notes: str | None = Field(None, max_length=MAX_NOTES_CHARS)


def check_scratchpad(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """With `context={"task_id": ...}` the scratchpad must be about that task."""
    expected = (context or {}).get("task_id")
    if expected and value.task_id != expected:
        return [
            f"task_id is {value.task_id!r} but this task is {expected!r}: "
            "copy the task_id given in the request"
        ]
    return []


def check_agent_result(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """A success must have completed normally and must not report errors; with
    `context={"task_id": ...}` the result must be about that task."""
    problems = []
    expected = (context or {}).get("task_id")
    if expected and value.task_id != expected:
        problems.append(
            f"task_id is {value.task_id!r} but this task is {expected!r}: "
            "copy the task_id given in the request"
        )
    if value.success and not value.completed_normally:
        problems.append(
            "success is true but completed_normally is false: a run that did not complete "
            "normally is not a success (set success to false, or completed_normally to true)"
        )
    if value.success and value.errors:
        problems.append(
            f"success is true but errors lists {len(value.errors)} error(s): "
            "a successful run reports no errors"
        )
    return problems


# ------------------------------------------------------------------ advisor → orchestrator


class AdvicePayload(_Payload):
    """`advice`: an advisor's answer to an implementer's help request.

    `{"guidance": "...", "action": "continue"}` is a complete, valid answer. `continue`: the
    implementer resumes its session with the guidance; `skip`: the task is set aside (never
    merged); `escalate`: a person must decide.
    """

    guidance: NonEmpty = Field(max_length=MAX_NOTES_CHARS)
    action: Literal["continue", "skip", "escalate"]
    reason: str | None = Field(None, max_length=MAX_NOTES_CHARS)
    """Why this action (required in spirit for `skip` and `escalate`, not enforced)."""
    steps: list[str] = Field(default_factory=list, max_length=50)
    """Optional concrete next steps for the implementer."""


def check_advice(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """Guidance must say something (not only whitespace)."""
    del context
    if not value.guidance.strip():
        return ["guidance is only whitespace: write the advice for the implementer"]
    return []


# ------------------------------------------------------------------ supervisor → orchestrator
# One model per action: which fields are required depends on the action, and a discriminated
# union says so in the JSON Schema too.


class _SupervisorBase(_Payload):
    session_id: NonEmpty
    reason: NonEmpty
    guidance: str | None = None


class SupervisorExecute(_SupervisorBase):
    """Run the agent on a task."""

    action: Literal["execute"]
    task_id: NonEmpty
    task_title: NonEmpty
    subtasks: list[str] = Field(min_length=1)
    project_root: NonEmpty


class SupervisorSkip(_SupervisorBase):
    """Skip a task."""

    action: Literal["skip"]
    task_id: NonEmpty


class SupervisorReview(_SupervisorBase):
    """Send a task's work to review."""

    action: Literal["review"]
    task_id: NonEmpty


class SupervisorComplete(_SupervisorBase):
    """Every task is done."""

    action: Literal["complete"]


class SupervisorError(_SupervisorBase):
    """The supervisor cannot go on; `reason` says why."""

    action: Literal["error"]


SupervisorDecision = Annotated[
    SupervisorExecute | SupervisorSkip | SupervisorReview | SupervisorComplete | SupervisorError,
    Field(discriminator="action"),
]
"""`supervisor-decision`: the next step, with the fields its `action` needs."""


def check_supervisor_decision(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """When the caller knows the session, the decision must be about that session."""
    expected = (context or {}).get("session_id")
    if expected and value.session_id != expected:
        return [f"session_id is {value.session_id!r} but this session is {expected!r}"]
    return []


# ------------------------------------------------------------------ code review → supervisor


CodeReviewSeverity = Literal["critical", "high", "medium", "low"]
"""The four-level scale of seed 002's code-review-result step (its wire format, kept as
is). It is an input vocabulary, not a second severity type: `CodeReviewIssue.level` maps it
onto the package's one `Severity` (critical → critical, high/medium → important,
low → minor), the same table prose findings are read with."""


class CodeReviewIssue(_Payload):
    severity: CodeReviewSeverity
    description: NonEmpty
    file: str | None = None
    line: int | None = Field(None, ge=1)

    @property
    def level(self) -> Severity:
        """This issue's severity on the package's one scale."""
        return Severity.from_word(self.severity)


class CodeReviewResultPayload(_Payload):
    """`code-review-result`: one step of a multi-step code review."""

    status: Literal["analyze_complete", "pause_for_code_review"]
    issues_found: list[CodeReviewIssue] = Field(default_factory=list)
    confidence: NonEmpty
    step_number: int = Field(ge=1)
    total_steps: int = Field(ge=1)
    findings: str
    code_review_status: dict[str, Any] = Field(default_factory=dict)


def check_code_review_result(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """Steps must be in range; a complete analysis is the last step."""
    del context
    problems = []
    if value.step_number > value.total_steps:
        problems.append(
            f"step_number ({value.step_number}) is greater than total_steps ({value.total_steps})"
        )
    elif value.status == "analyze_complete" and value.step_number < value.total_steps:
        problems.append(
            f"status is analyze_complete but this is step {value.step_number} of "
            f"{value.total_steps}: use pause_for_code_review until the last step"
        )
    return problems


# ------------------------------------------------------------------ reviewer verdict trailer


# The verdict trailer is defined once, in `mergegate.verdicts` (issue 10: one verdict
# contract); the `review-verdict` schema is that model, not a copy of it.
ReviewFinding = TrailerFinding
ReviewVerdictPayload = ReviewVerdict


def check_review_verdict(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """The nonce must match; an approval has no blocking findings; changes need findings."""
    problems = []
    expected = (context or {}).get("review_id")
    if expected and value.review_id != expected:
        problems.append(
            f"review_id is {value.review_id!r} but this review's id is {expected!r}: "
            "copy the review_id given in the request"
        )
    blocking = [
        f.id or f.title
        for f in value.findings
        if f.severity in (Severity.CRITICAL, Severity.IMPORTANT)
    ]
    if value.verdict == "approve" and blocking:
        problems.append(
            f"verdict is approve but findings {', '.join(blocking)} are critical or important: "
            "either request changes or lower their severity"
        )
    if value.verdict == "request_changes" and not value.findings:
        problems.append("verdict is request_changes but findings is empty: list each change")
    counts = Counter(f.id for f in value.findings if f.id is not None)
    repeated = sorted(i for i, n in counts.items() if n > 1)
    if repeated:
        problems.append(f"finding ids must be unique; repeated: {', '.join(repeated)}")
    return problems


# ------------------------------------------------------------------ verifier verdict trailer


class VerifierJudgement(_Payload):
    """The verifier's answer for one criterion it was asked about."""

    id: NonEmpty
    result: Literal["pass", "fail", "uncertain"]
    evidence: NonEmpty
    """What the verifier looked at and found (file:line, a quoted line, a command's output)."""
    question: str | None = None
    """For `uncertain`: what a person should check, in one sentence."""


class VerifierVerdictPayload(_Payload):
    """`verifier-verdict`: the JSON trailer `mergegate verify` asks its verifier agent for."""

    verification_id: NonEmpty
    criteria: list[VerifierJudgement] = Field(min_length=1)


def check_verifier_verdict(value: Any, context: Mapping[str, Any] | None) -> list[str]:
    """The nonce must match; every criterion asked about is answered exactly once, no other.

    Context keys: `verification_id` (the nonce of this request) and `criteria` (the ids asked
    about); either may be absent, and then that rule is not applied.
    """
    return check_judged_criteria(value.verification_id, [j.id for j in value.criteria], context)


def check_judged_criteria(
    verification_id: str, judged: list[str], context: Mapping[str, Any] | None
) -> list[str]:
    """What is wrong with a verifier's answer carrying `verification_id` and judging the
    criteria `judged` (in its order), against the request in `context` (see
    `check_verifier_verdict`): a wrong nonce, a criterion judged twice, one asked about and
    not judged, one judged and not asked about. Shared by every verifier answer schema."""
    problems = []
    ctx = context or {}
    expected = ctx.get("verification_id")
    if expected and verification_id != expected:
        problems.append(
            f"verification_id is {verification_id!r} but this request's id is "
            f"{expected!r}: copy the verification_id given in the request"
        )
    counts = Counter(judged)
    repeated = sorted(i for i, n in counts.items() if n > 1)
    if repeated:
        problems.append(f"criterion ids must appear once; repeated: {', '.join(repeated)}")
    asked = ctx.get("criteria")
    if asked is not None:
        missing = [i for i in asked if i not in counts]
        unknown = sorted(i for i in counts if i not in set(asked))
        if missing:
            problems.append(f"no answer for criteria: {', '.join(missing)}")
        if unknown:
            problems.append(f"answers for criteria that were not asked about: {', '.join(unknown)}")
    return problems
