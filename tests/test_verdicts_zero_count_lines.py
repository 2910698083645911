"""A tally of findings by severity after an approval (issue 23): superpowers SDD reviews end
with `## Finding counts` and `- Critical: 0` lines. A count of zero is an empty section, not a
finding after the approval; a count above zero, or a zero with anything else beside it, is
still read as what the approval has not weighed."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(counts: str) -> str:
    return (
        "# Task 2 review\n\n"
        "## Verdicts\n\n"
        "Spec compliance: PASS.\n\n"
        "Code quality: PASS.\n\n"
        "## Findings\n\n"
        "### Critical\n\nNone.\n\n"
        "### Important\n\nNone.\n\n"
        "### Minor\n\nNone.\n\n"
        f"## Finding counts\n\n{counts}\n"
    )


@pytest.mark.parametrize(
    "counts",
    [
        "- Critical: 0\n- Important: 0\n- Minor: 0",
        "- **Critical:** 0\n- **Important:** 0\n- **Minor:** none",
        "* Blocking issues: 0\n* Warnings: zero",
    ],
)
def test_zero_counts_after_the_approval_approve(counts: str) -> None:
    verdict = parse_verdict(_review(counts))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "counts",
    [
        "- Critical: 1\n- Important: 0\n- Minor: 0",
        "- Critical: 0\n- Important: 2\n- Minor: 0",
        "- Critical: 0 (one open in auth.py)\n- Important: 0",
        "- Critical: 0\n- Important: 0\n- The session token is never rotated in `auth.py:42`",
    ],
)
def test_a_count_above_zero_or_a_finding_beside_the_zeros_refuses(counts: str) -> None:
    verdict = parse_verdict(_review(counts))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
