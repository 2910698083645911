"""The gate policy: which verdicts and findings block a stage.

Soft wording is never approval — that is decided by the verdict parser and is not
configurable. What the policy table decides is whether a `fixes` verdict blocks when every
finding it lists is non-blocking (a `fixes` verdict listing no findings always blocks), and
which finding severities block. Architectural concerns are advisory (seed 004): they are capped at
`important` and never block on their own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Annotated

from pydantic import PlainSerializer

from mergegate.config import DEFAULT_REVIEW, ReviewPolicyConfig
from mergegate.decisions import Decision
from mergegate.verdicts import Finding, Severity, Verdict

__all__ = ["GatePolicy", "StageGate", "cap_architectural", "gate_stage", "is_advisory"]


_DEFAULT = DEFAULT_REVIEW.policy


def _in_severity_order(severities: frozenset[Severity]) -> list[Severity]:
    return [severity for severity in Severity if severity in severities]


_Severities = Annotated[frozenset[Severity], PlainSerializer(_in_severity_order, when_used="json")]
"""A set of severities, written as a list in `Severity`'s order: the same bytes in every
process (a set's own order follows the process's string hashing, `PYTHONHASHSEED`), so a
run's card, written again by another process, does not change."""


@dataclass(frozen=True)
class GatePolicy:
    """What blocks. Defaults (`[review.policy]`'s): "With fixes", critical and important block;
    minor never alone."""

    with_fixes_blocks: bool = _DEFAULT.with_fixes_blocks
    blocking_severities: _Severities = frozenset(
        Severity(name) for name in _DEFAULT.blocking_severities
    )
    minor_blocks: bool = _DEFAULT.minor_blocks
    warning_notice_at: int = _DEFAULT.warning_notice_at
    """A notice (never a block) once a task's review has recorded this many important
    findings."""

    @classmethod
    def from_config(cls, policy: ReviewPolicyConfig) -> GatePolicy:
        """The policy a `[review.policy]` section describes (its preset applied)."""
        return cls.from_names(
            with_fixes_blocks=policy.with_fixes_blocks,
            blocking_severities=policy.blocking_severities,
            minor_blocks=policy.minor_blocks,
            warning_notice_at=policy.warning_notice_at,
        )

    @classmethod
    def from_names(
        cls,
        *,
        with_fixes_blocks: bool,
        blocking_severities: Iterable[str],
        minor_blocks: bool,
        warning_notice_at: int = _DEFAULT.warning_notice_at,
    ) -> GatePolicy:
        severities = frozenset(Severity(name) for name in blocking_severities)
        return cls(with_fixes_blocks, severities, minor_blocks, warning_notice_at)

    @property
    def blocking_rule(self) -> str:
        """When a reviewer may approve under this policy, in the words its prompt uses."""
        blocked = {
            Severity.CRITICAL: "no critical finding (important and minor findings are "
            "reported, not blocking: approve and list them)",
            Severity.IMPORTANT: "no critical or important finding",
            Severity.MINOR: "no finding at all",
        }[self.blocking_from]
        return f"no condition, {blocked}"

    @property
    def blocking_from(self) -> Severity:
        """The lowest severity that blocks (the verdict object's approval rule blocks it and
        every higher one). A policy that names none still blocks critical: fail closed."""
        blocking = set(self.blocking_severities)
        if self.minor_blocks:
            blocking.add(Severity.MINOR)
        for severity in (Severity.MINOR, Severity.IMPORTANT):
            if severity in blocking:
                return severity
        return Severity.CRITICAL

    def blocks(self, finding: Finding) -> bool:
        if is_advisory(finding):
            return False
        if finding.severity is Severity.MINOR:
            return self.minor_blocks
        return finding.severity in self.blocking_severities


@dataclass(frozen=True)
class StageGate:
    """The gate's answer for one review stage."""

    passes: bool
    blocking: tuple[Finding, ...]
    reason: str
    findings: tuple[Finding, ...] = ()
    """Every finding of the verdict as the policy saw it (architectural ones capped)."""


def is_advisory(finding: Finding) -> bool:
    """Architectural pushback is advisory: the approach was decided at planning time.

    (`Finding.advisory`; the verdict parser uses the same rule, so an approving trailer that
    lists only architectural concerns stays an approval.)"""
    return finding.advisory


def cap_architectural(finding: Finding) -> Finding:
    """Cap an architectural finding at `important` (a reviewer may not make it critical)."""
    if is_advisory(finding) and finding.severity is Severity.CRITICAL:
        return replace(finding, severity=Severity.IMPORTANT)
    return finding


def gate_stage(verdict: Verdict, policy: GatePolicy) -> StageGate:
    """Decide one stage. Only an approve without blocking findings passes."""
    findings = tuple(cap_architectural(f) for f in verdict.findings)
    blocking = tuple(f for f in findings if policy.blocks(f))
    decision = verdict.decision
    if decision is Decision.APPROVE:
        if blocking:
            reason = f"approved, but {len(blocking)} finding(s) block"
            return StageGate(False, blocking, reason, findings)
        return StageGate(True, (), "approved", findings)
    if decision is Decision.FIXES:
        return _gate_fixes(findings, blocking, policy)
    if decision is Decision.REJECT:
        return StageGate(False, blocking, "rejected", findings)
    return StageGate(False, (), f"no verdict ({decision.value})", findings)


def _gate_fixes(
    findings: tuple[Finding, ...], blocking: tuple[Finding, ...], policy: GatePolicy
) -> StageGate:
    if policy.with_fixes_blocks or blocking:
        return StageGate(False, blocking, "approval conditional on fixes", findings)
    if not findings:
        # Soft or qualified wording alone ("Yes, once CI is green", "approved with minor
        # suggestions") is never approval: with_fixes_blocks=false only lets the listed
        # findings be weighed, and there are none to weigh.
        reason = "conditional approval without findings: blocks under any policy"
        return StageGate(False, (), reason, findings)
    return StageGate(True, (), "fixes requested, none blocking under the policy", findings)
