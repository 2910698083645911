"""A round with more approving verdict statements than any review writes is not read as an
approval (issue 23, "Linear time"): each statement's block and clauses are read, so a text made
of nothing but approvals cost seconds per MB, and no person writes hundreds of verdicts."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_GATE = "gate: PASS\nstatus_reason: 'all checks green, nothing pending'\nnotes: fine\n"
_LINE = "Verdict: APPROVE\n"
_BULLET = "- **Ready to merge?** Yes\n"


@pytest.mark.parametrize("unit", [_GATE, _LINE, _BULLET], ids=["gate", "line", "bullet"])
def test_hundreds_of_approvals_in_one_round_are_malformed(unit: str) -> None:
    verdict = parse_verdict(unit * 300)
    assert verdict.decision is Decision.MALFORMED
    assert "no review writes so many" in verdict.reasons[0]
    assert not verdict.approved


@pytest.mark.parametrize("unit", [_LINE, _BULLET], ids=["line", "bullet"])
def test_a_review_with_a_few_approving_statements_is_read_as_before(unit: str) -> None:
    verdict = parse_verdict(unit * 20)
    assert all("no review writes so many" not in reason for reason in verdict.reasons)


def test_a_no_among_hundreds_of_approvals_still_names_the_decision() -> None:
    verdict = parse_verdict(_LINE * 300 + "Verdict: REJECT\n")
    assert verdict.decision is Decision.REJECT


def test_earlier_rounds_do_not_count_toward_the_limit() -> None:
    text = "## Review 1\n\n" + _LINE * 300 + "\n## Review 2\n\nVerdict: APPROVE\n"
    verdict = parse_verdict(text)
    assert all("no review writes so many" not in reason for reason in verdict.reasons)
