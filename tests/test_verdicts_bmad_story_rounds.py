"""BMAD's story file: Quinn appends one review per round under `## QA Results`, each opened by
its `### Review Date:` heading and closed by its gate line (`Gate: X → docs/qa/gates/….yml`).
A later round whose gate names the same gate file is the review of the same whole story again
(the gate file is the story's one decision record): the earlier rounds are older records, and
their open items and gate are not read. A later round about something else — another gate
file, or no gate at all — lifts nothing."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
_GATE = "docs/qa/gates/1.2-auth-setup.yml"


def _first_round(gate: str = "CONCERNS") -> str:
    return (
        "### Review Date: 2026-03-01\n\n### Reviewed By: Quinn (Test Architect)\n\n"
        "### Critical Issues\n\n**1. AC3 incomplete**\n"
        "- **Issue:** the auth service is not enabled in the console\n"
        "- **Blocking:** must be completed before Done\n\n"
        f"### Gate Status\n\n**Gate:** {gate} → {_GATE}\n\n"
        "### Recommended Status\n\n**✗ Changes Required - complete AC3 before Done**\n\n---\n\n"
    )


def _story(*rounds: str) -> str:
    return (
        "# Story 1.2: Auth setup\n\n## Status\n\nReview\n\n## Story\n\n"
        "As a user I want to sign in.\n\n## QA Results\n\n" + "".join(rounds)
    )


_RESOLVED = (
    "**Critical Issues Resolved:**\n1. ✅ **AC3 complete** - the auth service is enabled\n\n"
)


def _follow_up(gate: str = "PASS", path: str = _GATE, extra: str = "") -> str:
    return (
        "### Follow-up Review Date: 2026-03-02\n\n"
        "### Status Update: ✅ ALL ISSUES RESOLVED\n\n"
        f"{_RESOLVED}{extra}"
        f"**Gate:** {gate} → {path}\n\n"
        "### Final Recommended Status\n\n**✅ Ready for Done**\n"
    )


def test_a_later_round_of_the_same_gate_decides() -> None:
    verdict = parse_verdict(_story(_first_round(), _follow_up()))
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "bmad"


def test_a_bold_gate_line_is_the_gate_field() -> None:
    verdict = parse_verdict(_story(_first_round("FAIL")))
    assert verdict.decision is Decision.REJECT, verdict.reasons
    assert verdict.dialect == "bmad"


@pytest.mark.parametrize(
    "follow_up",
    [
        _follow_up(gate="CONCERNS"),
        _follow_up(gate="FAIL"),
        # Another gate file: a review of something else, not of this story again.
        _follow_up(path="docs/qa/gates/1.3-onboarding.yml"),
        # No gate: a note after the review, not a round of it.
        _follow_up().replace(f"**Gate:** PASS → {_GATE}\n\n", ""),
        # The later round's own content is still read.
        _follow_up(extra="### Critical Issues\n\n- **Issue:** tokens are logged in plain text\n\n"),
        # A round scoped to a part: it does not answer the earlier Critical items.
        _follow_up().replace(_RESOLVED, "Only the CHANGELOG wording was re-reviewed.\n\n"),
        # The record lists the item without checking it.
        _follow_up().replace("✅ **AC3 complete**", "**AC3** - still open"),
    ],
    ids=["concerns", "fail", "other-gate", "no-gate", "own-critical", "partial-scope", "unchecked"],
)
def test_a_later_round_that_does_not_pass_the_same_gate_lifts_nothing(follow_up: str) -> None:
    verdict = parse_verdict(_story(_first_round(), follow_up))
    assert verdict.decision is not A, verdict.reasons


def test_an_earlier_round_after_the_pass_is_not_lifted() -> None:
    """Rounds are appended: a PASS round above a CONCERNS round is the older one."""
    passing = _follow_up().replace("Follow-up Review Date", "Review Date")
    verdict = parse_verdict(_story(passing, "---\n\n" + _first_round()))
    assert verdict.decision is not A, verdict.reasons
