"""An evidence column named with a qualifier (issue 23): `| Test File | Result | Relevant
Evidence |` in a final-wave review is the same column as `| Evidence |`: its cells say what
was verified ('Achievement unlock after modal'), not a condition on the row's PASS. Only a
qualifier that keeps the column's meaning counts ('relevant', 'supporting', 'key'…); a
condition tied to the merge, or blocking content, in such a column still refuses, and a
column named otherwise still qualifies the pass."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(header: str, row: str) -> str:
    return (
        f"## Test and evidence summary\n\n| Test File | Result | {header} |\n|---|---|---|\n"
        "| `tests/ui/modal.spec.ts` | **PASS** | Modal confirmation and reload |\n"
        f"| `tests/ui/progress.spec.ts` | **PASS** | {row} |\n\n"
        "## Verdict\n\n**VERDICT: APPROVE**\n"
    )


@pytest.mark.parametrize(
    "header", ["Relevant Evidence", "Supporting evidence", "Key evidence", "Test evidence"]
)
def test_a_qualified_evidence_column_describes_what_was_verified(header: str) -> None:
    verdict = parse_verdict(_review(header, "Achievement unlock after modal, card footer"))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("header", "row"),
    [
        ("Relevant Evidence", "passes once the key is rotated before merge"),
        ("Supporting evidence", "must be fixed before merge: the key leaks"),
        ("Remaining evidence", "Achievement unlock after modal, card footer"),
        ("Pending evidence", "Achievement unlock after modal, card footer"),
        ("Notes", "only after the migration lands"),
    ],
)
def test_a_condition_or_another_column_still_qualifies_the_pass(header: str, row: str) -> None:
    verdict = parse_verdict(_review(header, row))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
