"""Issue 23, session 26 class 3: a label that explains why an item does not block ('**Why
not a blocker for Phase 2:** …') opens the reviewer's argument, not a withdrawal: a negated
merge verb in it whose object is something other than the change ('the router must not
accept user-supplied paths') is about that object (`_refusals._WHY_NOT_BLOCKING`,
`negated_merge_in(change_only=True)`). Under the label an explicit withdrawal, a negated
merge of the change itself, or a condition tied to the merge still refuses; without the
label the sentence is read as before.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(note: str) -> str:
    return (
        "# Phase 2 Verification\n\n**Status:** PASSED\n\nAll 4 truths verified.\n\n"
        f"## Notes\n\n{note}\n"
    )


@pytest.mark.parametrize(
    "note",
    [
        "**Why not a blocker for Phase 2:** the router must not accept user-supplied paths, "
        "and the Phase 3 form validates them first.",
        "**Why this is not blocking for Phase 2:** the router must not accept "
        "user-supplied paths, and the Phase 3 form validates them first.",
        "**Why non-blocking for Phase 2:** the router must not accept user-supplied paths, "
        "and the Phase 3 form validates them first.",
    ],
)
def test_the_argument_why_an_item_does_not_block_withdraws_nothing(note: str) -> None:
    assert parse_verdict(_report(note)).decision is A


@pytest.mark.parametrize(
    "note",
    [
        "**Why not a blocker:** honestly I would not ship this as is.",
        "**Why not a blocker:** it is one; do not merge.",
        "**Why not a blocker:** the path check must be fixed before merge.",
        "**Why not a blocker:** we cannot approve it yet.",
        "**Why not a blocker:** I retract my approval.",
        "The router must not accept user-supplied paths.",
        "**Reason:** the router must not accept user-supplied paths.",
    ],
)
def test_a_withdrawal_or_condition_still_refuses(note: str) -> None:
    assert parse_verdict(_report(note)).decision is not A


@given(verb=st.sampled_from(["merge", "ship", "approve", "land", "accept", "release"]))
def test_a_negated_merge_of_the_change_refuses_under_the_label(verb: str) -> None:
    note = f"**Why not a blocker:** we should not {verb} this until the fix lands."
    assert parse_verdict(_report(note)).decision is not A
