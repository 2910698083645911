"""Python's `try/except` in a reason after the approval (issue 23, an SDD task review's
strengths: 'Replaced broad try/except with explicit conditional check'): the construct's
name, not an exceptive preposition that leaves a part of the change out. A real exception
('except the migration') still narrows the approval."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

HEAD = "# Task 3 Review\n\n## Spec Compliance: PASS\n\n## Code Quality: APPROVED\n\n### Strengths\n"


@pytest.mark.parametrize("construct", ["try/except", "try-except", "Try/Except"])
def test_the_try_except_construct_in_a_strength_approves(construct: str) -> None:
    text = HEAD + f"- **Error handling**: Replaced a broad {construct} with an explicit check\n"
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "- Everything except the migration looks good\n",
        "- Good overall, except the retry loop in `sync.py`\n",
        "- Replaced the try/except; everything except the cache layer is covered\n",
    ],
)
def test_a_part_left_out_still_keeps_the_review_from_approving(line: str) -> None:
    assert parse_verdict(HEAD + line).decision is not A
