"""A GSD check whose status note in parentheses narrows its pass value does not pass (issue 23).

`| 1 | Export writes a CSV | ✓ VERIFIED (mostly) | … |` approved: the note was no event, no
problem and no order, so the status stayed outside the vocabulary and the generic reader
dropped the row beside the passing frontmatter. A note right after the value either says how
the check was made (`static`, `via test_x`, `141 lines`, `after fix`) or narrows what passed;
the narrowing is grammar (closed classes): a degree adverb short of whole, `only`, a
negator, a pointer to text elsewhere, or a count of runs short of its total. Such a check
has not passed — blocking content. Method and evidence notes are read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(status: str) -> str:
    return (
        "---\nphase: 07-search\nverified: 2026-08-11T09:30:00Z\nstatus: passed\n"
        "score: 2/2 must-haves verified\n---\n\n# Phase 7: Search Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Queries are tokenised | ✓ VERIFIED | `test_tokenise` passes |\n"
        f"| 2 | Results are ranked by score | {status} | `test_rank_order` passes |\n\n"
        "### Gaps Summary\n\nNo gaps found.\n\n---\n\n_Verified: 2026-08-11T09:30:00Z_\n"
        "_Verifier: Claude (gsd-verifier)_\n"
    )


NARROWED = [
    "✓ VERIFIED (largely)",
    "✓ VERIFIED (for English queries only)",
    "✓ SATISFIED (3 of 4 runs)",
    "✓ PASSED (7/9)",
    "✓ VERIFIED (not reproduced locally)",
    "✓ VERIFIED (refer to the note in Gaps)",
    "✓ WIRED (partly)",
    "✓ VERIFIED (in most locales)",
]
METHOD_NOTES = [
    "✓ VERIFIED (static)",
    "✓ VERIFIED (via test_rank_order)",
    "✓ VERIFIED (212 lines, substantive, wired)",
    "✓ PASSED (12/12)",
    "✓ SATISFIED (per D-04)",
    "VERIFIED (was PARTIAL)",
]


@pytest.mark.parametrize("status", NARROWED)
def test_a_pass_value_narrowed_in_its_note_does_not_approve(status: str) -> None:
    assert parse_verdict(_report(status)).decision is not A


@pytest.mark.parametrize("status", METHOD_NOTES)
def test_a_pass_value_with_a_method_note_still_approves(status: str) -> None:
    assert parse_verdict(_report(status)).decision is A
