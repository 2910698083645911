"""Issue 23, session 21: 'PASS (n/a)' in a reviewer's checklist names no part of the change.

A checklist row whose check did not apply is marked 'PASS (n/a)': 'n/a' abbreviates 'not
applicable', it is not a path, so the pass does not cover 'only part' of the change. A
part named the same way ('PASS (frontend only)', 'PASS (packages/web)') still is one.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(cell: str) -> str:
    return (
        "---\nid: PAY-014\nverdict: APPROVE\ncycle: 2\n---\n\n# Review — PAY-014\n\n"
        "## Checklist\n\n| # | Check | Result |\n|---|---|---|\n"
        "| 1 | New tests fail before the fix and pass after it | PASS |\n"
        f"| 2 | Migrations: none in this change | {cell} |\n"
        "| 3 | Docs and changelog updated | PASS |\n"
    )


@pytest.mark.parametrize("cell", ["PASS (n/a)", "PASS (N/A)", "✅ PASS (n/a)"])
def test_a_pass_whose_check_did_not_apply_is_a_pass(cell: str) -> None:
    assert parse_verdict(_review(cell)).decision is A


@pytest.mark.parametrize("cell", ["PASS (frontend only)", "PASS (packages/web)"])
def test_a_pass_that_names_a_part_is_still_partial(cell: str) -> None:
    assert parse_verdict(_review(cell)).decision is not A
