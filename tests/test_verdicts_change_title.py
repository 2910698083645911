"""Issue 23: a change's title quoted in a heading names the change, not an example section.

`## Review — PR #2315 "Implement usage-based billing meter"` holds `usage`, an example
heading's word, only inside the pull request's title; the review under it is the reviewer's
(`_headings._without_change_title`). A heading whose own words name an example still does.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F = Decision.APPROVE, Decision.FIXES

TITLES = [
    '## Review — PR #2315 "Implement usage-based billing meter"',
    "## Code review: MR !12 “Add prompt template caching”",
    '## Review of change 4821 "Fix the example format parser"',
]


@pytest.mark.parametrize("heading", TITLES)
def test_a_quoted_change_title_makes_no_example_section(heading: str) -> None:
    refusing = f"{heading}\n\nThe aggregation window is wrong.\n\n**Verdict: Needs changes**\n"
    approving = f"{heading}\n\nSmall and well tested.\n\n**Verdict:** APPROVE\n"
    assert parse_verdict(refusing).decision is F
    assert parse_verdict(approving).decision is A


@pytest.mark.parametrize(
    "heading",
    ['## "Example output"', "## Example — PR #12", '## Usage of PR #12 "Fix parser"'],
)
def test_an_example_heading_outside_the_title_still_makes_one(heading: str) -> None:
    text = f"# Review\n\nSmall change.\n\n{heading}\n\n**Verdict:** APPROVE\n"
    assert parse_verdict(text).decision is not A
