"""GSD's signature block may carry metadata after the signer, one italic `_Key: value_` line
each ('_Lint: ✓ PASSED_', '_Key links: 9/9 WIRED_'): the block's own fields, not text after
the signature (issue 23, class 2). A value that does not name a passing state — a failed
mark, a partial count, a sentence — is still text after the signature: never an approval."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

REPORT = """---
phase: 04-invoice-reminders
verified: 2026-07-14T08:05:00Z
status: passed
score: 4/4 must-haves verified
gaps: []
---

# Phase 4: Invoice Reminders Verification Report

**Phase Goal:** Overdue invoices trigger one reminder e-mail a day
**Status:** passed

## Goal Achievement

| # | Truth | Status | Evidence |
|---|-------|--------|----------|
| 1 | A reminder is queued for each overdue invoice | VERIFIED | `queue_reminders` test |
| 2 | No invoice gets two reminders in a day | VERIFIED | `test_daily_dedupe` passes |

## Gaps Summary

None. All four must-haves hold.

---

_Verified: 2026-07-14T08:05:00Z_
_Verifier: Claude (gsd-verifier)_
"""


@pytest.mark.parametrize(
    "metadata",
    [
        "_Mypy: ✓ PASSED_\n_Must-haves: 4/4 VERIFIED_\n_Key links: 9/9 WIRED_\n",
        "*Lint: ✔ clean*\n*Unit tests: 118/118 passed*\n",
        "_Build: success_\n",
    ],
)
def test_metadata_lines_after_the_signer_are_the_signature_blocks(metadata: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(REPORT + metadata, strict=strict)
        assert verdict.decision is A, (strict, verdict.reasons)


@pytest.mark.parametrize(
    "metadata",
    [
        "_Mypy: ✗ FAILED_\n",
        "_Must-haves: 3/4 VERIFIED_\n",
        "_Key links: 0/9 WIRED_\n",
        "_Build: success on x86 only_\n",
        "_Reminders: passed, ship once Ops confirms the SMTP quota_\n",
        "_Mypy: ✓ PASSED_\n_Notes: the cron entry was never installed_\n",
    ],
)
def test_a_metadata_value_that_does_not_pass_still_refuses(metadata: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(REPORT + metadata, strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)
