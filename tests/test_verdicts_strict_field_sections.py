"""Strict reading: a prose line in a section GSD's verifier fills with fields and tables is
outside every field (issue 23, the middle of a body).

A defect told as a plain fact in a new paragraph between the report's tables (`Deleting a
project leaves its API keys active.` under `### Key Link Verification`) approved even
strictly: the frontmatter status opens the document, so its body was read only for moods.
Under `parse_verdict(strict=True)` such a line must be a table row, a field or an appraisal
(`_field_sections`); the default reading is unchanged. Property: for every section the
template names and every place in it, an inserted plain statement makes the report
`malformed`, and an inserted appraisal does not.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, M = Decision.APPROVE, Decision.MALFORMED

_SECTIONS = (
    ("### Observable Truths", "| # | Truth | Status |", "| 1 | Exports run | ✓ VERIFIED |"),
    ("### Required Artifacts", "| Artifact | Status |", "| `src/export.py` | ✓ VERIFIED |"),
    ("### Key Link Verification", "| From | To | Status |", "| cli | export | WIRED |"),
    ("### Requirements Coverage", "| Requirement | Status |", "| EXP-01 | SATISFIED |"),
    ("### Behavioral Spot-Checks", "| Behavior | Status |", "| exports csv | PASS |"),
)


def _report(insert_at: int, place: str, sentence: str) -> str:
    """A passing report with `sentence` as a paragraph in section `insert_at`: before its
    table ('top'), or after it ('end')."""
    body = []
    for number, (heading, head, row) in enumerate(_SECTIONS):
        table = f"{head}\n|{'---|' * (head.count('|') - 1)}\n{row}\n"
        extra = f"{sentence}\n\n" if number == insert_at else ""
        body.append(
            f"{heading}\n\n{extra}{table}" if place == "top" else f"{heading}\n\n{table}\n{extra}"
        )
    return (
        "---\nphase: 05-export\nverified: 2026-07-01T10:00:00Z\nstatus: passed\n"
        "score: 1/1 must-haves verified\n---\n\n# Phase 5: Export Verification Report\n\n"
        "**Phase Goal:** Users can export their data.\n**Verified:** 2026-07-01T10:00:00Z\n"
        "**Status:** passed\n\n## Goal Achievement\n\n"
        + "\n".join(body)
        + "\n### Gaps Summary\n\nNo gaps found.\n\n---\n\n_Verified: 2026-07-01T10:00:00Z_\n"
        "_Verifier: Claude (gsd-verifier)_\n"
    )


STATEMENTS = (
    "Deleting a project leaves its API keys active.",
    "The exporter writes every customer's address into the shared bucket.",
    "Timeouts on the export worker are handled in a later phase.",
    "Only the CSV path was exercised; the JSON path was not run.",
)
APPRAISALS = ("All 5 requirements satisfied.", "All links verified; no issues found.")


@settings(max_examples=40, deadline=None)
@given(
    section=st.integers(0, len(_SECTIONS) - 1),
    place=st.sampled_from(("top", "end")),
    sentence=st.sampled_from(STATEMENTS),
)
def test_a_statement_in_a_field_section_is_malformed_when_strict(
    section: int, place: str, sentence: str
) -> None:
    assert parse_verdict(_report(section, place, sentence), strict=True).decision is M


@pytest.mark.parametrize("sentence", APPRAISALS)
@pytest.mark.parametrize("section", range(len(_SECTIONS)))
def test_an_appraisal_in_a_field_section_still_approves(sentence: str, section: int) -> None:
    assert parse_verdict(_report(section, "end", sentence), strict=True).decision is A


def test_the_report_itself_approves_strictly() -> None:
    assert parse_verdict(_report(-1, "end", ""), strict=True).decision is A
