"""The verdict object: the one answer mergegate accepts from a reviewer it prompted.

When mergegate writes the reviewer's prompt it chooses the output format, so it never reads
prose for the decision: the reviewer's final answer is one JSON object of this model, and the
decision is `approves(obj, request)` — one small rule, nothing else.

* `VerdictObject` / `VerdictFinding` — strict pydantic models: no coercion, every field
  required (nullable ones say so), unknown keys refused. `verdict_object_schema()` is their
  JSON Schema (`mergegate schema verdict`).
* `read_verdict_object(data)` — bytes or text to a `VerdictObject`, or `MalformedObjectError`
  with a typed `MalformedReason`: the answer must be exactly one JSON object (whitespace around
  it is allowed, nothing else: no fence, no prose, no second object), read strictly (duplicate
  keys, NaN/Infinity and overflowing numbers refused) and never repaired.
* `VerdictRequest` — what mergegate asked for (its `review_id`, the `scope` under review, the
  lowest severity that blocks); `approves` is the approval rule, `decide_object` the decision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mergegate.decisions import Decision
from mergegate.verdicts._json import DECODER, DuplicateKeyError, NumberRangeError
from mergegate.verdicts._model import Finding, Severity, Verdict

__all__ = [
    "MAX_OBJECT_BYTES",
    "OBJECT_DIALECT",
    "SEVERITY_RANK",
    "MalformedObjectError",
    "MalformedReason",
    "ObjectDecision",
    "VerdictFinding",
    "VerdictObject",
    "VerdictRequest",
    "VerdictWord",
    "approves",
    "decide_object",
    "read_verdict_object",
    "verdict_object_example",
    "verdict_object_schema",
]

MAX_OBJECT_BYTES = 1_000_000
"""A verdict object larger than this is malformed (`too_large`): read nothing beyond it."""
SUMMARY_MAX_CHARS = 500

VerdictWord = Literal["approve", "request_changes", "reject"]
SEVERITY_RANK: dict[Severity, int] = {
    Severity.MINOR: 0,
    Severity.IMPORTANT: 1,
    Severity.CRITICAL: 2,
}
"""Severities in order: a request's `blocking_from` blocks that severity and every higher one."""

_ONE_LINE = r"^[^\r\n\u2028\u2029]*$"


class _Strict(BaseModel):
    # Built on first validation, not at import: most reviews carry no such object, and
    # `mergegate parse` and the hook start on every call (bench/bench_startup.py).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)


class VerdictFinding(_Strict):
    """One finding. Every key is required; `file`, `line`, `suggestion`, `requirement` may be
    null."""

    id: str = Field(min_length=1, max_length=64, description="The reviewer's own stable id.")
    severity: Severity
    title: str = Field(min_length=1, max_length=300, description="One line: what is wrong.")
    file: str | None = Field(description="Repository-relative path, or null.")
    line: Annotated[int, Field(ge=1)] | None = Field(description="1-based line, or null.")
    detail: str = Field(max_length=4000, description="Why it is wrong.")
    suggestion: str | None = Field(max_length=4000, description="How to fix it, or null.")
    requirement: str | None = Field(
        max_length=1000, description="The requirement or criterion it breaks, or null."
    )


class VerdictObject(_Strict):
    """`verdict`: a reviewer's whole final answer. Every key is required."""

    review_id: str = Field(min_length=1, max_length=128, description="Copy the id given.")
    scope: str = Field(min_length=1, max_length=200, description="The task/unit/phase id reviewed.")
    verdict: VerdictWord
    conditions: list[str] = Field(
        description="Anything that must happen before merging; any entry means not approved."
    )
    findings: list[VerdictFinding]
    summary: str = Field(
        min_length=1, max_length=SUMMARY_MAX_CHARS, pattern=_ONE_LINE, description="One line."
    )
    confidence: float = Field(ge=0, le=1, description="0 to 1: how sure the reviewer is.")


def verdict_object_schema() -> dict[str, Any]:
    """The JSON Schema of `VerdictObject` (what `mergegate schema verdict` prints)."""
    return VerdictObject.model_json_schema()


def verdict_object_example(review_id: str, scope: str) -> str:
    """One valid approving example object for a prompt, on one line (it reads with
    `read_verdict_object`; a test pins that)."""
    finding = {
        "id": "short-stable-id",
        "severity": "minor",
        "title": "one line: what is wrong",
        "file": "path/in/repo.py",
        "line": 1,
        "detail": "why it is wrong",
        "suggestion": "how to fix it, or null",
        "requirement": "the requirement it breaks, or null",
    }
    body = {
        "review_id": review_id,
        "scope": scope,
        "verdict": "approve",
        "conditions": [],
        "findings": [finding],
        "summary": "one line for the record",
        "confidence": 0.9,
    }
    return json.dumps(body, ensure_ascii=False)


class MalformedReason(StrEnum):
    """Why an answer is not a verdict object. Every reason means `malformed`."""

    EMPTY = "empty"
    NOT_UTF8 = "not_utf8"
    TOO_LARGE = "too_large"
    NOT_AN_OBJECT = "not_an_object"
    TEXT_BESIDE = "text_beside"
    SECOND_OBJECT = "second_object"
    TRUNCATED = "truncated"
    SYNTAX = "syntax"
    DUPLICATE_KEY = "duplicate_key"
    NOT_FINITE = "not_finite"
    TOO_DEEP = "too_deep"
    SCHEMA = "schema"


class MalformedObjectError(ValueError):
    """The answer is not exactly one valid verdict object. `reason` says which way."""

    def __init__(self, reason: MalformedReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def read_verdict_object(data: bytes | str) -> VerdictObject:
    """The verdict object `data` holds, alone, or `MalformedObjectError`.

    Accepted: one JSON object, optionally surrounded by whitespace. Everything else is
    malformed with a typed reason — text or a fence before or after it, a second value,
    duplicate keys, NaN/Infinity, a wrong type, an unknown or missing key. Linear in the size
    of `data`, which is refused beyond `MAX_OBJECT_BYTES`.
    """
    text = _as_text(data)
    body = text.strip(" \t\r\n")
    if not body:
        raise MalformedObjectError(MalformedReason.EMPTY, "the answer is empty")
    if not body.startswith("{"):
        raise _not_at_start(body)
    end = _decode(body)
    if end != len(body):
        raise _after_object(body[end:])
    try:
        # Strict JSON-mode validation of the same text (a string names an enum member here;
        # nothing is coerced): the strict decode above already refused what JSON allows but
        # a verdict must not carry (duplicate keys, NaN, overflow).
        return VerdictObject.model_validate_json(body)
    except ValidationError as exc:
        raise MalformedObjectError(MalformedReason.SCHEMA, _schema_problem(exc)) from None


def _as_text(data: bytes | str) -> str:
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > MAX_OBJECT_BYTES:
        raise MalformedObjectError(
            MalformedReason.TOO_LARGE,
            f"the answer is {size:,} bytes; a verdict object is at most {MAX_OBJECT_BYTES:,}",
        )
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedObjectError(
            MalformedReason.NOT_UTF8, f"the answer is not UTF-8 (byte {exc.start})"
        ) from None


def _not_at_start(body: str) -> MalformedObjectError:
    if body.startswith(("[", '"')) or body[0].isdigit() or body in ("true", "false", "null"):
        return MalformedObjectError(
            MalformedReason.NOT_AN_OBJECT, "the answer must be one JSON object, not another value"
        )
    what = "a fence" if body.startswith(("```", "~~~")) else f"text ({_shown(body)})"
    return MalformedObjectError(
        MalformedReason.TEXT_BESIDE,
        f"{what} before the object: answer with the JSON object alone, nothing around it",
    )


def _after_object(rest: str) -> MalformedObjectError:
    rest = rest.lstrip(" \t\r\n")
    if rest.startswith(("{", "[")):
        return MalformedObjectError(
            MalformedReason.SECOND_OBJECT, "a second JSON value after the object: answer with one"
        )
    return MalformedObjectError(
        MalformedReason.TEXT_BESIDE,
        f"text after the object ({_shown(rest)}): answer with the JSON object alone",
    )


def _decode(body: str) -> int:
    # The strict decoder every typed handoff reads with; `raw_decode` says where the first
    # value ends, so a second value after it is seen, not ignored.
    try:
        _value, end = DECODER.raw_decode(body)
    except DuplicateKeyError as exc:
        raise MalformedObjectError(MalformedReason.DUPLICATE_KEY, str(exc)) from None
    except NumberRangeError as exc:
        raise MalformedObjectError(MalformedReason.NOT_FINITE, str(exc)) from None
    except RecursionError:
        raise MalformedObjectError(
            MalformedReason.TOO_DEEP, "the object is nested too deeply"
        ) from None
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(body) or exc.msg.startswith("Unterminated string")
        reason = MalformedReason.TRUNCATED if cut else MalformedReason.SYNTAX
        what = "cut off before it closes" if reason is MalformedReason.TRUNCATED else exc.msg
        raise MalformedObjectError(reason, f"the object does not parse: {what}") from None
    return end


def _shown(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return json.dumps(first[:40] + ("…" if len(first) > 40 else ""), ensure_ascii=True)


def _schema_problem(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False)[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "(root)"
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        problems.append(f"{where}: {message}")
    more = exc.error_count() - len(problems)
    tail = f" (and {more} more)" if more > 0 else ""
    return "the object does not match the verdict schema: " + "; ".join(problems) + tail


@dataclass(frozen=True, slots=True)
class VerdictRequest:
    """What mergegate asked one reviewer attempt for."""

    review_id: str
    """The id mergegate issued for this attempt."""
    scope: str
    """The task, unit or phase under review."""
    blocking_from: Severity = Severity.IMPORTANT
    """The lowest severity that blocks: a finding at or above it prevents approval."""


def approves(obj: VerdictObject, request: VerdictRequest) -> bool:
    """The approval rule — the only way a prompted review approves.

    Approve iff the object (already valid: `read_verdict_object` returned it) carries the
    `review_id` mergegate issued for this attempt, is about the scope under review, says
    `approve`, lists no condition, and has no finding at or above the blocking severity.
    """
    floor = SEVERITY_RANK[request.blocking_from]
    return (
        obj.review_id == request.review_id
        and obj.scope == request.scope
        and obj.verdict == "approve"
        and obj.conditions == []
        and all(SEVERITY_RANK[f.severity] < floor for f in obj.findings)
    )


@dataclass(frozen=True, slots=True)
class ObjectDecision:
    """The decision for one answer, with the object (when valid) and why."""

    decision: Decision
    reason: str
    obj: VerdictObject | None = None
    malformed: MalformedReason | None = None

    @property
    def approved(self) -> bool:
        return self.decision is Decision.APPROVE

    def verdict(self) -> Verdict:
        """The decision as the package's `Verdict` (dialect `verdict-object`), its findings
        with ids derived from their content like every other finding's."""
        findings = tuple(_finding(f) for f in self.obj.findings) if self.obj else ()
        return Verdict(
            decision=self.decision,
            dialect=OBJECT_DIALECT,
            reasons=(self.reason,),
            findings=findings,
        )


OBJECT_DIALECT = "verdict-object"
"""The `Verdict.dialect` of a decision made from a verdict object."""


def _finding(f: VerdictFinding) -> Finding:
    return Finding.make(
        f.severity,
        f.title,
        file=f.file,
        line=f.line,
        detail=f.detail,
        ref=f.id,
        suggestion=f.suggestion,
        requirement=f.requirement,
    )


def decide_object(data: bytes | str, request: VerdictRequest) -> ObjectDecision:
    """The decision for a reviewer's final answer: `approve` only by `approves`.

    An empty answer is `empty`; other malformed answers, and objects for another review or
    scope, are `malformed` (ask again); `reject` is `reject`; everything else that is not
    approved is `fixes`.
    """
    try:
        obj = read_verdict_object(data)
    except MalformedObjectError as exc:
        empty = exc.reason is MalformedReason.EMPTY
        decision = Decision.EMPTY if empty else Decision.MALFORMED
        return ObjectDecision(decision, exc.detail, malformed=exc.reason)
    if approves(obj, request):
        return ObjectDecision(Decision.APPROVE, "the verdict object approves", obj)
    return ObjectDecision(*_refusal(obj, request), obj)


def _refusal(obj: VerdictObject, request: VerdictRequest) -> tuple[Decision, str]:
    if obj.review_id != request.review_id:
        return Decision.MALFORMED, (
            f"review_id is {obj.review_id!r} but this review's id is {request.review_id!r}: "
            "copy the review_id given in the request"
        )
    if obj.scope != request.scope:
        return Decision.MALFORMED, (
            f"scope is {obj.scope!r} but this review is about {request.scope!r}"
        )
    if obj.verdict == "reject":
        return Decision.REJECT, "the verdict object rejects"
    if obj.verdict == "request_changes":
        return Decision.FIXES, "the verdict object requests changes"
    if obj.conditions:
        return Decision.FIXES, f"approve with {len(obj.conditions)} condition(s) is not approval"
    return Decision.FIXES, "approve with a blocking finding is not approval"
