"""Siblings of the closed 'unfinished field' classes (issue 23, white-box round 21).

`Reviewed: 2 of 14 files`, `Outstanding work: …` and `Open bugs: …` refused beside an
approval, but not the same fields told another way: a count in number words (`2 out of
fourteen files`), a percentage answering a key that names progress (`Review progress:
14%`), work that `remains` (`Remaining work: down migration`), gaps labelled as findings
(`Known gaps: rollback untested`). Each is read as its closed class now; a whole count,
100 %, a "none" and a remaining *risk* still approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_NUMBER_NAMES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_HEAD = "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n"
_VERDICT = "## Verdict\n\n**Verdict:** APPROVED\n\n"


@pytest.mark.parametrize(
    "field",
    [
        "**Reviewed:** 2 out of fourteen files",
        "Files reviewed: two of 14",
        "**Review progress:** 14%",
        "Completion: 60% (3 of 5 tasks)",
        "**Done:** 80% — docs left",
        "Remaining work: down migration, docs",
        "**Remaining tasks:** 2",
        "Work left: the rollback script",
        "**Known gaps:** rollback untested",
        "- Open gaps: the retry metric is not exported",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_an_unfinished_field_told_another_way_refuses(field: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + _VERDICT + field + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "field",
    [
        "**Reviewed:** fourteen of fourteen files",
        "**Review progress:** 100%",
        "Completion: 60% → 100%",
        "Remaining work: none",
        "**Remaining risk:** low",
        "**Known gaps:** none",
        "**Phase 3-4 combined:** 50 min actual vs 12h estimated = 95% efficiency gain",
    ],
)
def test_a_whole_or_empty_field_approves(field: str) -> None:
    assert parse_verdict(_HEAD + _VERDICT + field + "\n").approved


@given(done=st.integers(min_value=0, max_value=20), top=st.integers(min_value=1, max_value=20))
def test_a_count_in_words_reads_as_its_number(done: int, top: int) -> None:
    field = f"**Reviewed:** {_NUMBER_NAMES[min(done, top)]} of {_NUMBER_NAMES[top]} files"
    approved = parse_verdict(_HEAD + _VERDICT + field + "\n").approved
    assert approved is (min(done, top) == top)


@given(percent=st.integers(min_value=0, max_value=100))
def test_a_progress_percentage_approves_only_when_whole(percent: int) -> None:
    approved = parse_verdict(_HEAD + _VERDICT + f"Review progress: {percent}%\n").approved
    assert approved is (percent == 100)
