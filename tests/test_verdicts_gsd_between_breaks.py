"""Text between two thematic breaks right above GSD's signature is outside the template.

`## Gaps Summary` / `No gaps.` / `---` / `The nightly import still drops rows.` / `---` /
signature approved: the text after the section's last sentence stood between the
signature's break and another one, under no heading, and no reader held it to anything. The
verifier's template has one break, right before its signature, and every section opens with
a heading, so text set off by a second break there is outside every section the template
has: the report is `malformed` (issue 23), whatever the text says. A break that a heading
follows, as between sections, is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(tail: str) -> str:
    return (
        "---\nphase: 02-import\nverified: 2026-10-03T12:00:00Z\nstatus: passed\n"
        "score: 1/1 must-haves verified\n---\n\n# Phase 2: Import Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Rows import in order | ✓ VERIFIED | `test_import_order` passes |\n\n"
        f"## Gaps Summary\n\nNo gaps found.\n\n{tail}---\n\n"
        "_Verified: 2026-10-03T12:00:00Z_\n_Verifier: Claude (gsd-verifier)_\n"
    )


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "between",
    ["The nightly import still drops rows with a BOM.", "Only the CSV path was exercised."],
)
def test_text_between_two_breaks_before_the_signature_does_not_approve(
    between: str, strict: bool
) -> None:
    verdict = parse_verdict(_report(f"---\n\n{between}\n\n"), strict=strict)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "tail", ["", "---\n\n## Notes on the run\n\n| Run | Result |\n|---|---|\n| 1 | ✓ |\n\n"]
)
def test_one_break_or_a_headed_section_still_approves(tail: str) -> None:
    verdict = parse_verdict(_report(tail))
    assert verdict.decision is A, verdict.reasons
