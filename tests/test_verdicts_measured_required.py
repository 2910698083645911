"""Issue 23, session 20: 'required' after a measure is the value a spec asks for.

A BMAD gate's `status_reason` compares what was measured with what the story required
(`p95 18ms vs <40ms required`, `coverage 91% (85% required)`): a reached target, not an
obligation. A noun between the number and 'required' (`1 fix required`) keeps it one.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _gate(reason: str) -> str:
    return (
        "schema: 1\nstory: '2.3'\ngate: PASS\n"
        f"status_reason: '{reason}'\n"
        "reviewer: 'Quinn (Test Architect)'\nupdated: '2026-03-02T10:00:00Z'\ntop_issues: []\n"
    )


@pytest.mark.parametrize(
    "reason",
    [
        "All criteria met. Search latency is 18ms p95 against <40ms required.",
        "All criteria met with 91% line coverage (85% required).",
        "Import handles 1200 rows/s, above the 1000 rps required.",
    ],
)
def test_a_measured_requirement_met_approves(reason: str) -> None:
    assert parse_verdict(_gate(reason)).decision is A


@pytest.mark.parametrize(
    "reason",
    [
        "All criteria met; 1 fix required in the importer.",
        "All criteria met, but 2 approvals required before merge.",
        "All criteria met; tests required for the export path.",
    ],
)
def test_an_obligation_with_a_count_still_blocks(reason: str) -> None:
    assert parse_verdict(_gate(reason)).decision is not A
