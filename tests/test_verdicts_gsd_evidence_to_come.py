"""A GSD check whose evidence cell tells a check still to come does not pass (issue 23).

`| 2 | Totals match the ledger | VERIFIED | Will be checked after the finance sign-off |`
approved: the evidence cell neither tied a condition to the merge nor stated a defect, so
the row passed. The cells after a row's status are its evidence, what was observed; one
that opens with a modal and no subject (`Will be …`, `To be confirmed …`, `Should pass
once …`: closed-class grammar) tells a check that has not happened — the row fails. The
claim before the status may open with one (`Can be triggered by the user`): it says what
had to be true, and is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(claim: str, evidence: str) -> str:
    return (
        "---\nphase: 03-billing\nverified: 2026-09-14T08:00:00Z\nstatus: passed\n"
        "score: 2/2 must-haves verified\n---\n\n# Phase 3: Billing Verification Report\n\n"
        "**Status:** passed\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Invoices render as PDF | ✓ VERIFIED | `test_invoice_pdf` passes |\n"
        f"| 2 | {claim} | ✓ VERIFIED | {evidence} |\n\n"
        "### Gaps Summary\n\nNo gaps found.\n\n---\n\n_Verified: 2026-09-14T08:00:00Z_\n"
        "_Verifier: Claude (gsd-verifier)_\n"
    )


@pytest.mark.parametrize(
    "evidence",
    [
        "Will be confirmed once the tax tables are loaded",
        "To be re-run on the staging cluster",
        "Should pass after the currency patch",
        "Needs to be exercised against real card data",
    ],
)
def test_evidence_that_tells_a_check_to_come_does_not_pass(evidence: str) -> None:
    assert parse_verdict(_report("Credit notes net out", evidence)).decision is not A


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Can be exported by an admin", "`test_admin_export` passes"),
        ("Credit notes net out", "`test_net` passes; the helper will retry on 429"),
    ],
)
def test_a_modal_in_the_claim_or_inside_the_evidence_still_approves(
    claim: str, evidence: str
) -> None:
    assert parse_verdict(_report(claim, evidence)).decision is A
