"""Issue 23, session 20: a time word whose object is a span of time measures a duration
('sessions expire after 15 minutes'); it waits for no event, so it conditions no approval.
Time words that wait for an event still do. Fresh wording (not the red-team controls).
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _gate(reason: str) -> str:
    return (
        'schema: 1\nstory: "4.1"\ngate: PASS\n'
        f'status_reason: "{reason}"\nreviewer: "Quinn (Test Architect)"\n\ntop_issues: []\n'
    )


DURATIONS = [
    _gate("All acceptance criteria met; idle sessions expire after 15 minutes."),
    _gate("Criteria met. The lock is released after 30 s and the cache refreshed after a day."),
]
EVENTS = [
    _gate("All acceptance criteria met; idle sessions expire after the cache is warmed."),
    _gate("Criteria met; merge after a 2-day soak in staging."),
    "**Verdict:** APPROVED\n\nReset links work. Ship it after the security review.\n",
]


@pytest.mark.parametrize("text", DURATIONS)
def test_a_duration_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", EVENTS)
def test_a_time_word_that_waits_for_an_event_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons
