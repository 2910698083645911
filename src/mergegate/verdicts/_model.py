"""Typed values the verdict parser returns. Frozen, JSON-ready, no behaviour beyond views.

Standard-library dataclasses, not pydantic models: `mergegate parse` and the Claude Code hook
start on every call, and importing pydantic and building its first model cost more than the
rest of `parse` (bench/bench_startup.py). pydantic models that hold them (the review state)
still validate and serialise them as fields, extra keys forbidden (`__pydantic_config__`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from mergegate.decisions import Decision

__all__ = ["SEVERITY_WORDS", "Evidence", "Finding", "Severity", "Verdict", "finding_id"]

EVIDENCE_MAX_CHARS = 300


class Severity(StrEnum):
    """How much a finding blocks: critical and important block a merge, minor does not.

    The package's one severity type. Other scales are input vocabularies mapped onto it by
    `from_word` (`SEVERITY_WORDS`): prose section names, and the four-level scale of the
    `code-review-result` handoff.
    """

    CRITICAL = "critical"
    IMPORTANT = "important"
    MINOR = "minor"

    @classmethod
    def from_word(cls, word: str) -> Severity:
        """The severity a word names ('blocker', 'high', 'P2', 'nit' …); `ValueError` when
        it names none."""
        text = word.strip().casefold()
        for prefix, severity in SEVERITY_WORDS:
            if text.startswith(prefix):
                return severity
        raise ValueError(f"{word!r} names no severity")


SEVERITY_WORDS: tuple[tuple[str, Severity], ...] = tuple(
    (word, severity)
    for severity, words in (
        (Severity.CRITICAL, "critical|blocker|blocking|must fix|p0|严重|致命"),
        (Severity.IMPORTANT, "important|major|high|should fix|p1|warning|medium|重要"),
        (Severity.MINOR, "minor|low|nit|info|suggestion|nice to have|p2|p3|次要"),
    )
    for word in words.split("|")
)
"""Words that name a severity, longest meaning first: one table for prose and payloads."""


_FORBID_EXTRA: dict[str, Any] = {"extra": "forbid"}
"""pydantic's configuration for these dataclasses where a model holds one (a `ConfigDict`,
spelled as a dict so that this module does not import pydantic)."""


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """Where the deciding verdict was found: a 1-based line number and that line (bounded)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _FORBID_EXTRA

    line: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: `line` and `text`."""
        return {"line": self.line, "text": self.text}

    @classmethod
    def at(cls, line: int, text: str) -> Evidence:
        """Evidence for `line`, its text stripped and cut to `EVIDENCE_MAX_CHARS`."""
        text = text.strip()
        if len(text) > EVIDENCE_MAX_CHARS:
            text = text[: EVIDENCE_MAX_CHARS - 1] + "…"
        return cls(line=line, text=text)


REF_MAX_CHARS = 64
_ADVISORY_PREFIXES = ("architecture:", "architectural:", "[architecture]")


def finding_id(severity: Severity, title: str, file: str | None) -> str:
    """A stable id derived from content: the same finding gets the same id in every round."""
    # hashlib loads OpenSSL (a few ms of every start-up): only a review with findings needs it.
    import hashlib  # noqa: PLC0415

    norm_title = " ".join(title.casefold().split())
    key = f"{severity.value}\x1f{norm_title}\x1f{(file or '').strip()}"
    return "F-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One issue a reviewer raised. `id` is derived from severity, title and file."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _FORBID_EXTRA

    id: str
    severity: Severity
    title: str
    file: str | None = None
    line: int | None = None
    detail: str = ""
    ref: str | None = None
    """The reviewer's own id for this finding (JSON trailer `id`), bounded. Not the identity
    (`id` is): a hint that lets a revision loop follow a finding the reviewer reworded."""
    suggestion: str | None = None
    """How to fix it (the verdict object's `suggestion`), bounded."""
    requirement: str | None = None
    """The requirement or criterion it breaks (the verdict object's `requirement`), bounded."""

    @property
    def advisory(self) -> bool:
        """Architectural pushback (a title starting `Architecture:`, `Architectural:` or
        `[Architecture]`) is advisory and never blocks: the approach was decided at planning
        time (seed 004)."""
        return self.title.strip().lower().startswith(_ADVISORY_PREFIXES)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view of every field, in field order (the severity as its value)."""
        dumped = {f.name: getattr(self, f.name) for f in fields(self)}
        dumped["severity"] = self.severity.value
        return dumped

    @classmethod
    def make(
        cls,
        severity: Severity,
        title: str,
        *,
        file: str | None = None,
        line: int | None = None,
        detail: str = "",
        ref: str | None = None,
        suggestion: str | None = None,
        requirement: str | None = None,
    ) -> Finding:
        """Build a finding whose id is derived from its content (`ref`: the reviewer's id)."""
        title = title.strip()[:300]
        ref = " ".join(ref.split())[:REF_MAX_CHARS] if ref else None
        return cls(
            id=finding_id(severity, title, file),
            severity=severity,
            title=title,
            file=file,
            line=line if line is not None and line > 0 else None,  # lines are 1-based
            detail=detail.strip()[:2000],
            ref=ref or None,
            suggestion=suggestion.strip()[:2000] or None if suggestion else None,
            requirement=requirement.strip()[:1000] or None if requirement else None,
        )


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The typed answer for one reviewer output. Only `decision is APPROVE` proceeds."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _FORBID_EXTRA

    decision: Decision
    dialect: str | None = None
    evidence: Evidence | None = None
    reasons: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def approved(self) -> bool:
        """True only for an authoritative, unconditional approval."""
        return self.decision is Decision.APPROVE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: decision, approved, dialect, evidence, reasons, findings, warnings."""
        return {
            "decision": self.decision.value,
            "approved": self.approved,
            "dialect": self.dialect,
            "evidence": self.evidence.to_dict() if self.evidence else None,
            "reasons": list(self.reasons),
            "findings": [_finding_dict(f) for f in self.findings],
            "warnings": list(self.warnings),
        }


def _finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as JSON; `suggestion` and `requirement` only when given (a verdict object's)."""
    dumped = finding.to_dict()
    for key in ("suggestion", "requirement"):
        if dumped[key] is None:
            del dumped[key]
    return dumped
