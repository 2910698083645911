"""GSD's verifier writes its mode in a body field: `**Re-verification:** Yes — after gap
closure` or `No — initial verification`, often with a note of what the closure ran (`(Plan
06-03 executed)`, `(commit: fix(02): wire the factory)`). Read as an answer, 'Yes' and then
'after gap closure …' was a condition, and genuine passes were `malformed` (issue 23). The
field is the template's own: accounted for in the template's two values, 'Yes' only where
the frontmatter records the re-verification, and a note only when it states no problem and
gives the closure no other state."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_RECORDED = (
    "re_verification:\n  previous_status: gaps_found\n  previous_score: 11/12\n"
    '  gaps_closed:\n    - "Specs are validated against the schema"\n'
    "  gaps_remaining: []\n  regressions: []\n"
)


def _report(field: str, *, front: str = _RECORDED) -> str:
    return (
        "---\nphase: 06-view-assembly\nverified: 2026-03-03T14:00:00Z\nstatus: passed\n"
        f"score: 12/12 must-haves verified\n{front}---\n\n"
        "# Phase 6: View Assembly Verification Report\n\n"
        "**Phase Goal:** Users can assemble views.\n"
        "**Verified:** 2026-03-03T14:00:00Z\n"
        "**Status:** passed\n"
        f"{field}\n\n"
        "## Goal Achievement\n\n| # | Truth | Status |\n|---|---|---|\n"
        "| 1 | Views assemble | ✓ VERIFIED |\n\n"
        "### Gaps Summary\n\nNo gaps.\n\n---\n\n"
        "_Verified: 2026-03-03T14:00:00Z_\n_Verifier: Claude (gsd-verifier)_\n"
    )


@pytest.mark.parametrize(
    "field",
    [
        "**Re-verification:** Yes — after gap closure (Plan 06-03 executed)",
        "**Re-verification:** Yes — after gap closure (commit: fix(02): wire the factory)",
        "**Re-verification:** Yes -- after gap closure",
        "**Re-verification:** No — initial verification",
    ],
)
def test_the_template_re_verification_field_is_accounted_for(field: str) -> None:
    verdict = parse_verdict(_report(field))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "field",
    [
        "**Re-verification:** Yes — after gap closure (one gap still open)",
        "**Re-verification:** Yes — after gap closure (pending the DBA's review)",
        "**Re-verification:** Yes — after gap closure, once CI is green",
        "**Re-verification:** Yes — after the DBA signs off",
    ],
)
def test_a_field_that_says_more_than_the_mode_is_still_read(field: str) -> None:
    verdict = parse_verdict(_report(field))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_a_re_verification_the_frontmatter_does_not_record_is_still_read() -> None:
    field = "**Re-verification:** Yes — after gap closure (Plan 06-03 executed)"
    verdict = parse_verdict(_report(field, front=""))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
