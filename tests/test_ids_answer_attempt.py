"""The task a person's answer names (`AnswerKey`) reads back as what it was made from, in the
bytes earlier versions printed (issue 26 item 2: it was composed outside `mergegate.ids`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.ids import AnswerKey, IdError

components = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}(\.[A-Za-z0-9_-]{1,5})?", fullmatch=True)
BAD = ["", "a/b", "..", " a", "a b", "a\n", ".a", "a.lock", "é"]


def test_the_bytes_are_the_ones_earlier_versions_wrote() -> None:
    assert AnswerKey("A", "T1").format() == "A/T1"
    assert str(AnswerKey("A", "TASK")) == "A/TASK"
    assert AnswerKey(None, "T1").format() == "T1"


@given(st.one_of(st.none(), components), components)
def test_answer_keys_round_trip(unit: str | None, task: str) -> None:
    key = AnswerKey(unit, task)
    assert AnswerKey.parse(key.format()) == key
    assert key.names(unit or "any", task)
    assert not key.names(unit or "any", task + "x")
    if unit is not None:
        assert not key.names(unit + "x", task)


@pytest.mark.parametrize("bad", BAD)
def test_an_answer_key_with_a_bad_part_is_refused(bad: str) -> None:
    with pytest.raises(IdError):
        AnswerKey("A", bad)
    with pytest.raises(IdError):
        AnswerKey(bad, "T1")
    # with a `/` or empty, `bad` makes a key of too many parts, or an empty one
    for text in (f"A/{bad}", f"{bad}/T1", f"A/B/{bad}"):
        with pytest.raises(IdError):
            AnswerKey.parse(text)
