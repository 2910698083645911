"""A `## Status` (or `## Result`, `## Outcome`) section whose paragraph opens with the verdict,
and an answer that says when its state was reached (issue 23, class 3): `APPROVED after the
third review round.` reports history. A past-participle answer ('approved', 'passed') with an
`after` clause that tells what was done — a past or perfect verb, or a noun phrase that names
the review itself (review, pass, round, re-review …) — is no condition. A noun phrase that
names other work ('after the cache rewrite') may be work still to come, and an `after` clause
that waits for an event (a present or future verb, a subject and its bare verb) makes the
answer conditional, as does any other condition."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

DOC = """# Review: webhook signature check

## Summary

The handler now verifies the HMAC header before parsing the payload.

## {heading}

{answer}
"""


@pytest.mark.parametrize("heading", ["Status", "Result", "Outcome"])
@pytest.mark.parametrize(
    "answer",
    [
        "APPROVED after a second full pass over the handler. No Critical or Important issues "
        "are open.",
        "Approved after the replay tests were added.",
        "PASSED after the signing key rotation had been rehearsed.",
        "Accepted after re-review.",
    ],
)
def test_a_participle_answer_with_an_after_clause_of_history_approves(
    heading: str, answer: str
) -> None:
    verdict = parse_verdict(DOC.format(heading=heading, answer=answer))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("heading", ["Status", "Outcome"])
@pytest.mark.parametrize(
    "answer",
    [
        "APPROVED after the key rotation lands.",
        "APPROVED after the replay tests pass.",
        "Approved after we rotate the signing key.",
        "APPROVED after the fix is deployed to staging.",
        "APPROVED after the key will have rotated.",
        "APPROVE after another pass.",
        "APPROVED after the cache rewrite.",
        "Approved after a retry budget for the webhook sender.",
        "APPROVED after a second pass, once the nightly job is green.",
        "APPROVED after re-review, but the timestamp window must shrink first.",
    ],
)
def test_an_after_clause_that_waits_still_conditions_the_answer(heading: str, answer: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(DOC.format(heading=heading, answer=answer), strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)
