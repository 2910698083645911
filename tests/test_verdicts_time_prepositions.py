"""'upon' and 'following' as 'after', and 'contingent on' told with another word, in the
answer's own clause (issue 23, white-box round 21): `APPROVED upon green CI`, `APPROVED
(following the DBA review)`, `APPROVED, predicated on the rollback test`. The closed class
of condition words had `after` and `contingent`, not these members of the same classes, so
the answers stood unconditional. A past act or the review itself after them is history,
as after `after` (`APPROVED following re-review`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n## Verdict\n\n"


@pytest.mark.parametrize(
    "answer",
    [
        "APPROVED upon green CI",
        "APPROVED (following the DBA review)",
        "APPROVED following the token fix",
        "APPROVED, predicated on the rollback test",
        "APPROVED — dependent on the canary staying green",
        "LGTM, depending on the license check",
        "APPROVED; hinges on the DBA",
        "APPROVED, gated on the canary",
        "APPROVED, conditioned on a green nightly run",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_time_or_condition_word_in_the_answer_conditions_it(answer: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + f"**Verdict:** {answer}\n", strict=strict)
    assert verdict.decision is Decision.FIXES


@pytest.mark.parametrize(
    "answer",
    [
        "APPROVED following re-review",
        "APPROVED upon a second pass over the handler",
        "APPROVED following the fixes that were applied in round 2",
        "APPROVED after the DBA review",
    ],
)
def test_the_review_itself_or_a_past_act_after_them_is_history(answer: str) -> None:
    assert parse_verdict(_HEAD + f"**Verdict:** {answer}\n").approved


_WORD = st.sampled_from(["upon", "following"])
_EVENT = st.sampled_from(["green CI", "the token fix", "the DBA sign-off", "the canary"])


@given(word=_WORD, event=_EVENT)
def test_any_event_after_upon_or_following_conditions(word: str, event: str) -> None:
    verdict = parse_verdict(_HEAD + f"**Verdict:** APPROVED {word} {event}\n")
    assert verdict.decision is Decision.FIXES
