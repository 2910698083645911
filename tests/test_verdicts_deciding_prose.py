"""Issue 23: a free-form review whose verdict section refuses in a sentence is that refusal.

'## Verdict' / 'Two real bugs need fixing before Week 3.' has no word of the verdict
vocabulary, so no verdict statement is found; it was `malformed` (restate), which sends the
wrong next step. The first paragraph under a verdict heading is the answer's position
(`_deciding_prose`): a refusal stated there names `fixes` or `reject`. It runs only where no
verdict statement exists, so it moves a document between refusals and never approves.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import _decide, parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

_BODY = "# Review of the export change\n\nThe change adds a CSV export to the reports page.\n\n"

REFUSING_ANSWERS = [
    # an obligation under a deciding heading
    ("## Verdict", "Two real runtime bugs need fixing before Week 3.", F),
    ("## One-line verdict", "Two real runtime bugs need fixing before Week 3.", F),
    ("## Conclusion", "The two critical bugs should be fixed before the article drops.", F),
    ("## Final verdict", "The export must be fixed first; the rest is polish.", F),
    # a refusal mark that opens the answer
    ("## Verdict", "❌", F),
    ("## Verdict", "✗ — the migration drops rows.", F),
    # a contrary verdict in the answer's sentence
    ("## Verdict", "Please do not merge this: the migration drops rows.", R),
    # a condition on the merge, wrapped over two lines, in a describing section
    ("## Summary", "Solid work overall. Safe to ship\nafter addressing the two major items.", F),
    # another language the reader knows: the heading's role, the answer's condition
    ("## 결론 + 다음 단계", "Two real runtime bugs need fixing before the release.", F),
]


@pytest.mark.parametrize(("heading", "answer", "expected"), REFUSING_ANSWERS)
def test_a_refusal_in_the_answer_position_names_the_refusal(
    heading: str, answer: str, expected: Decision
) -> None:
    verdict = parse_verdict(f"{_BODY}{heading}\n\n{answer}\n")
    assert verdict.decision is expected, verdict.reasons
    assert verdict.evidence is not None


def test_a_sub_heading_that_asks_the_question_is_answered_below_it() -> None:
    answer = "It can ship only after the two bugs are fixed."
    text = f"{_BODY}## Conclusion\n\n### Can it ship?\n\n{answer}\n"
    assert parse_verdict(text).decision is F


NOT_AN_ANSWER = [
    # a describing section's obligation is a description, not the answer
    ("## Summary", "Two real runtime bugs need fixing before Week 3."),
    # a list and a table under the heading are reasons and work ahead, not the answer
    ("## Conclusion", "1. **Documentation** - missing API docs\n2. **Tests** - need more"),
    ("## Verdict", "| Area | Note |\n|---|---|\n| Docs | must be fixed before merge |"),
    # a count line in a summary: 'pending: 1' is a tally, not a wait
    ("## Summary", "total: 1\npassed: 0\npending: 1"),
    # a quoted answer is someone else's
    ("## Verdict", "> Two real runtime bugs need fixing before Week 3."),
    # a plain statement decides nothing
    ("## Verdict", "The change is small and the code reads well."),
    # an example's verdict section is not the reviewer's
    ("## Example verdict", "Two real runtime bugs need fixing before Week 3."),
]


@pytest.mark.parametrize(("heading", "answer"), NOT_AN_ANSWER)
def test_what_is_not_a_refusing_answer_stays_malformed(heading: str, answer: str) -> None:
    assert parse_verdict(f"{_BODY}{heading}\n\n{answer}\n").decision is M


def test_the_answer_is_the_first_paragraph_only() -> None:
    text = (
        f"{_BODY}## Verdict\n\nThe change is small and reads well.\n\n"
        "Next quarter the exporter needs a rewrite before the storage migration.\n"
    )
    assert parse_verdict(text).decision is M


def test_a_modal_joined_to_a_noun_obliges_no_one() -> None:
    """'must-fixes', 'must-have' name things: 'All 8 must-fixes are closed' is no obligation;
    a later sentence of the answer that obliges still refuses."""
    text = (
        f"{_BODY}## Verdict\n\n**Feature-complete and ready to use.** All 8 must-fixes "
        "from the audit are closed.\n"
    )
    assert parse_verdict(text).decision is M
    later = f"{_BODY}## Verdict\n\n**Foundations strong.** Two bugs need fixing before Week 3.\n"
    assert parse_verdict(later).decision is F


def test_a_verdict_statement_still_decides_over_the_prose() -> None:
    text = f"{_BODY}## Verdict\n\nNeeds fixing before merge.\n\n**Verdict:** REJECT\n"
    assert parse_verdict(text).decision is R


def test_an_approving_verdict_section_is_untouched() -> None:
    text = f"{_BODY}## Verdict\n\n**APPROVE** — ready to merge.\n"
    assert parse_verdict(text).decision is A


# ------------------------------------------------------------- the rule, for all answers

_HEADINGS = st.sampled_from(
    ["## Verdict", "## Conclusion", "## Summary", "## Final verdict", "## 결론", "## Notes"]
)
_WORDS = st.sampled_from(
    [
        "approve", "approved", "lgtm", "ready", "to", "merge", "ship", "it", "after", "before",
        "fix", "fixing", "needs", "must", "the", "bug", "not", "no", "yes", "❌", "✅", "do",
        "once", "pending", "tests", "pass", "verdict:", "**", "-", "1.", "|", ">", "\n",
    ]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(heading=_HEADINGS, words=st.lists(_WORDS, max_size=14))
def test_the_section_reading_never_turns_a_document_into_an_approval(
    heading: str, words: list[str]
) -> None:
    """Whatever the answer says, the decision with the section reading is the one without
    it, or a refusal: a document moves between refusals, never to `approve`."""
    text = f"{_BODY}{heading}\n\n{' '.join(words)}\n"
    with_reading = parse_verdict(text).decision
    original = _decide.refusal_in_deciding_section
    try:
        _decide.refusal_in_deciding_section = lambda _doc: None  # type: ignore[assignment]
        without = parse_verdict(text).decision
    finally:
        _decide.refusal_in_deciding_section = original  # type: ignore[assignment]
    assert with_reading is without or (without is M and with_reading in (F, R))
    assert with_reading is not A or without is A
