"""Issue 23, session 21: a GSD Human Verification section that records its checks as done
with 'already' before the participle ('Human verification was already performed …'), or
in the past tense right after the section's noun with no auxiliary ('Human verification
checkpoint completed and APPROVED on 2026-03-02').

The record is read as before: a negation, an exception, a part or a contrast after the
participle keeps the section open, and the lines after it must only explain it.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(human: str) -> str:
    return (
        "---\nphase: 09-billing\nstatus: passed\nscore: 6/6 must-haves verified\n---\n\n"
        "# Phase 9: Billing Verification Report\n\n**Status:** passed\n\n"
        f"### Human Verification Required\n\n{human}\n\n### Gaps Summary\n\nNo gaps found.\n"
    )


@pytest.mark.parametrize(
    "human",
    [
        "Human verification was already performed at the 09-02 checkpoint. The user confirmed it.",
        "Human verification was ALREADY COMPLETED during plan execution.",
        "Human verification checkpoint completed and APPROVED on 2026-03-02 (Task 4 of 09-03).",
        "Human verification completed by the developer during plan 09-03.",
    ],
)
def test_checks_recorded_as_done_empty_the_section(human: str) -> None:
    assert parse_verdict(_report(human)).decision is A


@pytest.mark.parametrize(
    "human",
    [
        "Human verification was already performed for the invoice page only.",
        "Human verification checkpoint completed, but the refund flow still needs a manual run.",
        "Human verification was not already performed.",
        "Human verification checkpoint completed except for the Safari check.",
        "Human verification checkpoint pending.",
        "Human verification completed.\n\n1. Open the invoice PDF and check the totals by hand.",
    ],
)
def test_a_record_that_is_not_whole_still_lists_a_check(human: str) -> None:
    assert parse_verdict(_report(human)).decision is not A
