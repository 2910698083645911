"""Issue 23, session 22: a GSD re-verification's table of the gaps it closed.

A re-verifying verifier lists the gaps it closed in the frontmatter (`gaps_closed:` entries
that open with the gap's id, `"BL-02 — the writer now flushes …"`) and often again in a body
table whose rows open with the same ids and keep each gap's original severity (`| BL-02 |
blocker | plan 05-03 | flushes before close |`). Those rows record closed gaps: a `blocker`
cell there is the closed gap's grade, not an open finding. Only a row whose first cell is an
id the frontmatter records as closed, with no open gap left and no cell stating a problem now;
any other row is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

_FRONT = (
    "---\nphase: 05-export\nstatus: passed\nscore: 4/4 must-haves verified\n"
    "re_verification:\n  previous_status: gaps_found\n  gaps_closed:\n"
    '    - "BL-02 — the CSV writer now flushes before the file is closed"\n'
    '    - "WN-07-EMPTY-BATCH — an empty batch writes a header-only file"\n'
    "  gaps_remaining: []\n  regressions: []\ngaps: []\n---\n\n"
)


def _report(rows: str, front: str = _FRONT) -> str:
    return (
        f"{front}# Phase 5: Export Verification Report (Re-verification)\n\n"
        "**Status:** passed\n\n"
        "## Observable Truths\n\n| # | Truth | Status | Evidence |\n|---|---|---|---|\n"
        "| 1 | Exports stream to disk | ✓ VERIFIED | `export.ts:40` writes per batch |\n\n"
        "## Closed Gaps\n\n| Gap | Severity | Plan | Check |\n|---|---|---|---|\n"
        f"{rows}\n\n## Gaps Summary\n\nNo gaps remain.\n"
    )


CLOSED_ROWS = (
    "| BL-02 | blocker | 05-03 | `writer.ts:88` flushes before `close()`; round-trip test added |",
    "| **WN-07-EMPTY-BATCH** | critical | 05-04 | header-only file written for `[]` |\n"
    "| BL-02 | blocker | 05-03 | the flush is covered by `writer.test.ts` |",
)


@pytest.mark.parametrize("rows", CLOSED_ROWS, ids=["one", "two"])
def test_rows_of_gaps_the_frontmatter_closed_are_the_records_own(rows: str) -> None:
    verdict = parse_verdict(_report(rows))
    assert verdict.decision is A, verdict.reasons


OPEN_ROWS = (
    # an id the frontmatter does not record as closed
    "| BL-03 | blocker | 05-03 | the temp file is never removed |",
    # a closed id whose row states a problem now
    "| BL-02 | blocker | 05-03 | the writer drops the last row; must be fixed before merge |",
    # a closed id whose row gives it another state, or negates or continues what it reports
    "| BL-02 | blocker | reopened | |",
    "| BL-02 | blocker | 05-03 | flush not covered yet |",
    "| BL-02 | blocker | 05-03 | the writer still truncates the last row |",
)


@pytest.mark.parametrize(
    "rows", OPEN_ROWS, ids=["other-id", "problem-now", "state", "negated", "continued"]
)
def test_any_other_blocker_row_still_blocks(rows: str) -> None:
    assert parse_verdict(_report(rows)).decision is not A


def test_a_gap_left_open_keeps_every_row_blocking() -> None:
    front = _FRONT.replace("gaps_remaining: []", 'gaps_remaining:\n    - "BL-09 — retries"')
    assert parse_verdict(_report(CLOSED_ROWS[0], front=front)).decision is not A
