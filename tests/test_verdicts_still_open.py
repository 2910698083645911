"""'still' or 'remains' before a state of open work, after the verdict (issue 23, white-box
round 21): `The migration is still missing its down step.`, `The race in claim_job()
remains unresolved.`, `Finding 1 is still open.`, `The rollback script is TBD.` English
'not … yet' and 'still to' were read as something expected and not done, and so were the
'still' adverbs of the other read languages (`todavía`, `ainda`, `尚未`), but not English
'still'/'remains' with its predicate, nor a present copula before a state that negates
done (`are unmet`, `is untested`): the statements passed. A negation before the state
denies it; 'remained' tells the past; 'still' with any other predicate keeps what holds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n## Verdict\n\n"
_VERDICT = "**Verdict:** APPROVED\n\n"


@pytest.mark.parametrize(
    "sentence",
    [
        "The migration is still missing its down step.",
        "The race in `claim_job()` remains unresolved.",
        "Finding 1 is still open.",
        "The rollback script is TBD.",
        "Two of the review comments remain unaddressed.",
        "The docs are still to be written.",
        "Two of the five acceptance criteria are unmet.",
        "The timeout path is untested.",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_still_or_remains_before_an_open_state_refuses(sentence: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + _VERDICT + sentence + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "sentence",
    [
        "No findings remain open.",
        "The old API still works and backwards compatibility remains intact.",
        "The issue remained open until round 2, when the fix landed.",
        "All findings from round 1 are closed.",
        "No acceptance criteria are unmet.",
        "The settings dialog is open by default on first run.",
    ],
)
def test_a_denied_past_or_holding_state_approves(sentence: str) -> None:
    assert parse_verdict(_HEAD + _VERDICT + sentence + "\n").approved


_SUBJECT = st.sampled_from(["The race", "Finding 2", "The down migration", "The cache bug"])
_LEAD = st.sampled_from(["is still", "remains", "still"])
_STATE = st.sampled_from(["open", "unresolved", "missing", "pending", "unaddressed", "untested"])


@given(subject=_SUBJECT, lead=_LEAD, state=_STATE)
def test_any_open_state_after_still_or_remains_refuses(subject: str, lead: str, state: str) -> None:
    sentence = f"{subject} {lead} {state}."
    assert not parse_verdict(_HEAD + _VERDICT + sentence + "\n").approved
