"""Issue 23, session 21: a count of zero before 'blockers' names no blocker.

'APPROVED with 0 blockers' counts the blockers and finds none: the numeral zero is a
closed-class quantifier like 'no', so it is not blocking content. A count of one or more
still is, and whatever else the line says is still read.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(verdict: str) -> str:
    summary = "## Summary\n\nThe backoff is bounded and tested."
    return f"# Review of the retry queue\n\n{summary}\n\n{verdict}\n"


@pytest.mark.parametrize(
    "verdict",
    [
        "**Verdict:** APPROVED with 0 blockers.",
        "Verdict: APPROVED (0 blockers, 3 nits)",
        "- Verdict: APPROVED with 0 blockers and 0 unresolved issues from the reviewer.",
    ],
)
def test_zero_blockers_is_no_blocker(verdict: str) -> None:
    assert parse_verdict(_review(verdict)).decision is A


@pytest.mark.parametrize(
    "verdict",
    [
        "**Verdict:** APPROVED with 2 blockers.",
        "Verdict: APPROVED — 12 blockers remain open",
        "Verdict: APPROVED with 0 blockers once the queue limit is set",
        "**Verdict:** APPROVED with 0 blockers.\n\n1 remaining blocker: the queue is unbounded.",
    ],
)
def test_a_count_of_blockers_above_zero_still_blocks(verdict: str) -> None:
    assert parse_verdict(_review(verdict)).decision is not A
