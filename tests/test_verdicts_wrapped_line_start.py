"""A verdict word at the start of a line is a line-start verdict (`LGTM`, `Ship it.`) only
when a sentence starts there: a hard-wrapped paragraph whose line above ends on a comma or on
a word a sentence does not end on ('… end to end and' / 'ship it, use it …') goes on with
that sentence."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

WRAPPED = {
    "and": "Build the capture slice first, prove the workflow end to end and\n"
    "ship it, use it on real listings, then add the dashboard later.\n",
    "comma": "If the migration is split out of this PR,\n"
    "LGTM for the rest; until then it cannot go in.\n",
    "to": "The plan is to wait for the load test and then to\n"
    "approve the rollout once the numbers are in.\n",
}


@pytest.mark.parametrize("text", WRAPPED.values(), ids=WRAPPED)
def test_a_wrapped_line_is_not_a_line_start_verdict(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A
    assert not any("line start" in reason for reason in verdict.reasons)


@pytest.mark.parametrize(
    "text",
    [
        "Looks good overall\nLGTM\n",  # the line above is a sentence of its own
        "## Review\n\nThe parser and its tests read well\nLGTM\n",
    ],
)
def test_a_line_start_verdict_after_a_finished_line_still_approves(text: str) -> None:
    assert parse_verdict(text).decision is A
