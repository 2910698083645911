"""'as required' after a copula: a state that conforms, not an obligation.

Before, a JSON review's reason `"The function is pure as required."` was read as an
obligation ('required') and the approval became `fixes` (ho26 b-068). The phrase, after
`is` / `are` / `was` / `were` / `been` in its clause, says what is required holds. Without
the copula it still asks for work (`Add tests as required.`), as does `is to be … as
required`, and every other 'required'. Documents here are synthetic, written for these tests.
"""

from __future__ import annotations

import json

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(reason: str) -> str:
    return json.dumps({"status": "approved", "reasoning": reason})


CONFORMING = [
    "The parser is total as required.",
    "Both limits are enforced as required, and errors are raised as specified.",
    "Retries were capped as required by the design doc.",
    "The cache is flushed as needed.",
]
STILL_OBLIGATIONS = [
    "Add tests as required.",
    "The limits are enforced, but docs are required before merge.",
    "The migration is to be rerun as required.",
    "Retries as required.",
    "Errors are raised as required; a changelog entry is required.",
]


@pytest.mark.parametrize("reason", CONFORMING)
def test_a_conforming_state_keeps_the_approval(reason: str) -> None:
    verdict = parse_verdict(_review(reason))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("reason", STILL_OBLIGATIONS)
def test_an_obligation_beside_it_still_refuses(reason: str) -> None:
    assert parse_verdict(_review(reason)).decision is not A


@pytest.mark.parametrize("reason", STILL_OBLIGATIONS)
def test_an_obligation_in_markdown_still_refuses(reason: str) -> None:
    text = f"**Verdict:** APPROVED — {reason[0].lower()}{reason[1:]}\n"
    assert parse_verdict(text).decision is not A
