"""Issue 23, session 21: a GSD Human Verification section whose one line repeats the
section's own slot as a plain label and answers it ('Human Verification Required: None').

The label names the human-check slot, so only its value is the section's answer: a none
(with an explanation after it) empties the section; anything else in the value is a check a
person must still make, as it would be without the label.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(human: str) -> str:
    return (
        "---\nphase: 07-export\nstatus: passed\nscore: 5/5 requirements satisfied\n---\n\n"
        "# Phase 7: CSV Export Verification Report\n\n**Status:** passed\n\n"
        f"## Human Verification Required\n\n{human}\n\n## Gaps Summary\n\nNo gaps found.\n"
    )


@pytest.mark.parametrize(
    "human",
    [
        "Human Verification Required: None",
        "Human verification required: none.",
        "Human Verification Needed: None — the exporter is covered by golden-file tests.",
        "Human verification: N/A",
    ],
)
def test_the_slot_label_answered_none_empties_the_section(human: str) -> None:
    assert parse_verdict(_report(human)).decision is A


@pytest.mark.parametrize(
    "human",
    [
        "Human Verification Required: open the export in Excel and check the encoding.",
        "Human Verification Required: None, but confirm the download on Safari.",
        "Human Verification Required: none yet",
        "Human Verification Required: Yes",
        "Human Verification Required: None\n\n1. Open the export in Excel and check the dates.",
    ],
)
def test_a_slot_label_with_anything_else_still_lists_a_check(human: str) -> None:
    assert parse_verdict(_report(human)).decision is not A
