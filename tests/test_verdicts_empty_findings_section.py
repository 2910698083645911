"""Issue 23, session 26 class 6: a findings heading ('## Issues Found', '### 需要改进') over a
section that says nothing was found is the title of an empty section, not the document's
verdict beside its approval (`_grammar._section_says_none`). Now also when the none is
followed by a restatement in a closed vocabulary ('**None.** Clean, complete replacement
with no regressions introduced.'). Anything else after the none, an item, a sub-heading,
or no line at all under the heading (`test_verdicts_clean_results`) still refuses.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(section: str, after: str = "") -> str:
    return (
        "# Task 4 Review: session handler\n\n**Verdict**: PASS\n\n## Checks Performed\n\n"
        f"- Unit tests: 31 passed.\n\n## Issues Found\n\n{section}{after}"
    )


@pytest.mark.parametrize(
    "section",
    [
        "**None.** Clean, complete replacement with no regressions introduced.\n",
        "None. The change is minimal and well-tested, no side effects observed.\n",
        "None found. Correct and complete.\n",
    ],
)
def test_a_findings_title_over_nothing_found_is_no_verdict(section: str) -> None:
    assert parse_verdict(_review(section, "\n## Notes\n\nRan on Python 3.12.\n")).decision is A


@pytest.mark.parametrize(
    "section",
    [
        "**None.** But the retry loop leaks memory under load.\n",
        "None. Well, one: the cache key is wrong and returns stale rows.\n",
        "None. Clean, but the cache key is wrong.\n",
        "None. No regressions (1 flaky test).\n",
        "None. The session table is never pruned.\n",
        "- The cache key is wrong.\n",
        "### 1. Leak\n\nThe pool is never closed.\n",
    ],
)
def test_anything_else_under_the_findings_title_still_refuses(section: str) -> None:
    assert parse_verdict(_review(section, "\n## Notes\n\nRan on Python 3.12.\n")).decision is not A


@pytest.mark.parametrize("after", ["", "\n## Notes\n\nRan on Python 3.12.\n"])
def test_a_findings_title_over_no_line_still_refuses(after: str) -> None:
    assert parse_verdict(_review("", after)).decision is not A


_OTHER = st.sampled_from(
    ["leaks", "wrong", "missing", "but", "except", "one", "todo", "slow", "racy", "broken"]
)


@given(other=_OTHER, at=st.integers(min_value=0, max_value=4))
def test_a_word_outside_the_closed_restatement_keeps_the_title(other: str, at: int) -> None:
    words = ["clean", "complete", "replacement", "with", "no", "regressions"]
    words.insert(at, other)
    section = f"**None.** {' '.join(words).capitalize()}.\n"
    review = _review(section, "\n## Notes\n\nRan on Python 3.12.\n")
    assert parse_verdict(review).decision is not A
