"""A clause after the verdict whose noun phrase is the verdict itself — `the approval`,
`my sign-off`, `the yes I gave`, `this LGTM` as the head of its phrase — speaks of the
decision, not of the change: it is no reason for the approval (`_statement._OWN_VERDICT`).
A withdrawal or a narrowed scope worded without any withdrawal phrase is caught this way;
the same noun in a compound (`the approval flow`, `the approval endpoint`) is the code's
domain and still reads as a statement."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
CLOSING = (
    "## Summary\n\nThe change adds pagination to the audit log endpoint.\n\n"
    "## Verdict\n\n**Verdict:** APPROVED\n\n"
)
OPENING = "**Verdict:** LGTM\n\nThe audit log endpoint now pages with a cursor.\n\n"
ABOUT_ITSELF = [
    "Given the second force-push, the approval above is void.",
    "The sign-off from this morning is premature.",
    "I would not rely on my LGTM here.",
    "That yes was written before the schema commit arrived.",
    "The verdict is for the API layer; the UI is someone else's.",
    "My green light was about the first commit.",
]
ABOUT_THE_CODE = [
    "The approval flow now records who approved each request.",
    "The approval endpoint keeps its old response shape.",
    "Cursor tokens are opaque and signed.",
]


@pytest.mark.parametrize("frame", [CLOSING, OPENING])
@pytest.mark.parametrize("said", ABOUT_ITSELF)
def test_a_clause_about_the_verdict_itself_is_no_reason(frame: str, said: str) -> None:
    verdict = parse_verdict(frame + said + "\n")
    assert verdict.decision is not A, verdict.reasons
    # "speaks of the verdict itself" or "speaks about the verdict": two readers share the class
    assert "speaks " in verdict.reasons[0], verdict.reasons
    assert "verdict" in verdict.reasons[0], verdict.reasons


@pytest.mark.parametrize("frame", [CLOSING, OPENING])
@pytest.mark.parametrize("said", ABOUT_THE_CODE)
def test_the_same_noun_in_the_codes_domain_still_approves(frame: str, said: str) -> None:
    verdict = parse_verdict(frame + said + "\n")
    assert verdict.decision is A, verdict.reasons
