"""The newest round decides (README: "several reviews in one document: the last one
decides"). A round heading below every verdict of the document opens a later review that
says no yes of its own — findings, questions or nothing — so the earlier approval is not the
document's verdict: `malformed`, never `approve`. A frontmatter verdict is the file's record,
its body rounds included; only a body record shown to be newer (`_dated`) overrides it."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
M = Decision.MALFORMED

EARLIER_YES = (
    "# Review: cron scheduler\n\n## Findings\nNone.\n\n## Verdict\n\n**Verdict:** APPROVED\n\n"
    "Tests cover overlapping runs.\n\n"
)
LATER_ROUNDS = [
    "## Re-review after the force-push",
    "## Second pass",
    "## Follow-up review",
    "## Addendum",
    "## Round 3",
]
LATER_BODIES = [
    "- `cron/run.py:88` — the lock is now taken twice and the second call deadlocks.\n",
    "The new commit moved the schedule parser into `cron/parse.py`; the tz offset is "
    "applied twice there.\n",
    "I have a question about the retry cap in `cron/retry.py`.\n",
]


@pytest.mark.parametrize("heading", LATER_ROUNDS)
@pytest.mark.parametrize("body", LATER_BODIES)
def test_a_later_round_without_a_verdict_keeps_the_earlier_yes_from_deciding(
    heading: str, body: str
) -> None:
    verdict = parse_verdict(EARLIER_YES + heading + "\n\n" + body)
    assert verdict.decision is M, verdict.reasons
    assert "later round" in verdict.reasons[0]


@pytest.mark.parametrize("heading", LATER_ROUNDS)
def test_a_later_round_with_its_own_yes_approves(heading: str) -> None:
    text = EARLIER_YES + heading + "\n\nThe offset is applied once now.\n\n**Verdict:** APPROVED\n"
    assert parse_verdict(text).decision is A


def test_a_section_that_is_not_a_round_after_the_yes_still_approves() -> None:
    text = EARLIER_YES + "## Notes\n\nThe scheduler logs each run at INFO.\n"
    assert parse_verdict(text).decision is A


def test_a_frontmatter_verdict_records_the_rounds_of_its_body() -> None:
    text = (
        "---\nstatus: clean\nfindings:\n  critical: 0\n  warning: 0\n---\n\n"
        "# Phase 3: Code Review Report\n\n**Status:** clean\n\n## Summary\n\n"
        "All reviewed files meet the standards.\n\n## Round 2 Fix Confirmation\n\n"
        "Confirmed the two fixes from round 1 are present and tested.\n"
    )
    assert parse_verdict(text).decision is A
