"""The task a person's answer names (`AnswerKey`), an attempt's folder path (`AttemptPath`) and
a review's fix-round trailer read back as what they were made from, in the bytes earlier runs
printed and recorded (issue 26 item 2: they were composed and split outside `mergegate.ids`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _id_strategies import components
from mergegate.ids import AnswerKey, AttemptPath, IdError, TrailerLine

folder_parts = st.text(min_size=0, max_size=12).filter(lambda p: "/" not in p)
BAD = ["", "a/b", "..", " a", "a b", "a\n", ".a", "a.lock", "é"]


def test_the_bytes_are_the_ones_earlier_versions_wrote() -> None:
    assert AnswerKey("A", "T1").format() == "A/T1"
    assert str(AnswerKey("A", "TASK")) == "A/TASK"
    assert AnswerKey(None, "T1").format() == "T1"
    assert AttemptPath.parse("01/A/T1/impl-01").task.format() == "01/A/T1"
    assert AttemptPath.parse("01/A").task.format() == "01/A"
    assert AttemptPath.parse("/abs/run/x/y").task.format() == "/abs/run"
    assert TrailerLine.fix("r1/U1/T1", "review-01", 1).format() == (
        "Mergegate-Fix: r1/U1/T1/review-01/r01"
    )
    assert TrailerLine.fix("r1/U1/T1", "review-01", 12).format() == (
        "Mergegate-Fix: r1/U1/T1/review-01/r12"
    )
    assert TrailerLine.fix("r1/U1/T1", "checks-02").format() == "Mergegate-Fix: r1/U1/T1/checks-02"


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


@given(st.lists(folder_parts, min_size=1, max_size=8))
def test_attempt_paths_round_trip(parts: list[str]) -> None:
    text = "/".join(parts)
    path = AttemptPath.parse(text)
    assert path.format() == text
    assert AttemptPath(tuple(parts)) == path
    assert path.task.parts == tuple(parts[:3])
    assert path.starts_with(tuple(parts[:2]))
    assert path.starts_with(tuple(parts[1:3]), 1)
    assert AttemptPath.prefix("/" + text + "/") == tuple(p for p in parts if p)


def test_an_attempt_path_part_holds_no_slash() -> None:
    with pytest.raises(IdError):
        AttemptPath(("a/b",))
    with pytest.raises(IdError):
        AttemptPath(())
