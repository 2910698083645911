"""Issue 23, session 21: a GSD re-verification's history beside its passes.

The verifier's re-verification mode repeats the frontmatter's `passed` in the body with the
step it ran ('**Status:** passed (after gap closure)') and marks the rows it re-checked
('✓ VERIFIED (after fix)'). Where the frontmatter records the closed gaps (`gaps_closed`,
`gaps_resolved`), the body status is the template's own field and the step's name is not a
condition; a row's '(after fix)' says when its check passed. Read only in these shapes:
anything else in the parenthesis, or no record of closed gaps, is read as written.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

_CLOSED = (
    "re_verification:\n  previous_status: gaps_found\n  previous_score: 2/3\n"
    '  gaps_closed:\n    - "Import retries on a timeout"\n  gaps_remaining: []\n'
)


def _report(status: str, *, front: str = _CLOSED, row: str = "✓ VERIFIED") -> str:
    return (
        f"---\nphase: 04-import\nstatus: passed\nscore: 3/3 must-haves verified\n{front}---\n\n"
        f"# Phase 4: Import Verification Report\n\n**Status:** {status}\n\n"
        "## Observable Truths\n\n| # | Truth | Status | Evidence |\n|---|---|---|---|\n"
        f"| 1 | Import retries on a timeout | {row} | `retry()` wraps the fetch |\n\n"
        "## Gaps Summary\n\nNo gaps remaining.\n"
    )


@pytest.mark.parametrize(
    ("status", "row"),
    [
        ("passed (after gap closure)", "✓ VERIFIED"),
        ("PASSED (after re-verification)", "✓ VERIFIED (after fix)"),
        ("passed", "✓ VERIFIED (after gap closure)"),
    ],
)
def test_a_re_verification_the_frontmatter_records_is_history(status: str, row: str) -> None:
    assert parse_verdict(_report(status, row=row)).decision is A


def test_gaps_resolved_at_the_top_level_is_a_record_too() -> None:
    front = 'gaps_resolved:\n  - truth: "Import retries on a timeout"\n    status: resolved\n'
    assert parse_verdict(_report("passed (after gap closure)", front=front)).decision is A


@pytest.mark.parametrize(
    ("status", "front", "row"),
    [
        ("passed (after gap closure)", "", "✓ VERIFIED"),
        ("passed (after the retry fix lands)", _CLOSED, "✓ VERIFIED"),
        ("passed (after gap closure, pending UAT)", _CLOSED, "✓ VERIFIED"),
        ("passed (after gap closure)", _CLOSED.replace("[]", '\n    - "Retry cap"'), "✓ VERIFIED"),
        ("passed", _CLOSED, "✗ FAILED (after fix)"),
    ],
)
def test_other_qualifiers_or_no_record_are_read_as_written(
    status: str, front: str, row: str
) -> None:
    assert parse_verdict(_report(status, front=front, row=row)).decision is not A
