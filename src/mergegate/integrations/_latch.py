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
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.integrations._untrusted import sanitize

__all__ = [
    "MAX_HELD_FINDINGS",
    "HeldFinding",
    "Hold",
    "Latch",
    "LatchEvent",
]

MAX_HOLDS = 32
MAX_HELD_FINDINGS = 50
MAX_HISTORY = 20
_TEXT = 300


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class HeldFinding(_Record):
    """A finding of the review that closed the latch (text cut and cleaned)."""

    id: str = Field(max_length=64)
    severity: str = Field(max_length=16)
    title: str = Field(max_length=_TEXT)
    file: str | None = Field(default=None, max_length=_TEXT)
    line: int | None = None


class Hold(_Record):
    """One reviewer's standing "no" in a session."""

    reviewer: str = Field(max_length=100)
    decision: Literal["fixes", "reject", "malformed", "empty"]
    evidence: str = Field(default="", max_length=_TEXT + 40)
    """`line N: "…"` of the verdict, or `no verdict line`."""
    findings: list[HeldFinding] = Field(default_factory=list, max_length=MAX_HELD_FINDINGS)
    at: float = 0.0
    cwd: str = Field(default="", max_length=4096)


class LatchEvent(_Record):
    """One change of the latch, for `status` and the record."""

    at: float
    action: Literal["close", "open", "release"]
    reviewer: str | None = Field(default=None, max_length=100)
    decision: str | None = Field(default=None, max_length=16)
    who: str | None = Field(default=None, max_length=200)
    """Who released it (a person's name and their account), for `release`."""
    reason: str = Field(default="", max_length=600)


class Latch(_Record):
    """The latch of one session. `state` mirrors `holds` (closed iff a hold is left), so the
    hook's fast path can read it without this model."""

    state: Literal["open", "closed"] = "open"
    holds: dict[str, Hold] = Field(default_factory=dict)
    history: list[LatchEvent] = Field(default_factory=list)

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
