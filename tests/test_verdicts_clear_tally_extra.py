"""Issue 23, session 22: a `with …` tally of findings none of which is open.

`APPROVED with 0 blocking issues` was `fixes`: the extra ended at `0 blocking` and `issues`
was read as a second verdict in the answer's clause. `PASS WITH ONE ACCEPTED MINOR
DEVIATION` was a soft approval. A `with` clause that is wholly a tally — a zero count, or
findings counted with a closing state (accepted, resolved, addressed, fixed, closed, waived)
— names no open finding, so it is an explicitly non-blocking extra. Anything after the noun,
a non-zero count without a closing state, or another noun leaves it as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(answer: str) -> str:
    return (
        "# Review: invoice export\n\nThe exporter streams rows per batch; the suite covers the "
        f"empty batch.\n\n## Verdict\n\n**Verdict:** {answer}\n"
    )


CLEAR = (
    "APPROVED with 0 blocking issues",
    "Approve with zero critical findings.",
    "PASS with no critical or important issues",
    "APPROVED with 0 critical and 0 important findings",
    "PASS WITH TWO WAIVED LOW FINDINGS.",
    "Approved with both comments addressed",
    "LGTM with 3 findings resolved",
)


@pytest.mark.parametrize("answer", CLEAR)
def test_a_tally_with_nothing_open_keeps_the_approval(answer: str) -> None:
    verdict = parse_verdict(_review(answer))
    assert verdict.decision is A, verdict.reasons


SOFT = (
    "APPROVED with 2 blocking issues",
    "PASS with one minor finding",
    "APPROVED with 1 issue resolved and 1 open",
    "APPROVED with 2 issues fixed later",
    "APPROVED with no tests",
    "APPROVED with 0 blocking issues once CI is green",
    "APPROVED with all findings resolved except the cache race",
    "PASS with no blockers and 2 critical issues",
)


@pytest.mark.parametrize("answer", SOFT)
def test_any_other_with_clause_is_read_as_before(answer: str) -> None:
    assert parse_verdict(_review(answer)).decision is not A
