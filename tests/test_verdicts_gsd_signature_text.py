"""Words beside a field of GSD's signature block are text in the signature (issue 23).

`_Verified: 2026-05-02T09:14:00Z_ · the export leaks customer emails into the log` above
`_Verifier: Claude (gsd-verifier)_` approved: a date field with words after it was no
signature field, so the signature was not found at all and nothing after the break was
read as outside the template. A line that opens with a signature field now belongs to the
block, and its other words are text in the signature: `malformed`, as on the signer's own
line. A timestamp with a zone offset (`2026-02-01T19:10:55+01:00`, a genuine report's) is a
date field in the template's shape.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(date_line: str) -> str:
    return (
        "---\nphase: 06-ledger\nverified: 2026-12-01T10:00:00Z\nstatus: passed\n"
        "score: 1/1 must-haves verified\n---\n\n# Phase 6: Ledger Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Entries balance | ✓ VERIFIED | `test_balance` passes |\n\n"
        "## Gaps Summary\n\nNo gaps found.\n\n---\n\n"
        f"{date_line}\n_Verifier: Claude (gsd-verifier)_\n"
    )


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "date_line",
    [
        "_Verified: 2026-12-01T10:00:00Z_ — the ledger double-books reversals",
        "_Verified: 2026-12-01T10:00:00Z_ (reversals not covered)",
    ],
)
def test_words_beside_the_date_field_do_not_approve(date_line: str, strict: bool) -> None:
    verdict = parse_verdict(_report(date_line), strict=strict)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "date_line", ["_Verified: 2026-12-01T10:00:00Z_", "_Verified: 2026-12-01T11:00:00+01:00_"]
)
def test_a_date_field_in_the_templates_shape_still_approves(date_line: str) -> None:
    verdict = parse_verdict(_report(date_line))
    assert verdict.decision is A, verdict.reasons
