"""A BMAD gate's `risk_summary.totals` counts the story's risks by score; BMAD's review task
counts a score of 9 as critical and makes any such risk FAIL unless waived. A PASS beside a
critical count above zero contradicts the gate's own rule: `fixes`. A block-style
`critical: 1` line was already a blocking count; a flow mapping (`totals: { critical: 1, … }`)
is read through the YAML, in any order, quoted or not. High, medium and low counts are
the reviewer's call."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = (
    'schema: 1\nstory: "7.2"\nstory_title: "Bulk export"\ngate: PASS\n'
    'status_reason: "Acceptance criteria covered by integration tests."\n'
    'reviewer: "Quinn (Test Architect)"\nupdated: "2026-11-28T09:30:00Z"\ntop_issues: []\n'
)


@pytest.mark.parametrize(
    "totals",
    [
        "risk_summary:\n  totals: { critical: 3, high: 1, medium: 0, low: 0 }\n",
        "risk_summary:\n  totals: {critical: 1, low: 4}\n",
        "risk_summary: { totals: { critical: '2', high: 0 } }\n",
    ],
)
def test_a_critical_risk_count_keeps_the_pass_from_approving(totals: str) -> None:
    verdict = parse_verdict(_HEAD + totals)
    assert verdict.decision is Decision.FIXES, verdict.reasons
    assert "critical risk" in verdict.reasons[0]


@pytest.mark.parametrize(
    "totals",
    [
        "risk_summary:\n  totals: { critical: 0, high: 1, medium: 2, low: 3 }\n",
        "risk_summary:\n  totals:\n    critical: 0\n",
    ],
)
def test_no_critical_risk_leaves_the_pass(totals: str) -> None:
    assert parse_verdict(_HEAD + totals).decision is Decision.APPROVE
