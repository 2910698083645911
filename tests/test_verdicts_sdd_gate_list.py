"""An SDD task review may give its two stages as a plain bullet list of gates, each answered on
its line ('- Spec review: PASS', '- Code quality review: PASS'), and end 'Task N is
complete.' (issue 23, class 6). Each item is that stage's line, read like the bold-labelled
form: both stages must approve, a stage that does not (a no, a condition) refuses, and one
stage alone is no approval."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(spec: str, quality: str, tail: str = "") -> str:
    return (
        "# Task 5 review: invoice PDF footer\n\n"
        f"- Spec compliance review: {spec}\n"
        f"- Code quality review: {quality}\n\n"
        f"Task 5 is complete.\n{tail}"
    )


@pytest.mark.parametrize(("spec", "quality"), [("PASS", "PASS"), ("✅ PASS", "Approved")])
def test_a_gate_list_with_both_stages_passing_approves(spec: str, quality: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(_review(spec, quality), strict=strict)
        assert verdict.decision is A, (strict, verdict.reasons)


@pytest.mark.parametrize(
    ("spec", "quality", "tail"),
    [
        ("PASS", "FAIL", ""),
        ("PASS", "needs changes", ""),
        ("PASS", "PASS once the footer font is embedded", ""),
        ("missing the VAT line", "PASS", ""),
        ("PASS", "PASS", "\nHold the merge until the footer font is embedded.\n"),
    ],
)
def test_a_stage_that_does_not_pass_refuses(spec: str, quality: str, tail: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(_review(spec, quality, tail), strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)


def test_one_stage_alone_is_no_approval() -> None:
    text = "# Task 5 review\n\n- Spec compliance review: PASS\n\nTask 5 is complete.\n"
    assert parse_verdict(text).decision is not A
