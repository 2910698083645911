"""A round number with the revision it reviews beside it — a commit id, `after commit …`,
`since the rebase`, `at <sha>` — still names a new review, not a section: the revision is
what the round read, not a part of the change (`_headings._about_the_review`). Such a round
replaces an earlier no when it approves (and, below every verdict, is a newer review with
no yes of its own: `test_verdicts_newest_round`)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
REVISED = [
    "## Round 2 (after commit 4be07c1)",
    "## Round 3 — at 0d9e8f7a",
    "## Round 2, since the rebase",
    "## Round 2 after the force-push",
]
NO_FIRST = (
    "## Round 1\n\n- `queue/ack.py:31` acknowledges before the handler runs.\n\n"
    "**Verdict:** CHANGES REQUESTED\n\n"
)


@pytest.mark.parametrize("heading", REVISED)
def test_a_round_at_a_revision_replaces_the_earlier_no(heading: str) -> None:
    text = NO_FIRST + heading + "\n\nThe ack moved after the handler.\n\n**Verdict:** APPROVED\n"
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("heading", ["## Round 2 notes", "## Round 2: cafe babe"])
def test_a_round_number_beside_other_words_is_still_a_section(heading: str) -> None:
    text = NO_FIRST + heading + "\n\nThe ack moved after the handler.\n\n**Verdict:** APPROVED\n"
    assert parse_verdict(text).decision is not A
