"""GitHub's timeline wording with what the timeline writes after it.

Before, `**bob** approved these changes · Nov 27, 2026, 16:05 · commit \\`0a9b8c7\\`` (a
timeline copied from a pull request: when, and on which commit) was no review, so a genuine
approval was `malformed`; and any words after one `·` or `on` were taken as the date, so
`**bob** approved these changes · fix the tests first` approved. Now the text after the
wording is an allow-list of GitHub's own parts — each after a `·` (the first may follow
`on`), a date, a time, `3 days ago`, or `commit <sha>` — and anything else there makes the
line no review. Documents here are synthetic, written for these tests.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, M = Decision.APPROVE, Decision.FIXES, Decision.MALFORMED

_TAILS = [
    "",
    " on Mar 12, 2024",
    " · Mar 12, 2024",
    " on Mar 12, 2024 · commit `c0ffee1`",
    " · Mar 12, 2024, 16:05 · commit `0a9b8c7`",
    " · 2024-03-12 16:05 UTC",
    " · 3 days ago",
    " · commit `0a9b8c7d`",
]


@pytest.mark.parametrize("tail", _TAILS)
def test_an_approval_with_the_timelines_own_parts(tail: str) -> None:
    text = f"**lint-reviewer** approved these changes{tail}\n\n> Reads well; tests cover it.\n"
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


def test_a_later_approval_clears_the_same_reviewers_request() -> None:
    text = (
        "**lint-reviewer** requested changes · Mar 12, 2024, 10:14 · commit `a1b2c3d`\n\n"
        "> The cache key ignores the tenant.\n\n"
        "**dev-agent** pushed 1 commit · Mar 12, 2024, 15:30\n\n"
        "**lint-reviewer** approved these changes · Mar 12, 2024, 16:05 · commit `0a9b8c7`\n\n"
        "> Tenant is in the key now. Approving.\n"
    )
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


def test_an_open_request_beside_another_approval_still_asks_for_fixes() -> None:
    text = (
        "**ana-lopes** approved these changes · Mar 12, 2024, 09:00 · commit `a1b2c3d`\n\n"
        "**lint-reviewer** requested changes · Mar 12, 2024, 10:14 · commit `a1b2c3d`\n\n"
        "> The cache key ignores the tenant.\n"
    )
    assert parse_verdict(text).decision is F


@pytest.mark.parametrize(
    "tail",
    [
        " · fix the tests first",
        " on condition CI passes",
        " · Mar 12, 2024 · once the migration is reverted",
        " but please rebase",
        " · commit `0a9b8c7` · do not merge yet",
    ],
)
def test_other_words_after_the_wording_make_it_no_review(tail: str) -> None:
    text = f"**lint-reviewer** approved these changes{tail}\n"
    assert parse_verdict(text).decision is not A


@settings(max_examples=60, deadline=None)
@given(words=st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=40))
def test_words_after_a_dot_are_not_a_date(words: str) -> None:
    """Letters and blanks alone are never a date, a time or a commit."""
    text = f"**lint-reviewer** approved these changes · {words}\n"
    if words.strip() in ("", "yesterday", "today"):
        return
    assert parse_verdict(text).decision is not A
