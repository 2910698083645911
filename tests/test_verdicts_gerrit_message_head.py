"""Gerrit's change page, copied: each message under a header of its author and date.

Before, a review copied from the change page (`review-agent            Nov 26 14:03`, then
`Patch Set 3: Code-Review+2` and the message) was `malformed`: the header line was prose
above the verdict. The header is Gerrit's own frame of a message, accounted for when it
stands directly above the message's `Patch Set N:` line and its name is a name (capitalised
words or handles, at most four); its author is the reviewer of the votes below it, so the
per-reviewer counting applies. A line in a header's shape that is not one (a lower-case
sentence, a problem, nothing below it that opens a message) stays with the generic reader.
Documents here are synthetic, written for these tests.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

_PAD = " " * 30


def _message(name: str, when: str, patch_set: int, votes: str, body: str = "") -> str:
    text = f"  {name}{_PAD}{when}\n  Patch Set {patch_set}: {votes}\n"
    return text + (f"\n  {body}\n" if body else "")


def _page(*messages: str) -> str:
    return "\n".join(messages)


GENUINE = [
    # one reviewer: -1 on patch set 4, +2 on patch set 5
    _page(
        "Patch Set 4:\n",
        _message("lint-reviewer", "Mar 3 09:12", 4, "Code-Review-1"),
        "Patch Set 5:\n",
        _message("lint-reviewer", "Mar 3 11:40", 5, "Code-Review+2", "Looks good now."),
    ),
    # a bot's Verified+1 and a person's +2, the dates in other forms Gerrit shows
    _page(
        _message("ci-bot", "2:03 PM", 7, "Verified+1"),
        _message("Ana Lopes", "Mar 3, 2025 14:05", 7, "Code-Review+2", "Ship it."),
    ),
    _page(_message("Max", "2025-03-03 14:05", 2, "Code-Review+2")),
]

REFUSED = [
    # the header's author asks for changes on the current patch set
    (_page(_message("lint-reviewer", "Mar 3 11:40", 5, "Code-Review-1", "Retry loop leaks.")), F),
    # a -2 stays on newer patch sets until its reviewer votes again
    (
        _page(
            _message("Sec Team", "Mar 2 10:00", 4, "Code-Review-2"),
            _message("lint-reviewer", "Mar 3 11:40", 5, "Code-Review+2"),
        ),
        R,
    ),
    # a Verified-1 on the current patch set
    (
        _page(
            _message("ci-bot", "Mar 3 11:30", 5, "Verified-1"),
            _message("lint-reviewer", "Mar 3 11:40", 5, "Code-Review+2"),
        ),
        F,
    ),
]


@pytest.mark.parametrize("text", GENUINE)
def test_change_page_messages_that_approve(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(("text", "expected"), REFUSED)
def test_change_page_messages_that_do_not_approve(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons


@pytest.mark.parametrize(
    "head",
    [
        "Do Not Merge" + _PAD + "Mar 3 11:40",  # a problem in the name's place
        "merge after the ci run" + _PAD + "Mar 3 11:40",  # a lower-case sentence
        "Wait For The Security Review Please" + _PAD + "Mar 3 11:40",  # too long for a name
    ],
)
def test_a_header_shape_that_is_not_a_name_is_still_read(head: str) -> None:
    """Above an older message, so the generic reader sees it as prose above the verdict."""
    text = _page(
        f"  {head}\n  Patch Set 4: Code-Review+1\n",
        _message("lint-reviewer", "Mar 3 11:50", 5, "Code-Review+2"),
    )
    assert parse_verdict(text).decision is not A


def test_a_header_with_no_message_below_is_not_one() -> None:
    text = _page(
        f"  lint-reviewer{_PAD}Mar 3 11:40\n\n  The retry loop leaks a connection per attempt.\n",
        _message("lint-reviewer", "Mar 3 11:50", 5, "Code-Review+2"),
    )
    assert parse_verdict(text).decision is not A


@settings(max_examples=40, deadline=None)
@given(
    first=st.sampled_from([-2, -1, 0, 1, 2]),
    last=st.sampled_from([-2, -1, 0, 1, 2]),
    same=st.booleans(),
)
def test_header_authors_count_per_reviewer(first: int, last: int, same: bool) -> None:
    """Two messages on patch sets 4 and 5: the decision is Gerrit's count, with each
    header's author the reviewer of its votes."""
    second = "lint-reviewer" if same else "Ana Lopes"
    text = _page(
        _message("lint-reviewer", "Mar 3 09:12", 4, f"Code-Review{first:+d}"),
        _message(second, "Mar 3 11:40", 5, f"Code-Review{last:+d}"),
    )
    decision = parse_verdict(text).decision
    vetoed = first == -2 and not same
    if vetoed or last == -2:
        assert decision is R
    elif last == -1:
        assert decision is F
    elif last == 2:
        assert decision is A
    else:
        assert decision is M
