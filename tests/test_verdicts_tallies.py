"""A tally of empty severities on one line ('**Critical:** None. **Important:** None.') is not
a blocking item: every sentence of it says none. A sentence that says anything else keeps
the line an item, and the approval beside it does not stand."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

EMPTY_TALLIES = [
    "**Critical:** None. **Important:** None.",
    "**Critical:** None. **Important:** None. **Minor:** None.",
    "Critical: none; Important: none",
    "**Blockers:** None. **Warnings:** None.",
]
OPEN_TALLIES = [
    "**Critical:** None. Also an SQL injection in db.py.",
    "**Critical:** None. **Critical:** SQL injection in db.py.",
    "**Blocking:** None. **Important:** none. The migration drops the users table.",
]


@pytest.mark.parametrize("tally", EMPTY_TALLIES)
def test_a_tally_of_empty_severities_lets_the_approval_stand(tally: str) -> None:
    verdict = parse_verdict(f"{tally}\n\n**Ready to merge?** Yes\n")
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("tally", OPEN_TALLIES)
def test_a_tally_with_anything_else_in_it_blocks(tally: str) -> None:
    verdict = parse_verdict(f"{tally}\n\n**Ready to merge?** Yes\n")
    assert verdict.decision is not A, verdict.reasons
