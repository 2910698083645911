"""A table that logs the rounds of one review: the last round decides (issue 23).

`| Run | Date | Status |` with `1 | gaps_found` above `2 | passed` is a review log, not a
table of parts: its first column counts rounds up. Each row used to be read as one part's
verdict, so the first round's no kept a passing re-review from approving. Now the rows
above the last are superseded rounds, like a verdict under `## Round 1` above `## Round 2`
(README: the last review decides); the document's own verdict decides, and the last row's
no still counts. Only a first column named for rounds whose numbers count
up: an unordered log, or a table of parts (`| # | Check | Status |`), is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

DOC = """# Payment retries review

## Review history

| {head} | When | Result | Notes |
|---|---|---|---|
{rows}

## Verdict

**Verdict:** APPROVED
"""

PASSING_LAST = (
    (
        "Round",
        "| 1 | 2026-03-01 | changes requested | two races in the retry loop |\n"
        "| 2 | 2026-03-02 | approved | both races fixed and covered |",
    ),
    (
        "Iteration",
        "| 1 (first look) | Mon | needs work | missing idempotency key |\n"
        "| 2 (after fixes) | Tue | needs work | key not persisted |\n"
        "| 3 (final) | Wed | pass | key persisted and tested |",
    ),
    ("Attempt", "| R1 | 10:00 | fail | flaky test |\n| R2 | 11:30 | pass | all green |"),
)


@pytest.mark.parametrize(("head", "rows"), PASSING_LAST, ids=["round", "iteration", "attempt"])
def test_a_round_log_whose_last_round_passes_approves(head: str, rows: str) -> None:
    verdict = parse_verdict(DOC.format(head=head, rows=rows))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


FAILING = (
    # the last round asks for fixes
    ("Round", "| 1 | Mon | approved | fine |\n| 2 | Tue | changes requested | a leak |"),
    # newest first: the rows do not count up, so every row stands
    ("Round", "| 2 | Tue | changes requested | a leak |\n| 1 | Mon | approved | fine |"),
    # a row without a round number: the order is not shown
    ("Run", "| first | Mon | fail | a leak |\n| 2 | Tue | pass | fine |"),
    # a table of parts, not rounds
    ("Check", "| 1 | lint | fail | 3 errors |\n| 2 | tests | pass | green |"),
)


@pytest.mark.parametrize(
    ("head", "rows"), FAILING, ids=["last-fails", "newest-first", "unnumbered", "parts"]
)
def test_other_tables_keep_every_row(head: str, rows: str) -> None:
    verdict = parse_verdict(DOC.format(head=head, rows=rows))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
