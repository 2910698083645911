"""Text after an approval is read clause by clause, and a clause ends at punctuation a
person reads as such: never inside a code span (the `??` of `a ?? b` is an operator, not a
question), and a past `needed to` tells what the change had to do — an account — where a
present `needs to` asks for work (`docs/verdicts.md`, *What the approval has not weighed*)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

HEAD = "## Task Quality: Approved\n\nNo issues found. "


@pytest.mark.parametrize(
    "code",
    ["`opts.port ?? 8080`", "`a?.b ?? c`", "`re.compile(r'x?')`", "`if ok? then go. end`"],
)
def test_punctuation_inside_code_ends_no_clause(code: str) -> None:
    verdict = parse_verdict(HEAD + f"The fallback chain ({code}) matches the brief.\n")
    assert verdict.decision is Decision.APPROVE, verdict.reasons


def test_a_question_outside_code_still_keeps_the_approval_out() -> None:
    verdict = parse_verdict(HEAD + "The fallback uses `opts.port ?? 8080`. Is 8080 right here?\n")
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_a_past_obligation_is_an_account_of_the_change() -> None:
    text = HEAD + "The queue's full response used status 503, which needed to stay distinct.\n"
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


def test_a_present_obligation_still_asks_for_work() -> None:
    text = HEAD + "The queue's full response needs to stay distinct from a 503.\n"
    verdict = parse_verdict(text)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
