"""A blocking section written as a table with nothing in it (issue 23: "every blocking section
empty"). A template that keeps its columns when a severity has no finding writes the header,
the delimiter row and one row of dashes and "None." (`| — | — | None. | |`); main read the
header row as an item the section lists. The header names columns and is structure only when
its cells are column names; every body row is an item unless each of its cells is blank or a
"none"."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
_HEAD = "| # | Status | Location | Finding | Notes |\n|---|--------|----------|---------|-------|\n"


def _superpowers(rows: str, head: str = _HEAD) -> str:
    return (
        "# Final review\n\n### Strengths\n\n- Clear boundaries and tests.\n\n"
        f"### Critical\n\n{head}{rows}\n### Important\n\nNone.\n\n### Minor\n\nNone.\n\n"
        "### Assessment\n\n**Ready to merge?** Yes\n"
    )


def _generic(rows: str, head: str = _HEAD) -> str:
    return f"## Verdict\n\n**Verdict:** APPROVE\n\n## Blocking issues\n\n{head}{rows}"


EMPTY_ROWS = [
    "| — | — | — | None. | |\n",
    "| - | - | - | none | - |\n",
    "| | | | N/A | |\n",
]
FILLED_ROWS = [
    "| 1 | Open | `auth.py:12` | The session token is logged. | |\n",
    "| — | — | — | None, but the session token is logged. | |\n",
    "| — | Open | — | — | |\n",
    "| — | — | — | None. | |\n| 2 | Open | `db.py:3` | Drops the users table. | |\n",
]


@pytest.mark.parametrize("build", [_superpowers, _generic], ids=["superpowers", "generic"])
@pytest.mark.parametrize("rows", EMPTY_ROWS)
def test_a_blocking_table_of_nothing_is_an_empty_section(build: object, rows: str) -> None:
    assert callable(build)
    verdict = parse_verdict(build(rows))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("build", [_superpowers, _generic], ids=["superpowers", "generic"])
@pytest.mark.parametrize("rows", FILLED_ROWS)
def test_a_blocking_table_with_an_item_blocks(build: object, rows: str) -> None:
    assert callable(build)
    assert parse_verdict(build(rows)).decision is not A


@pytest.mark.parametrize("build", [_superpowers, _generic], ids=["superpowers", "generic"])
def test_a_sentence_in_a_header_cell_is_read_as_the_sections(build: object) -> None:
    assert callable(build)
    head = "| Blocker: the session token is logged |\n|---|\n"
    assert parse_verdict(build("| — |\n", head=head)).decision is not A
