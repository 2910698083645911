"""Issue 23: a reason field that stands in the verdict's section, below its paragraph, is the
verdict's own reason (`_block`), in every template that has one.

The class main approved: `**Ready to merge? Yes**`, a blank line, then `**Reasoning:** Good,
but the Phase 3 file must be removed first.` — the blank line put the field outside the
verdict's paragraph, so it was read as prose after the approval, where an obligation not tied
to the merge is a finding the verdict weighed. Each template's twin with a genuine reason
still approves (the held-out reviews' own reasoning: 'test commands pass when re-executed'
describes the check, it does not condition it).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

CONDITIONS = [
    "Good, but the Phase 3 file must be removed first.",
    "Fine once the migration lands.",
    "Solid work; however, the config flag needs renaming before this ships.",
    "Good, pending the security review.",
    "Looks good, but do not merge until the nightly job passes.",
    "Good work, but the Phase 3 file has to go first.",
]
REASONS = [
    "All 9 acceptance criteria are met, every task's own test commands pass when re-executed"
    " against the live scripts, and the diff matches the plan.",
    "Both original findings are fixed with direct regressions.",
    "Scope matches Phase 2. Implementation quality is good.",
    "I had concerns before, but the second commit resolved all of them.",
]


def _superpowers(reason: str) -> str:
    return (
        "# Code Review\n\n### Strengths\n- Clean separation.\n\n### Issues\n\n"
        "#### Critical (Must Fix)\nNone.\n\n#### Important (Should Fix)\nNone.\n\n"
        "#### Minor (Nice to Have)\n- Rename `foo`.\n\n### Assessment\n\n"
        f"**Ready to merge?** Yes\n\n**Reasoning:** {reason}\n"
    )


def _spectacular(reason: str) -> str:
    return (
        "## Code Review: Phase 2 - Auth\n\n### Issues\n\n#### Critical\nNone.\n\n"
        "#### Important\nNone.\n\n#### Minor\nNone.\n\n### Assessment\n\n"
        f"**Ready to merge? Yes**\n\n**Reasoning:** {reason}\n"
    )


def _verdict_section(reason: str) -> str:
    return f"# Review\n\n## Summary\n\nAdds a cache.\n\n## Verdict\n\nAPPROVE\n\nNotes: {reason}\n"


def _megazord(reason: str) -> str:
    return f"## REVIEW COMPLETE\n\n**Task:** 3-1\n**Status:** passed\n\n**Notes:** {reason}\n"


def _bmad(reason: str) -> str:
    return f"gate: PASS\n\nstatus_reason: '{reason}'\n"


def _github(reason: str) -> str:
    return f"state: APPROVED\n\nreason: {reason}\n"


def _review_log(reason: str) -> str:
    return (
        "- Spec review: PASS\n- Quality review: CHANGES_REQUESTED (missing test)\n"
        f"- Fix: added the test\n- Quality re-review: APPROVED\n\nNotes: {reason}\n"
    )


def _gsd(reason: str) -> str:
    return (
        "---\nphase: 03\nstatus: passed\nscore: 5/5\n---\n\n# Phase 3 Verification\n\n"
        f"**Status:** passed\n\n**Notes:** {reason}\n"
    )


TEMPLATES = [
    (_superpowers, "superpowers"),
    (_spectacular, "spectacular"),
    (_verdict_section, None),
    (_megazord, "megazord"),
    (_bmad, "bmad"),
    (_github, "github"),
    (_review_log, "review-log"),
    (_gsd, "gsd"),
]


@pytest.mark.parametrize(("build", "dialect"), TEMPLATES)
@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_condition_in_a_reason_field_below_the_verdict_refuses(
    build: object, dialect: str | None, condition: str
) -> None:
    assert callable(build)
    verdict = parse_verdict(build(condition))
    assert verdict.decision is not A, verdict.reasons
    if dialect is not None:
        assert verdict.dialect == dialect


@pytest.mark.parametrize(("build", "dialect"), TEMPLATES)
@pytest.mark.parametrize("reason", REASONS)
def test_a_genuine_reason_field_below_the_verdict_approves(
    build: object, dialect: str | None, reason: str
) -> None:
    assert callable(build)
    verdict = parse_verdict(build(reason))
    assert verdict.decision is A, verdict.reasons
    if dialect is not None:
        assert verdict.dialect == dialect


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(CONDITIONS),
    st.sampled_from([b for b, _ in TEMPLATES]),
    st.integers(min_value=1, max_value=3),
)
def test_blank_lines_between_verdict_and_reason_change_nothing(
    condition: str, build: object, blanks: int
) -> None:
    """However many blank lines part the field from its verdict, within its section the
    field is the verdict's: a condition in it never approves."""
    assert callable(build)
    text = build(condition).replace("\n\n", "\n" + "\n" * blanks)
    assert parse_verdict(text).decision is not A


def test_a_reason_field_under_another_heading_is_not_the_verdicts() -> None:
    """The section ends at the next heading: a field there speaks for its own section."""
    text = (
        "# Review\n\n## Verdict\n\nAPPROVE\n\n## History\n\n"
        "Notes: round 1 needed the index, which is added now.\n"
    )
    assert parse_verdict(text).decision is A
