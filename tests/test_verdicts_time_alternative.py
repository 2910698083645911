"""Issue 23, session 26 class 5: an alternative in time after an approval ('do a cleanup
commit before or after the merge', '合并前或合并后', 'before merging or right after') is no
condition (`_signals._merge_tied`): the work may as well follow the merge. A 'before the
merge' with no such other side, or whose 'or' names another event ('or after the fix
lands', 'or before release'), still holds the merge back.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(advice: str) -> str:
    return f"# Review: retry queue\n\n**Verdict:** APPROVED\n\n{advice}\n"


@pytest.mark.parametrize(
    "advice",
    [
        "I suggest squashing the two typo commits before or after the merge.",
        "I suggest squashing the two typo commits before merging or right after.",
        "I suggest squashing the two typo commits before the merge or afterwards.",
        "建议在合并前或合并后立即做一次清理提交。",
        "建议在合并前或后做一次清理提交。",
        "マージ前または後に整理コミットを入れてください。",
        "병합 전 또는 후에 정리 커밋을 하세요.",
    ],
)
def test_an_alternative_in_time_is_no_condition(advice: str) -> None:
    assert parse_verdict(_review(advice)).decision is A


@pytest.mark.parametrize(
    "advice",
    [
        "I suggest squashing the two typo commits before merging.",
        "I suggest squashing the two typo commits before merging or after the fix lands.",
        "I suggest squashing the two typo commits before merging or before release.",
        "Fix the leak before merge, or after review.",
        "Squash before merging or afterwards; fix the leak before merge.",
        "建议在合并前做一次清理提交。",
        "マージ前に整理コミットを入れてください。",
    ],
)
def test_a_before_without_its_other_side_still_holds(advice: str) -> None:
    assert parse_verdict(_review(advice)).decision is not A


_EVENT = st.sampled_from(["the fix lands", "the migration", "review", "CI is green", "QA"])


@given(event=_EVENT)
def test_an_or_that_names_another_event_keeps_the_condition(event: str) -> None:
    advice = f"I suggest squashing the typo commits before merging or after {event}."
    assert parse_verdict(_review(advice)).decision is not A
