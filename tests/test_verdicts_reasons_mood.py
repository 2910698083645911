"""The reasons after an approval are statements (`_statement`, `_after`): a sentence whose
mood is not indicative (an obligation, a wish, a request, a wait), one that opens with a
negated condition or a verb waiting for an event, and the same sentences under a review part
after the verdict ('## Next steps', '## Rollout') say what must still happen, so the approval
is not unconditional. Each class was approved before this rule; each has genuine twins —
the same place, a report of what is — that still approve."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
BODY = (
    "## Summary\n\nThe change caps HTTP retries at five and adds tests for the cap.\n\n"
    "### Critical\n\nNone.\n\n### Important\n\nNone.\n\n"
)
CLOSING = "**Verdict:** APPROVED\n\n"


def _closing(after: str) -> str:
    return BODY + CLOSING + after + "\n"


def _opening(body: str) -> str:
    return CLOSING + body + "\n"


# The verdict's own section: a modal of obligation, wish or request, or a wait.
MOODS = [
    "We should hold this until the DBA signs off.",
    "I'd like the staging run green first.",
    "I would wait for the load test.",
    "Somebody has to run the integration suite against PG16.",
    "The index change needs to land separately.",
    "Let's fix the race in this PR.",
    "Please consider this review void.",
    "Fine as is, pending the security sign-off.",
    "We should hold this until the next release is cut.",
    "Good to go unless the nightly fails again.",
    # a conjunction does not make a request a statement
    "Thanks — and please fix the injection in `search.py:31` before you merge!",
]
MOOD_TWINS = [
    "All must-haves verified.",
    "Without the guard it would crash on empty input; the guard is there.",
    "An earlier draft would have dropped rows; this one keeps them.",
    'The tracker shows status "Complete (fix pending)" from before this phase.',
    # work placed in a later unit of the plan is advice for later
    "This test code should be removed when implementing the auth UI in Story 1.3.",
    "The cache should get its own metrics in a follow-up PR.",
    "The tests cover every branch of the cap.",
]


@pytest.mark.parametrize("sentence", MOODS)
def test_a_sentence_in_another_mood_after_the_approval_is_not_approved(sentence: str) -> None:
    verdict = parse_verdict(_closing(sentence))
    assert verdict.decision is not A, verdict.reasons
    assert not verdict.approved


@pytest.mark.parametrize("sentence", MOOD_TWINS)
def test_a_report_after_the_approval_still_approves(sentence: str) -> None:
    verdict = parse_verdict(_closing(sentence))
    assert verdict.decision is A, verdict.reasons


# A negated condition, and a verb waiting for an event, whatever shape the line wears
# (a metadata label, a command line).
WAITS = [
    "**Deploy:** not before the DBA has signed off on the index change",
    "Not until the flag defaults to off.",
    "Hold until the security review is done.",
    'hold --until security-signoff --reason "token scope too broad"',
]
WAIT_TWINS = [
    "**Deploy:** 2026-05-01",
    "$ mergegate parse review.md --format json",
    "Tests pass after the rebase.",
]


@pytest.mark.parametrize("line", WAITS)
def test_a_line_that_waits_for_an_event_is_not_approved(line: str) -> None:
    assert parse_verdict(_closing(line)).decision is not A


@pytest.mark.parametrize("line", WAIT_TWINS)
def test_a_line_that_waits_for_nothing_still_approves(line: str) -> None:
    verdict = parse_verdict(_closing(line))
    assert verdict.decision is A, verdict.reasons


# Under a review part after a closing verdict, the prose is the approval's reasons too.
PARTS = [
    "## Next steps\n\nTake `0042_rebuild.py` out of this PR. Ping me when that's split.",
    "## Notes\n\nThis should sit in the branch until legal signs off on the new window.",
    "## Testing\n\nSomebody has to run `make itest` against PG16 and paste the output.",
    "## Notes\n\nLet's fix the cache race in this PR.",
    "## Summary\n\nThe cap is right.\n\n### Details\n\nI'd like the flag off by default first.",
]
PART_TWINS = [
    "## Notes\n\nReviewed the parser and its tests. Ran the whole suite; 212 passed.",
    "## Notes\n\nAfter removing the shim, the module is smaller and easier to read.",
    "## Next steps\n\nAfter merge, enable the flag for internal users first.",
    "## Testing\n\nEnumerating the prefixes against the fixtures finds no collision.",
    # the lines of a findings or advice part are graded by their readers, not as reasons
    "## Suggestions\n\n- The constant should have a longer name.",
    "## Appendix: the spec quoted\n\nThe installer MUST keep the old config.",
]


@pytest.mark.parametrize("part", PARTS)
def test_a_request_under_a_review_part_after_the_approval_is_not_approved(part: str) -> None:
    verdict = parse_verdict(_closing(part))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("part", PART_TWINS)
def test_reasons_under_a_review_part_after_the_approval_still_approve(part: str) -> None:
    verdict = parse_verdict(_closing(part))
    assert verdict.decision is A, verdict.reasons


# Under a verdict that opens the document, the body is the review itself, argued at length:
# its moods are read, not how each of its sentences opens.
def test_a_request_in_the_body_under_an_opening_verdict_is_not_approved() -> None:
    text = _opening("## Rollout\n\nNobody should deploy this before the old key is rotated.")
    assert parse_verdict(text).decision is not A


def test_an_argued_body_under_an_opening_verdict_still_approves() -> None:
    text = _opening(
        "## Assessment\n\nThe mitigation is the part that holds. Don't trust the 100 %; "
        "eyeball the entry count against a known design before the airgap run."
    )
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


# A line that goes on from a verdict line ending in its yes is the same paragraph: it stands
# beside the answer and is read whole, not from its first sentence end.
STAGES = "## Task 3 review\n\n**Spec compliance:** ✅ APPROVED — all criteria met.\n\n"
GOES_ON = [
    STAGES + "**Code quality:** ✅ APPROVED\nOpen item the implementer must still handle in "
    "this task: `queue.py` acks before the commit.",
    BODY + "**Verdict:** APPROVED\nOpen item the author still has to take: the flag default.",
]
GOES_ON_TWINS = [
    STAGES + "**Code quality:** ✅ APPROVED\nThe queue acks after the commit now.",
    BODY + "**Verdict:** APPROVED\n**Reasoning:** Meets the plan; tests cover the error paths.",
    BODY + "**Verdict:** APPROVED\nAll five acceptance criteria are met.",
]


@pytest.mark.parametrize("text", GOES_ON)
def test_a_line_going_on_from_the_yes_is_read_whole(text: str) -> None:
    verdict = parse_verdict(text + "\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", GOES_ON_TWINS)
def test_a_reason_going_on_from_the_yes_still_approves(text: str) -> None:
    verdict = parse_verdict(text + "\n")
    assert verdict.decision is A, verdict.reasons
