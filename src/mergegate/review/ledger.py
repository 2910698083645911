"""Findings across revision rounds: what is open, resolved, deferred, and whether we stall.

A finding keeps its id across rounds: ids are derived from content by the verdict library, and
a reworded finding whose trailer `id` names a known one (see `FindingLedger._canonical`) keeps
the known id. The ledger is what the fix prompt, the scoped re-review, the stall detector and
the escalation package all read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from mergegate.config import DEFAULT_REVIEW
from mergegate.verdicts import Finding

__all__ = ["FindingLedger", "FindingRecord", "FindingStatus", "FlatFindingRecord", "LedgerState"]


class FindingStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    DEFERRED = "deferred"
    """Blocking, but outside the fix diff of a scoped re-review: recorded, not blocking
    (only with `review.defer_out_of_scope`)."""
    ADVISORY = "advisory"
    """Never blocks (minor under the policy, or architectural pushback)."""


class FindingRecord(BaseModel):
    """One finding and everything that happened to it (a frozen value: the ledger replaces it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    finding: Finding
    stage: str
    status: FindingStatus
    first_round: int
    history: tuple[tuple[int, str], ...] = ()
    """(round, event) pairs, oldest first."""

    def to_dict(self) -> dict[str, object]:
        return {
            **self.finding.to_dict(),
            "stage": self.stage,
            "status": self.status.value,
            "first_round": self.first_round,
            "history": [{"round": r, "event": e} for r, e in self.history],
        }

    def _with(self, round: int, event: str, **changes: object) -> FindingRecord:
        return self.model_copy(update={**changes, "history": (*self.history, (round, event))})


_RECORD_KEYS = ("stage", "status", "first_round", "history")


def _nested(value: object) -> object:
    """A record in its flat form (`FindingRecord.to_dict`) as the model's fields; the
    finding's keys are the rest (an unknown key fails the finding, which forbids extras).
    Anything else (a record, the nested form) is left to the model."""
    if not isinstance(value, Mapping) or "finding" in value:
        return value
    finding = {k: v for k, v in value.items() if k not in _RECORD_KEYS}
    fields: dict[str, object] = {k: value[k] for k in _RECORD_KEYS if k in value}
    history = fields.get("history")
    if isinstance(history, list):
        fields["history"] = [
            (h.get("round"), h.get("event")) if isinstance(h, Mapping) else h for h in history
        ]
    return {"finding": finding, **fields}


FlatFindingRecord = Annotated[
    FindingRecord, BeforeValidator(_nested), PlainSerializer(FindingRecord.to_dict)
]
"""A `FindingRecord` recorded in its flat JSON form (`to_dict`: the finding's fields, then
stage, status, first_round and history), as a review's outcome and a task's record keep it,
and read back from it: the type of a field that holds a record in that form."""


class LedgerState(BaseModel):
    """Everything a ledger knows, as a frozen, JSON-round-trippable value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    records: tuple[FindingRecord, ...] = ()
    open_blocking_per_round: dict[int, int] = Field(default_factory=dict)
    reopened: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Review:
    round: int
    stage: str
    findings: tuple[Finding, ...]
    blocking_ids: frozenset[str]
    scope_files: frozenset[str] | None


class FindingLedger:
    """Tracks findings by id over rounds and detects a revision loop that does not converge."""

    def __init__(
        self,
        *,
        defer_out_of_scope: bool = DEFAULT_REVIEW.defer_out_of_scope,
        state: LedgerState | None = None,
    ) -> None:
        """A ledger, empty or continuing `state` (see `state()`)."""
        state = state or LedgerState()
        self._records: dict[str, FindingRecord] = {r.finding.id: r for r in state.records}
        self._defer_out_of_scope = defer_out_of_scope
        self._open_blocking_per_round: dict[int, int] = dict(state.open_blocking_per_round)
        self._reopened: list[str] = list(state.reopened)

    def state(self) -> LedgerState:
        """What this ledger knows, as a value (records are frozen, so nothing is shared)."""
        return LedgerState(
            records=self.records,
            open_blocking_per_round=dict(self._open_blocking_per_round),
            reopened=tuple(self._reopened),
        )

    @property
    def records(self) -> tuple[FindingRecord, ...]:
        return tuple(self._records.values())

    def record_review(
        self,
        *,
        round: int,
        stage: str,
        findings: tuple[Finding, ...],
        blocking_ids: frozenset[str],
        scope_files: frozenset[str] | None = None,
    ) -> dict[str, FindingStatus]:
        """Fold one valid (non-malformed) stage review into the ledger.

        `scope_files` is the set of files a scoped re-review looked at; a new blocking finding
        on another file is deferred (when configured) instead of blocking. Returns the status
        of each reported finding, keyed by the id it was reported with.
        """
        canonical = [self._canonical(f, stage) for f in findings]
        findings = tuple(c for c, _ in canonical)
        blocking_ids = frozenset(c.id for c, orig in canonical if orig in blocking_ids)
        review = _Review(round, stage, findings, blocking_ids, scope_files)
        seen = {f.id for f in findings}
        for finding in findings:
            self._record_finding(review, finding)
        for fid, record in list(self._records.items()):
            if record.stage == stage and record.status is FindingStatus.OPEN and fid not in seen:
                self._records[fid] = record._with(
                    round, "resolved (not reported by the re-review)", status=FindingStatus.RESOLVED
                )
        self._open_blocking_per_round[round] = len(self.open_blocking())
        return {orig: self._records[c.id].status for c, orig in canonical}

    def _canonical(self, finding: Finding, stage: str) -> tuple[Finding, str]:
        """The finding under the id the ledger already knows it by, and its original id.

        Ids are derived from content, so a reworded finding gets a new one. The reviewer is
        shown each open finding's id and asked to reuse it; when its trailer `id` (`ref`)
        names a finding of the same stage, by our id or by the reviewer's own earlier id, it
        is that finding — reworded, not new.
        """
        if finding.id in self._records or not finding.ref:
            return finding, finding.id
        for record in self._records.values():
            if record.stage == stage and finding.ref in (record.finding.id, record.finding.ref):
                return replace(finding, id=record.finding.id), finding.id
        return finding, finding.id

    def _record_finding(self, review: _Review, finding: Finding) -> None:
        record = self._records.get(finding.id)
        blocking = finding.id in review.blocking_ids
        if record is None:
            status = self._initial_status(review, finding, blocking=blocking)
            self._records[finding.id] = FindingRecord(
                finding=finding,
                stage=review.stage,
                status=status,
                first_round=review.round,
                history=((review.round, f"reported ({status.value})"),),
            )
            return
        if record.status is FindingStatus.RESOLVED:
            self._reopened.append(finding.id)
            status = FindingStatus.OPEN if blocking else FindingStatus.ADVISORY
            record = record._with(review.round, "came back after it was resolved", status=status)
        else:
            record = record._with(review.round, "still reported")
        self._records[finding.id] = record.model_copy(update={"finding": finding})

    def _initial_status(
        self, review: _Review, finding: Finding, *, blocking: bool
    ) -> FindingStatus:
        if not blocking:
            return FindingStatus.ADVISORY
        out_of_scope = (
            review.scope_files is not None
            and self._defer_out_of_scope
            and (finding.file is None or finding.file not in review.scope_files)
        )
        return FindingStatus.DEFERRED if out_of_scope else FindingStatus.OPEN

    def open_blocking(self) -> tuple[Finding, ...]:
        return tuple(r.finding for r in self._records.values() if r.status is FindingStatus.OPEN)

    def stall_reason(self, round: int) -> str | None:
        """Why the loop is not converging after `round`, or None.

        Stalled when the same finding came back after being resolved, or when the number of
        open blocking findings did not decrease since the previous round.
        """
        if self._reopened:
            return f"finding(s) came back after being resolved: {', '.join(self._reopened)}"
        now = self._open_blocking_per_round.get(round)
        before = self._open_blocking_per_round.get(round - 1)
        if now is not None and before is not None and now > 0 and now >= before:
            return f"open blocking findings did not decrease ({before} -> {now})"
        return None
