"""Issue 23, session 21: a findings section that says none at length, as its whole item.

'No phase-scoped correctness, security, or regression issues were identified in the
reviewed Phase 8 source and test changes.' negates the finding noun with more modifiers,
a passive participle and a longer place than the short form ('No blocking gaps found.').
Read so only as the whole item: a sentence after it, or a time word, subordinator or
exception in the place ('… in the parser until the fix lands'), is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(findings: str) -> str:
    return (
        "---\nstatus: clean\nfindings:\n  critical: 0\n  warning: 0\n  info: 0\n  total: 0\n"
        f"---\n\n# Phase 6 Code Review\n\n## Findings\n\n{findings}\n"
    )


@pytest.mark.parametrize(
    "findings",
    [
        "No correctness, security, or regression issues were identified in the reviewed "
        "scheduler source and test changes.",
        "No new concurrency, locking or ordering defects were found across the queue module.",
    ],
)
def test_a_none_told_at_length_is_an_empty_section(findings: str) -> None:
    assert parse_verdict(_review(findings)).decision is A


@pytest.mark.parametrize(
    "findings",
    [
        "No correctness issues were identified. The queue drops jobs on shutdown.",
        "No correctness issues were identified in the scheduler; the queue drops jobs.",
        "No correctness issues were identified in the scheduler until the lock lands.",
        "No correctness issues were identified in the scheduler yet.",
        "No correctness issues were identified in the scheduler only.",
    ],
)
def test_anything_after_or_inside_the_place_is_read(findings: str) -> None:
    assert parse_verdict(_review(findings)).decision is not A
