"""GitHub review JSON is taken in the order the reviews were submitted: by the instant each
time names, not by its text. A time with an offset (`09:30:00-02:00` is 11:30 UTC) is that
instant, so a request for changes made after an approval is the reviewer's last word however
its zone is written."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_BASE = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def _reviews(*reviews: tuple[str, str]) -> str:
    """`gh pr view --json reviews` output with one reviewer: (state, submittedAt) each."""
    return json.dumps(
        {
            "reviews": [
                {"author": {"login": "bob"}, "state": state, "submittedAt": at, "body": "ok"}
                for state, at in reviews
            ]
        }
    )


def _written(at: datetime, offset_minutes: int) -> str:
    """`at` written in a zone `offset_minutes` from UTC (`Z` for none)."""
    if offset_minutes == 0:
        return at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return at.astimezone(timezone(timedelta(minutes=offset_minutes))).isoformat()


@given(
    gap=st.integers(min_value=1, max_value=600),
    first_zone=st.sampled_from([0, -120, 330, 60, -480, 600]),
    second_zone=st.sampled_from([0, -120, 330, 60, -480, 600]),
    listed_first=st.booleans(),
)
def test_the_later_instant_is_the_reviewers_last_word(
    gap: int, first_zone: int, second_zone: int, listed_first: bool
) -> None:
    approved = ("APPROVED", _written(_BASE, first_zone))
    requested = ("CHANGES_REQUESTED", _written(_BASE + timedelta(minutes=gap), second_zone))
    pair = (approved, requested) if listed_first else (requested, approved)
    assert parse_verdict(_reviews(*pair)).decision is Decision.FIXES
    approved_last = ("APPROVED", _written(_BASE + timedelta(minutes=gap), second_zone))
    requested_first = ("CHANGES_REQUESTED", _written(_BASE, first_zone))
    pair = (approved_last, requested_first) if listed_first else (requested_first, approved_last)
    assert parse_verdict(_reviews(*pair)).decision is Decision.APPROVE


def test_an_offset_that_sorts_first_as_text_is_still_the_later_review() -> None:
    text = _reviews(
        ("APPROVED", "2026-11-20T10:00:00Z"), ("CHANGES_REQUESTED", "2026-11-20T09:30:00-02:00")
    )
    assert parse_verdict(text).decision is Decision.FIXES
