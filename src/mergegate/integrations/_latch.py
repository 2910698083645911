"""The latch: per agent session, closed while a review said no, until a review approves.

The hook's PostToolUse answer to a non-approving review is text the orchestrating model may
ignore. The latch makes the "no" hold: while it is closed the PreToolUse hook denies the
commands that would carry the work past the review (commit, merge, rebase, push, tag) and
subagents other than review and fix work (`_guard`).

* Closed by a reviewer's non-approving decision: `fixes`, `reject`, or the second undecidable
  answer in a row (`malformed` / `empty`). Each reviewer (subagent type) holds its own "no",
  with the verdict, its evidence line and the findings.
* Opened by the same reviewer's approving review (its hold goes; the latch opens when no hold
  is left), or by a person: `mergegate hook claude-code release --session ID --reason TEXT`,
  recorded with who and when.
* A session with no review yet has no latch file: it is open.

Everything in it is bounded (holds, findings, history, text lengths); the file lives in the
per-user state directory (`_private_dir`), beside the session's memory.

The records are dataclasses read with strict checks (`from_json`: a string is a string, a
number a number; unknown keys ignored; lengths and choices bounded), standard library only:
the hook reads the latch before every Bash command and after every review without loading
pydantic. `tests/test_integrations_latch_records.py` checks them against the strict pydantic
models they replaced, for every JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from mergegate.integrations._untrusted import sanitize

__all__ = [
    "MAX_HELD_FINDINGS",
    "HeldFinding",
    "Hold",
    "Latch",
    "LatchEvent",
    "Record",
    "number",
    "object_of",
    "text",
    "whole",
]

MAX_HOLDS = 32
MAX_HELD_FINDINGS = 50
MAX_HISTORY = 20
_TEXT = 300
_MISSING: Any = object()

Json = Mapping[str, object]
"""A JSON object as `json.loads` gives it."""


# ---------------------------------------------------------------- strict reading
def object_of(value: object, where: str) -> Json:
    """`value` when it is a JSON object, else `ValueError`."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: an object is expected")
    return cast(Json, value)


def _get(data: Json, key: str, default: object) -> object:
    if key in data:
        return data[key]
    if default is _MISSING:
        raise ValueError(f"{key}: field required")
    return default


def text(
    data: Json, key: str, limit: int, default: object = _MISSING, *, nullable: bool = False
) -> Any:
    """The string at `key` (at most `limit` characters; None allowed when `nullable`)."""
    value = _get(data, key, default)
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key}: a string is expected")
    if len(value) > limit:
        raise ValueError(f"{key}: at most {limit} characters")
    return value


def number(data: Json, key: str, default: object = _MISSING) -> float:
    """The number at `key` (an int or a float, never a bool), as a float."""
    value = _get(data, key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key}: a number is expected")
    return float(value)


def whole(data: Json, key: str, default: object = _MISSING, *, nullable: bool = False) -> Any:
    """The integer at `key` (never a bool; None allowed when `nullable`)."""
    value = _get(data, key, default)
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: an integer is expected")
    return value


def _items(data: Json, key: str, read: Any, limit: int | None = None) -> list[Any]:
    value = _get(data, key, [])
    if not isinstance(value, list):
        raise ValueError(f"{key}: a list is expected")
    if limit is not None and len(value) > limit:
        raise ValueError(f"{key}: at most {limit} items")
    return [read(object_of(item, key)) for item in value]


def _choice(value: str, key: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{key}: one of {', '.join(choices)} is expected, got {value!r}")


class Record:
    """A state record: `to_json()` is what `from_json` reads back."""

    def to_json(self) -> dict[str, Any]:
        """The record as JSON values, fields in declaration order."""
        return {name: _json(value) for name, value in vars(self).items()}


def _json(value: object) -> Any:
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, dict):
        return {key: _json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


# ---------------------------------------------------------------- the records
@dataclass
class HeldFinding(Record):
    """A finding of the review that closed the latch (text cut and cleaned)."""

    id: str
    severity: str
    title: str
    file: str | None = None
    line: int | None = None

    def __post_init__(self) -> None:
        _bounded(self.id, "id", 64)
        _bounded(self.severity, "severity", 16)
        _bounded(self.title, "title", _TEXT)
        _bounded(self.file, "file", _TEXT)

    @classmethod
    def from_json(cls, data: Json) -> HeldFinding:
        return cls(
            id=text(data, "id", 64),
            severity=text(data, "severity", 16),
            title=text(data, "title", _TEXT),
            file=text(data, "file", _TEXT, None, nullable=True),
            line=whole(data, "line", None, nullable=True),
        )


_DECISIONS = ("fixes", "reject", "malformed", "empty")
_ACTIONS = ("close", "open", "release")


@dataclass
class Hold(Record):
    """One reviewer's standing "no" in a session."""

    reviewer: str
    decision: str
    """One of `fixes`, `reject`, `malformed`, `empty` (checked)."""
    evidence: str = ""
    """`line N: "…"` of the verdict, or `no verdict line`."""
    findings: list[HeldFinding] = field(default_factory=list)
    at: float = 0.0
    cwd: str = ""

    def __post_init__(self) -> None:
        _bounded(self.reviewer, "reviewer", 100)
        _choice(self.decision, "decision", _DECISIONS)
        _bounded(self.evidence, "evidence", _TEXT + 40)
        if len(self.findings) > MAX_HELD_FINDINGS:
            raise ValueError(f"findings: at most {MAX_HELD_FINDINGS} items")
        _bounded(self.cwd, "cwd", 4096)
        self.at = float(self.at)

    @classmethod
    def from_json(cls, data: Json) -> Hold:
        return cls(
            reviewer=text(data, "reviewer", 100),
            decision=text(data, "decision", 16),
            evidence=text(data, "evidence", _TEXT + 40, ""),
            findings=_items(data, "findings", HeldFinding.from_json, MAX_HELD_FINDINGS),
            at=number(data, "at", 0.0),
            cwd=text(data, "cwd", 4096, ""),
        )


@dataclass
class LatchEvent(Record):
    """One change of the latch, for `status` and the record."""

    at: float
    action: Literal["close", "open", "release"]
    reviewer: str | None = None
    decision: str | None = None
    who: str | None = None
    """Who released it (a person's name and their account), for `release`."""
    reason: str = ""

    def __post_init__(self) -> None:
        self.at = float(self.at)
        _choice(self.action, "action", _ACTIONS)
        _bounded(self.reviewer, "reviewer", 100)
        _bounded(self.decision, "decision", 16)
        _bounded(self.who, "who", 200)
        _bounded(self.reason, "reason", 600)

    @classmethod
    def from_json(cls, data: Json) -> LatchEvent:
        return cls(
            at=number(data, "at"),
            action=text(data, "action", 16),
            reviewer=text(data, "reviewer", 100, None, nullable=True),
            decision=text(data, "decision", 16, None, nullable=True),
            who=text(data, "who", 200, None, nullable=True),
            reason=text(data, "reason", 600, ""),
        )


def _bounded(value: str | None, key: str, limit: int) -> None:
    if value is not None and len(value) > limit:
        raise ValueError(f"{key}: at most {limit} characters")


@dataclass
class Latch(Record):
    """The latch of one session. `state` mirrors `holds` (closed iff a hold is left), so the
    hook's fast path can read it without this class."""

    state: Literal["open", "closed"] = "open"
    holds: dict[str, Hold] = field(default_factory=dict)
    history: list[LatchEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        _choice(self.state, "state", ("open", "closed"))

    @classmethod
    def from_json(cls, data: Json) -> Latch:
        holds = object_of(_get(data, "holds", {}), "holds")
        return cls(
            state=text(data, "state", 16, "open"),
            holds={key: Hold.from_json(object_of(v, key)) for key, v in holds.items()},
            history=_items(data, "history", LatchEvent.from_json),
        )

    @property
    def closed(self) -> bool:
        return bool(self.holds)

    def close(self, hold: Hold) -> None:
        """Record `hold` (replacing that reviewer's earlier one) and close the latch."""
        self.holds.pop(hold.reviewer, None)
        self.holds[hold.reviewer] = hold
        while len(self.holds) > MAX_HOLDS:
            del self.holds[next(iter(self.holds))]
        self._note(
            LatchEvent(at=hold.at, action="close", reviewer=hold.reviewer, decision=hold.decision)
        )

    def approve(self, reviewer: str, at: float) -> bool:
        """The reviewer approved: its hold goes. True when that opened the latch."""
        if self.holds.pop(reviewer, None) is None:
            return False
        self._note(LatchEvent(at=at, action="open", reviewer=reviewer, decision="approve"))
        return not self.holds

    def release(self, who: str, reason: str, at: float) -> None:
        """A person opened the latch: every hold goes."""
        self.holds.clear()
        self._note(
            LatchEvent(
                at=at, action="release", who=sanitize(who, 200), reason=sanitize(reason, 600)
            )
        )

    def open_findings(self) -> list[tuple[str, HeldFinding]]:
        """Every held finding with its reviewer, in the order the reviews closed the latch."""
        return [(key, f) for key, hold in self.holds.items() for f in hold.findings]

    def _note(self, event: LatchEvent) -> None:
        self.history = [*self.history, event][-MAX_HISTORY:]
        self.state = "closed" if self.holds else "open"
