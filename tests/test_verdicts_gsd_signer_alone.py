"""A GSD signer line standing alone closes the template, with or without a break above it.

`No gaps.` / `_Verifier: Claude (gsd-verifier)_` / `Refunds are counted twice in the CSV
totals.` approved: the signer line closed the template only after a thematic break or
right below the signature's date field, so one that stood alone as the last section's
next paragraph was text of that section, and the defect after it was read as body prose.
A paragraph that is nothing but signature fields in the template's shape, holding the
signer, is the signature wherever it stands: what follows it is outside every section and
the report is `malformed` (issue 23), when no heading follows it (a section after it is
read as before). A signer named inside a sentence still closes nothing.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(after: str) -> str:
    return (
        "---\nphase: 05-refunds\nverified: 2026-11-20T16:45:00Z\nstatus: passed\n"
        "score: 1/1 must-haves verified\n---\n\n# Phase 5: Refunds Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Refunds post once | ✓ VERIFIED | `test_refund_once` passes |\n\n"
        "## Gaps Summary\n\nNo gaps found.\n\n"
        f"_Verifier: Claude (gsd-verifier)_\n\n{after}"
    )


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "after",
    ["The refund webhook fires twice on retries.\n", "- Scratch that, wrong branch.\n"],
)
def test_text_after_a_lone_signer_line_does_not_approve(after: str, strict: bool) -> None:
    verdict = parse_verdict(_report(after), strict=strict)
    assert verdict.decision is not A, verdict.reasons


def test_a_lone_signer_line_at_the_end_still_approves() -> None:
    verdict = parse_verdict(_report(""))
    assert verdict.decision is A, verdict.reasons


def test_a_section_after_a_lone_signer_line_is_read_as_before() -> None:
    """With a heading after it, the paragraph signs off the section above, not the report."""
    verdict = parse_verdict(_report("## Re-check after the fix\n\n- No open gaps remain.\n"))
    assert verdict.decision is A, verdict.reasons
