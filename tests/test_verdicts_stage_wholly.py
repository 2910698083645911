"""A stage of an SDD task review answered with a word that says how wholly it passed
(issue 23: '**Spec compliance**: ✅ Full pass', 'Fully compliant'): the answer is the word
after it, read with the rest of the clause, so a condition or a no after it still counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

WHOLLY = ["Full", "Fully", "Complete", "Completely", "Entirely", "Clean"]


def _review(spec: str, quality: str = "Approved") -> str:
    head = "# Task 3 review\n\n## Verdict\n\n"
    return f"{head}**Spec compliance**: {spec}\n**Code quality**: {quality}\n"


@pytest.mark.parametrize("word", WHOLLY)
@pytest.mark.parametrize("mark", ["✅ ", ""])
def test_a_stage_that_wholly_passed_approves(word: str, mark: str) -> None:
    verdict = parse_verdict(_review(f"{mark}{word} pass"))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("word", WHOLLY)
def test_a_quality_stage_wholly_approved_approves(word: str) -> None:
    verdict = parse_verdict(_review("✅ Full pass", f"{word} approved"))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("word", WHOLLY)
@pytest.mark.parametrize(
    "answer",
    [
        "pass once the migration lands",
        "pass after the token fix",
        "pass with fixes",
        "fail",
        "pass except the cache",
    ],
)
def test_a_condition_or_a_no_after_the_word_still_counts(word: str, answer: str) -> None:
    assert parse_verdict(_review(f"✅ {word} {answer}")).decision is not A


@pytest.mark.parametrize("word", WHOLLY)
def test_a_failed_mark_beside_the_word_refuses(word: str) -> None:
    assert parse_verdict(_review(f"❌ {word} pass")).decision is not A


@pytest.mark.parametrize("word", WHOLLY)
def test_the_other_stage_saying_no_refuses(word: str) -> None:
    assert parse_verdict(_review(f"✅ {word} pass", "Needs changes")).decision is not A


@given(st.sampled_from(WHOLLY), st.sampled_from(["pass", "compliant", "approved"]))
def test_the_word_never_turns_a_refused_quality_stage_into_a_yes(word: str, answer: str) -> None:
    text = _review(f"✅ {word} {answer}", "❌ Important issues open")
    assert parse_verdict(text).decision is not A
