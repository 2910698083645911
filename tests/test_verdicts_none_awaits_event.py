"""A "none", a check or a judgement that holds only after an event is a condition (issue 23).

`No issues remaining in scope after the migration lands.` approved: a none may carry a short
place ('in the changed files'), and the place swallowed the subordinate clause after it.
The same held for a judgement after the verdict (`Tests pass once the flag is off.`): only a
clause that *opens* with a subordinator was read as a condition. Now a subordinator (closed
class) before a subject and a present or future verb — an event still to happen — makes what
it hangs from a condition (`_awaited`), wherever it stands; the same subordinator before a
past verb or a noun phrase tells what was done, and a plain description of behaviour with
one ('assigns only after validation succeeds') is read as before.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

SHAPES = {
    "blocking-before": "## Critical issues\n\n{body}\n\n## Verdict\n\n**Verdict:** APPROVED\n",
    "issues-after": "**Verdict:** APPROVED\n\n## Issues\n\n{body}\n",
    "superpowers": (
        "### Strengths\n\n- Small diff.\n\n### Issues\n\n#### Critical (Must Fix)\n\n{body}\n\n"
        "### Assessment\n\n**Ready to merge?** Yes\n"
    ),
    "notes-after": "**Verdict:** APPROVED\n\n## Notes\n\n{body}\n",
    "own-section": "## Verdict\n\n**Verdict:** APPROVED\n\n{body}\n",
}
NONES_AWAITING = (
    "No blockers left once the cache rewrite is in.",
    "Nothing critical after the schema change ships.",
    "No open issues in the parser until the vendor sends the new fixtures.",
    "None remaining as soon as the retry patch is merged.",
    "No problems in this diff provided the flag stays off.",
)
NONES_DONE = ("No blockers left.", "No issues found.")
JUDGEMENTS_AWAITING = (
    "Everything looks solid once the flaky test is quarantined.",
    "The suite passes after the fixture data gets regenerated.",
    "Clean, until somebody enables the legacy path again.",
)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("body", NONES_AWAITING)
def test_a_none_that_waits_for_an_event_does_not_approve(shape: str, body: str) -> None:
    assert parse_verdict(SHAPES[shape].format(body=body)).decision is not A


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("body", NONES_DONE)
def test_a_none_after_what_was_done_still_approves(shape: str, body: str) -> None:
    assert parse_verdict(SHAPES[shape].format(body=body)).decision is A


@pytest.mark.parametrize("shape", ["notes-after", "own-section"])
@pytest.mark.parametrize("body", JUDGEMENTS_AWAITING)
def test_a_judgement_that_waits_for_an_event_does_not_approve(shape: str, body: str) -> None:
    assert parse_verdict(SHAPES[shape].format(body=body)).decision is not A


@pytest.mark.parametrize(
    "body",
    [
        "The decoder writes its output only after all validation succeeds.",
        "The cache entry is dropped once the request completes.",
        "No blockers left after the fixes were applied.",
        "Everything looks solid after the rebase.",
    ],
)
def test_a_description_or_a_past_event_still_approves(body: str) -> None:
    assert parse_verdict(SHAPES["notes-after"].format(body=body)).decision is A


_SUBORDINATORS = ("once", "after", "until", "as soon as", "provided")
_EVENTS = ("the patch lands", "the fix is merged", "QA signs off", "it ships", "we deploy")


@settings(max_examples=60, deadline=None)
@given(
    subordinator=st.sampled_from(_SUBORDINATORS),
    event=st.sampled_from(_EVENTS),
    lead=st.sampled_from(("No issues remaining", "Nothing blocking", "No concerns left")),
)
def test_every_none_with_a_present_event_is_a_condition(
    subordinator: str, event: str, lead: str
) -> None:
    text = f"{lead} {subordinator} {event}."
    for shape in ("blocking-before", "superpowers", "issues-after"):
        assert parse_verdict(SHAPES[shape].format(body=text)).decision is not A, (shape, text)
