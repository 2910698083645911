"""Issue 23, session 26 class 1: a status value qualified by a parenthesis that tells finished
history ('clean (after fix pass — all findings resolved; 5 info findings accepted)') is no
condition (`_awaited.told_after`). Its 'after' phrase is done work and every clause
after it reports findings in a closed shape. A parenthesis that leaves work open (a finding
not resolved, a blocking finding left, an event still to come, anything else) stays a
qualifier and refuses.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

_REVIEW = (
    "---\nstatus: clean\nfiles_reviewed: 9\ncritical: 0\nwarning: 0\ninfo: {info}\n"
    "total: {info}\n---\n\n# Phase 07: Code Review Report\n\n**Status:** {status}\n\n"
    "## Summary\n\nThe scheduler module was read in full.\n"
)


def _review(status: str, info: int = 2) -> str:
    return _REVIEW.format(status=status, info=info)


@pytest.mark.parametrize(
    "status",
    [
        "clean (after fix pass — all Critical/Warning findings resolved; 2 Info findings accepted)",
        "clean (after the second review round - all findings fixed)",
        "passed (after re-review; every blocker addressed, 2 nits left)",
        "CLEAN (after fix pass – all warnings resolved, 2 info notes remaining)",
    ],
)
def test_a_parenthesis_of_finished_history_is_no_condition(status: str) -> None:
    assert parse_verdict(_review(status)).decision is A


@pytest.mark.parametrize(
    "status",
    [
        "clean (after fix pass — findings not resolved)",
        "clean (after fix pass — 2 resolved, 1 blocker still open)",
        "clean (after fix pass — all findings resolved; 1 warning deferred to a follow-up)",
        "clean (after fix pass — all findings resolved; 2 blocker findings accepted)",
        "clean (after fix pass — all findings resolved, pending UAT)",
        "clean (after the lock fix lands — all findings resolved)",
        "clean (after fix pass)",
        "passed (after gap closure)",
        "clean (after fix pass — all findings resolved) but the rollback is missing",
        "clean (after fix pass — all findings resolved) — wait for CI before merge",
    ],
)
def test_a_parenthesis_that_leaves_work_open_still_refuses(status: str) -> None:
    assert parse_verdict(_review(status)).decision is not A


_OPEN = st.sampled_from(
    ["not", "still", "open", "pending", "deferred", "unresolved", "todo", "blocked", "must"]
)


@given(open_word=_OPEN, at=st.integers(min_value=0, max_value=3))
def test_any_word_outside_the_closed_shape_keeps_the_qualifier(open_word: str, at: int) -> None:
    words = ["all", "warning", "findings", "resolved"]
    words.insert(at, open_word)
    status = f"clean (after fix pass — {' '.join(words)})"
    assert parse_verdict(_review(status)).decision is not A
