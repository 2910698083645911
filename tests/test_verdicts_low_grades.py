"""A grade in the verdict's own section below the middle of its scale (issue 23): `Rating: 3
out of 10`, `Test coverage: 18%`, `Reviewer confidence: weak` beside `APPROVED`. The field
had metadata's shape, so both readings accounted it as carrying no decision (a number is no
prose to appraise). A grade at or above its middle, a risk rated low and the state before an
arrow still approve."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "## Summary\n\nChecked the retry queue change end to end.\n\n**Verdict:** APPROVED\n\n"


@pytest.mark.parametrize(
    "field",
    [
        "Rating: 3 out of 10",
        "- **Score:** 1/4",
        "Test coverage: 18%",
        "Reviewer confidence: weak",
        "Code quality: poor (see the nested retries)",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_grade_below_its_middle_refuses(field: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + field + "\n", strict=strict)
    assert not verdict.approved
    assert "below its middle" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    "field",
    [
        "Rating: 8 out of 10",
        "Test coverage: 91%",
        "Test coverage: 40% → 88%",
        "Risk: low",
        "Score: 9/12 checks",
    ],
)
def test_a_grade_at_or_above_its_middle_or_a_low_risk_approves(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved


@given(top=st.integers(min_value=2, max_value=100), data=st.data())
def test_any_mark_under_half_its_maximum_refuses(top: int, data: st.DataObject) -> None:
    mark = data.draw(st.integers(min_value=0, max_value=(top - 1) // 2))
    assert not parse_verdict(_HEAD + f"Score: {mark}/{top}\n").approved


@pytest.mark.parametrize(
    "field",
    [
        "**Score:** 4.5/10",
        "Rating: 1.5 out of 5",
        "Rating: ★★☆☆☆",
        "- **Rating:** ★☆☆ (see the notes)",
        "**Grade:** D",
        "Grade: F (see the nested retries)",
        "Grade: C-",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_decimal_mark_a_star_scale_or_a_letter_below_its_middle_refuses(
    field: str, strict: bool
) -> None:
    """The closed class's siblings: a mark with a decimal part, stars drawn on a scale and
    letter grades were read as metadata, since only whole-number marks were read."""
    verdict = parse_verdict(_HEAD + field + "\n", strict=strict)
    assert not verdict.approved
    assert "below its middle" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    "field",
    ["Score: 8.5/10", "Rating: 2.5 out of 5", "Rating: ★★★★☆", "Grade: A-", "Grade: B", "Grade: C"],
)
def test_a_decimal_star_or_letter_grade_at_or_above_its_middle_approves(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved


@given(top=st.integers(min_value=2, max_value=100), data=st.data())
def test_any_decimal_mark_under_half_its_maximum_refuses(top: int, data: st.DataObject) -> None:
    tenths = data.draw(st.integers(min_value=0, max_value=5 * top - 1))
    assert not parse_verdict(_HEAD + f"Score: {tenths // 10}.{tenths % 10}/{top}\n").approved


@given(filled=st.integers(min_value=0, max_value=10), empty=st.integers(min_value=1, max_value=10))
def test_stars_approve_exactly_when_at_least_half_are_filled(filled: int, empty: int) -> None:
    rating = "★" * filled + "☆" * empty
    approved = parse_verdict(_HEAD + f"Rating: {rating}\n").approved
    assert approved is (2 * filled >= filled + empty)
