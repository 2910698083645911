"""Issue 23, session 27: GSD's anti-pattern scan is read by its Severity column.

The verifier's `### Anti-Patterns Found` table lists what its scan matched in the code (a
`// TODO`, a stub, a placeholder) and grades each row 🛑 Blocker, ⚠️ Warning or ℹ️ Info. A
passing report that weighed a row as Info or Warning approves: the TODO quoted in the Pattern
cell is the scan's inventory, not the verifier's judgement. A Blocker row, or a problem the
verifier states in its own words beside the grade, still refuses.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

_FRONT = "---\nphase: 04-export\nstatus: passed\nscore: 3/3 must-haves verified\ngaps: []\n---\n\n"


def _report(rows: str, front: str = _FRONT, heading: str = "### Anti-Patterns Found") -> str:
    return (
        f"{front}# Phase 4: Export Verification Report\n\n"
        "**Status:** passed\n\n"
        "## Observable Truths\n\n| # | Truth | Status |\n|---|---|---|\n"
        "| 1 | A user can export the ledger as CSV | ✓ VERIFIED |\n\n"
        f"{heading}\n\n| File | Line | Pattern | Severity | Impact |\n"
        "|------|------|---------|----------|--------|\n"
        f"{rows}\n\n## Gaps Summary\n\nNo gaps.\n\n---\n\n_Verifier: Claude (gsd-verifier)_\n"
    )


WEIGHED_ROWS = (
    "| `src/export.ts` | 12 | `// TODO: tooltip copy` | ℹ️ Info | cosmetic |",
    "| `src/export.ts` | 40 | `return []` on an empty ledger | ⚠️ Warning | intended empty state |",
    "| `src/csv.ts` | 7 | `// FIXME: stub header names` | Info | |\n"
    '| `src/csv.ts` | 19 | `placeholder="Search"` | ℹ️ Info | an input\'s hint text |',
)


@pytest.mark.parametrize("rows", WEIGHED_ROWS, ids=["todo-info", "warning", "two-rows"])
def test_rows_the_verifier_graded_info_or_warning_are_its_inventory(rows: str) -> None:
    verdict = parse_verdict(_report(rows))
    assert verdict.decision is A, verdict.reasons


def test_the_section_heading_in_other_shapes() -> None:
    rows = WEIGHED_ROWS[0]
    for heading in ("## Anti-patterns", "### 5. Anti-Patterns Scan"):
        verdict = parse_verdict(_report(rows, heading=heading))
        assert verdict.decision is A, (heading, verdict.reasons)


REFUSED_ROWS = (
    # the grade that blocks the goal, with or without its mark
    "| `src/export.ts` | 12 | `// TODO: write the rows` | 🛑 Blocker | export is empty |",
    "| `src/export.ts` | 12 | `return null` | Blocker | |",
    # a weighed grade beside a problem told in the verifier's own words
    "| `src/export.ts` | 12 | `// TODO` | ℹ️ Info | do not merge until the rows are written |",
    "| `src/export.ts` | 12 | `// TODO` | ⚠️ Warning | blocks the release |",
    # a grade outside the template's vocabulary, beside a blocking word
    "| `src/export.ts` | 12 | TODO: write the rows | Critical | |",
)


@pytest.mark.parametrize(
    "rows", REFUSED_ROWS, ids=["blocker", "blocker-bare", "info-no", "warning-blocks", "other"]
)
def test_a_blocker_or_a_problem_beside_the_grade_still_refuses(rows: str) -> None:
    assert parse_verdict(_report(rows)).decision is not A


def test_a_blocker_row_refuses_after_weighed_rows() -> None:
    rows = f"{WEIGHED_ROWS[0]}\n| `src/a.ts` | 3 | `throw 'todo'` | 🛑 Blocker | crashes |"
    assert parse_verdict(_report(rows)).decision is not A


def test_weighed_rows_do_not_open_what_the_frontmatter_keeps_closed() -> None:
    front = _FRONT.replace("gaps: []", 'gaps:\n  - truth: "A user can export the ledger"')
    assert parse_verdict(_report(WEIGHED_ROWS[0], front=front)).decision is not A
    failed = _FRONT.replace("status: passed", "status: gaps_found")
    assert parse_verdict(_report(WEIGHED_ROWS[0], front=failed)).decision is not A


def test_a_severity_table_outside_the_section_is_not_read_as_the_scan() -> None:
    text = _report(WEIGHED_ROWS[0], heading="### Findings")
    assert parse_verdict(text).decision is not A


_PATTERN = st.sampled_from(
    ["`// TODO`", "`stub()`", "missing handler", "`return null`", "placeholder", "TODO left"]
)
_BLOCKER = st.sampled_from(["🛑 Blocker", "Blocker", "**Blocker**", "🛑 BLOCKER"])


@settings(max_examples=30, deadline=None)
@given(pattern=_PATTERN, grade=_BLOCKER)
def test_any_blocker_row_refuses(pattern: str, grade: str) -> None:
    rows = f"{WEIGHED_ROWS[0]}\n| `src/a.ts` | 3 | {pattern} | {grade} | |"
    assert parse_verdict(_report(rows)).decision is not A
