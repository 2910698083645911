"""A run's summary that counts errors, or tests told red after their count (issue 23,
white-box round 21): `Unit tests: 12 passed, 1 errored` and `APPROVED — 3 tests red`. The
count of failures read `failed`, `failing` and `broken` only, and `red` only after `is` /
`are`; an errored test is a failing one. A zero count, a negated one and a count told as
past or fixed still approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n## Verdict\n\n"


@pytest.mark.parametrize(
    "text",
    [
        "**Verdict:** APPROVED\n\nUnit tests: 12 passed, 1 errored\n",
        "**Verdict:** APPROVED — 3 tests red\n",
        "**Verdict:** APPROVED\n\nThe run shows 2 specs erroring.\n",
        "**Verdict:** APPROVED\n\n- pytest: 40 passed, 2 erroring\n",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_an_error_count_or_tests_told_red_refuse(text: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + text, strict=strict).approved


@pytest.mark.parametrize(
    "text",
    [
        "**Verdict:** APPROVED\n\nUnit tests: 12 passed, 0 errored\n",
        "**Verdict:** APPROVED\n\nNo tests red.\n",
        "**Verdict:** APPROVED\n\nThe 2 errored tests were fixed in round 2.\n",
    ],
)
def test_a_zero_negated_or_fixed_count_approves(text: str) -> None:
    assert parse_verdict(_HEAD + text).approved


@given(count=st.integers(min_value=0, max_value=999), word=st.sampled_from(["errored", "failed"]))
def test_a_summary_count_refuses_exactly_when_above_zero(count: int, word: str) -> None:
    text = f"**Verdict:** APPROVED\n\npytest: 12 passed, {count} {word}\n"
    assert parse_verdict(_HEAD + text).approved is (count == 0)
