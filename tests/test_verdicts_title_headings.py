"""A heading that opens with a yes and goes on is a title naming its section ('### Passed
checks', '### 通过项汇总', '## Approved changes'): it is no verdict, so it neither approves nor
makes an approving document malformed. A labelled heading ('## Verdict: APPROVED — team') and
a heading that qualifies its yes ('## Approved after CI is green') are still read."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_TITLES = [
    "### Passed checks",
    "### 通过项汇总",
    "## Approved changes in this task",
    "### Passed Items Summary",
]


def _review(title: str) -> str:
    return (
        "# Review of task 4\n\n## Overall verdict\n\n**APPROVED**\n\n"
        f"{title}\n\n- The parser handles the empty input.\n- The tests cover each branch.\n"
    )


@pytest.mark.parametrize("title", _TITLES)
def test_a_title_that_opens_with_a_yes_is_not_a_verdict(title: str) -> None:
    verdict = parse_verdict(_review(title))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("title", _TITLES)
def test_a_title_alone_approves_nothing(title: str) -> None:
    text = f"# Review of task 4\n\n{title}\n\n- The parser handles the empty input.\n"
    assert parse_verdict(text).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "heading",
    [
        "## Approved after CI is green",
        "## Approved for the frontend only",
        "## Approved, pending the security review",
    ],
)
def test_a_heading_that_qualifies_its_yes_still_counts(heading: str) -> None:
    text = f"# Review of task 4\n\n{heading}\n\n- The parser handles the empty input.\n"
    assert parse_verdict(text).decision is not Decision.APPROVE
    with_verdict = _review(heading)
    assert parse_verdict(with_verdict).decision is not Decision.APPROVE
