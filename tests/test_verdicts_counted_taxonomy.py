"""Issue 23, session 26 class 2 (its taxonomy half): a verifier's report that counts the
severity levels a delivered artefact defines ('7 finding categories with severity levels
(3 BLOCKER, 3 WARNING, 1 INFO)', '12 lint rules (4 blocking, 8 warning)') describes the
product, not findings of this review (`_signals.in_taxonomy`). A tally of findings, a count
whose head noun is outside the closed list, or one with another modifier ('3 open
categories (1 blocker)') still blocks.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _uat(item: str) -> str:
    return (
        "# Phase 5 UAT\n\n### Test 1: Review workflow (REV-01)\n**Status:** PASS\n"
        "- Three review lenses defined\n"
        f"- {item}\n"
        "- Integration with the loop documented\n\n"
        "| # | Test | Status |\n|---|---|---|\n| 1 | Review workflow | PASS |\n\n"
        "**Result: 1/1 PASS**\n"
    )


@pytest.mark.parametrize(
    "item",
    [
        "7 finding categories with severity levels (3 BLOCKER, 3 WARNING, 1 INFO)",
        "12 lint rules (4 blocking, 8 warning)",
        "5 check types with severities (2 critical, 3 info)",
    ],
)
def test_severity_levels_of_a_delivered_taxonomy_are_no_findings(item: str) -> None:
    assert parse_verdict(_uat(item)).decision is A


@pytest.mark.parametrize(
    "item",
    [
        "7 findings (3 BLOCKER, 3 WARNING, 1 INFO)",
        "3 open categories (1 blocker)",
        "Review found 2 blockers in the loop",
        "7 finding categories with severity levels; 3 blockers remain",
        "7 finding categories with severity levels (3 BLOCKER) (2 critical)",
    ],
)
def test_a_tally_of_findings_still_blocks(item: str) -> None:
    assert parse_verdict(_uat(item)).decision is not A


@given(noun=st.sampled_from(["findings", "issues", "defects", "problems", "bugs", "items"]))
def test_a_noun_outside_the_closed_list_keeps_the_tally(noun: str) -> None:
    assert parse_verdict(_uat(f"7 {noun} (3 BLOCKER, 4 INFO)")).decision is not A
