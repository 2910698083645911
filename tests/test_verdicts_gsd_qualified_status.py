"""A GSD check whose status cell holds its pass value back does not pass (issue 23).

`| 2 | Refunds are idempotent | ✓ VERIFIED (after the fix is merged) | … |` approved: a status
outside the template's vocabulary left its row unread, and the generic reader dropped it
beside the passing frontmatter. The status cell is the row's field: a pass value followed by
words that wait for an event (`_awaited`), state a problem or are no statement (a wait, an
order, another verdict) is a check that has not passed — blocking content. Any other
addition (`✓ VERIFIED (UPDATED)`, `WIRED (inferred)`) is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(status: str) -> str:
    return (
        "---\nphase: 04-payments\nverified: 2026-06-02T10:00:00Z\nstatus: passed\n"
        "score: 2/2 must-haves verified\n---\n\n# Phase 4: Payments Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Charges are recorded once | ✓ VERIFIED | `test_charge_once` passes |\n"
        f"| 2 | Refunds are idempotent | {status} | `test_refund_twice` passes |\n\n"
        "### Gaps Summary\n\nNo gaps found.\n\n---\n\n_Verified: 2026-06-02T10:00:00Z_\n"
        "_Verifier: Claude (gsd-verifier)_\n"
    )


HELD_BACK = [
    "✓ VERIFIED (once the ledger patch lands)",
    "✓ VERIFIED after the retry fix is merged",
    "VERIFIED — until the vendor ships the new API",
    "✓ SATISFIED (pending the DBA's review)",
    "✓ VERIFIED — the refund endpoint leaks the card token into the logs",
    "✓ PASSED, provided the flag stays off",
]
READ_AS_BEFORE = [
    "✓ VERIFIED",
    "✓ VERIFIED (after fix)",
    "✓ VERIFIED (UPDATED)",
    "WIRED (inferred)",
    "VERIFIED — exists in git log",
    "✓ VERIFIED after the rebase",
]


@pytest.mark.parametrize("status", HELD_BACK)
def test_a_pass_value_held_back_in_its_cell_does_not_approve(status: str) -> None:
    assert parse_verdict(_report(status)).decision is not A


@pytest.mark.parametrize("status", READ_AS_BEFORE)
def test_a_pass_value_with_a_note_still_approves(status: str) -> None:
    assert parse_verdict(_report(status)).decision is A
