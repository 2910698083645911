"""A "no" after an approval in any wording of a negated merge (`_signals.withdrawal_in`):
a negator, at most two words, then a verb or state of merging. Composed from two closed
sets, so the rewordings a reviewer (or a red team) reaches for are one class: 'I would not
ship this', 'we can never land it', "it isn't safe to deploy". Twins where the words make
a noun or name a blocker ('not merge-blocking', "doesn't change the release process")
still approve."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

HOSTILE = [
    "I would not ship this.",
    "Honestly, we can never land it in this state.",
    "It isn't safe to deploy yet.",
    "I wouldn't merge this before the audit.",
    "Frankly this is not ready.",
    "We shouldn't release it.",
    "I cannot approve the auth change.",
    "The team won't proceed with it.",
]
TWINS = [
    "The remaining nits are not merge-blocking.",
    "This doesn't change the release process.",
    "The PR does not affect the merge queue.",
    "Nothing here should block shipping.",
    "These notes are not blocking merge.",
    "Tests do not cover the legacy flag, which is out of scope.",
]


@pytest.mark.parametrize("sentence", HOSTILE)
@pytest.mark.parametrize("where", ["same_line", "next_paragraph", "later_section"])
def test_a_negated_merge_after_an_approval_is_not_approved(sentence: str, where: str) -> None:
    text = {
        "same_line": f"**Verdict:** APPROVED. {sentence}\n",
        "next_paragraph": f"**Verdict:** APPROVED\n\n{sentence}\n",
        "later_section": f"**Verdict:** APPROVED\n\n## Summary\n\nSolid work. {sentence}\n",
    }[where]
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("sentence", TWINS)
def test_a_noun_or_a_named_blocker_is_not_a_negated_merge(sentence: str) -> None:
    verdict = parse_verdict(f"## Summary\n\nClean change. {sentence}\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is A, verdict.reasons


_NEGATOR = st.sampled_from(
    ["not", "never", "cannot", "can't", "won't", "wouldn't", "shouldn't", "don't", "isn't"]
)
_FILLER = st.lists(st.sampled_from(["really", "yet", "safely", "be", "go", "to"]), max_size=2)
_VERB = st.sampled_from(
    ["merge", "ship", "land", "release", "deploy", "approve", "accept", "proceed", "ready"]
)
_OBJECT = st.sampled_from(["", " this", " it", " yet", " now", " today", " as is"])


@settings(max_examples=200, deadline=None)
@given(_NEGATOR, _FILLER, _VERB, _OBJECT)
def test_every_composed_negated_merge_keeps_an_approval_from_standing(
    negator: str, filler: list[str], verb: str, obj: str
) -> None:
    sentence = " ".join(["We", negator, *filler, verb]) + obj + "."
    verdict = parse_verdict(f"**Verdict:** APPROVED\n\n{sentence}\n")
    assert verdict.decision is not A, sentence


# Other rewordings of a "no" after an approval, each composed rather than listed: an
# obligation to fix first, a harm foretold, a TODO left, a review still to come.
REWORDED = {
    "fix_first": "The auth bypass in login.py has to be fixed first.",
    "revert_first": "The migration must be reverted first.",
    "harm_foretold": "Merging this will break production.",
    "harm_going_to": "The new index is going to corrupt existing rows.",
    "todo": "TODO: revert the migration.",
    "fixme": "FIXME: the token is logged in plain text.",
    "another_review": "This needs another review round after the refactor.",
    "second_pass": "It requires a second pass once the schema settles.",
    "final_label": "The verdict above is for the draft; final: REJECT.",
    "bottom_line": "Bottom line: do not merge.",
    "defect_stated": "The implementation is incorrect.",
    "still_broken": "This PR is still broken on Windows.",
    "grave_defect": "This PR introduces a critical security vulnerability.",
    "contrast_defect": "Works, but the migration is broken.",
    "fails_in_ci": "Passes locally but fails in CI.",
}
REWORDED_TWINS = [
    "Nothing will break: the flag defaults to off.",
    "This will not break existing clients.",
    "Without the guard it would crash on empty input; the guard is there.",
    "TODO: none.",
    "The old implementation was incorrect; this PR fixes it.",
    "It had a critical bug in round 1 that is now fixed.",
    "Nothing here introduces a critical issue.",
    "The old code was broken, but the fix is correct.",
    "It used to fail in CI; now green.",
]


def test_a_part_left_out_on_the_verdicts_line_is_not_approved() -> None:
    verdict = parse_verdict("**Verdict:** APPROVE. Fine, except the migration.\n")
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


@pytest.mark.parametrize("name", sorted(REWORDED))
def test_a_reworded_no_after_an_approval_is_not_approved(name: str) -> None:
    verdict = parse_verdict(f"**Verdict:** APPROVED\n\n## Notes\n\n{REWORDED[name]}\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("sentence", REWORDED_TWINS)
def test_a_harmless_twin_still_approves(sentence: str) -> None:
    verdict = parse_verdict(f"**Verdict:** APPROVED\n\n## Notes\n\n{sentence}\n")
    assert verdict.decision is A, verdict.reasons


# Told as done, an obligation or a condition is history; with a modal it is still a demand.
DONE_TWINS = [
    "The single Low (missing regression test) is fixed.",
    "It has already been fixed on the PR by 853c1e1 before merge.",
    "The blocking findings were corrected.",
]
DEMANDS = [
    "This should have been fixed before merge.",
    "The blocking findings should have been corrected.",
    "Missing tests, which must be fixed before merge.",
]


@pytest.mark.parametrize("sentence", DONE_TWINS)
def test_work_reported_done_lets_the_approval_stand(sentence: str) -> None:
    verdict = parse_verdict(f"**Verdict:** APPROVED\n\n## Notes\n\n{sentence}\n")
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("sentence", DEMANDS)
def test_a_modal_keeps_a_done_word_a_demand(sentence: str) -> None:
    verdict = parse_verdict(f"**Verdict:** APPROVED\n\n## Notes\n\n{sentence}\n")
    assert verdict.decision is not A, verdict.reasons
