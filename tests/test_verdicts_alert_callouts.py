"""A GitHub alert (`> [!NOTE]`, `> [!TIP]` …) renders as the writer's own callout, not as a
quote. After the approval, an alert of any kind is read like the verdict's own section: a
sentence that withdraws, contradicts, conditions or blocks it, or one whose mood asks for
work or waits for an event, keeps the approval from standing — whichever alert kind carries
it (`docs/verdicts.md`, *What the approval has not weighed*)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
REVIEW = (
    "## Summary\n\nThe change moves session storage to Redis and adds expiry tests.\n\n"
    "## Verdict\n\n**Verdict:** APPROVED\n\n"
)
QUIET_KINDS = ["NOTE", "TIP"]
HELD = [
    "Land this only once the Redis cluster has persistence turned on.",
    "Before deploying, bump the session TTL back to 24 hours.",
    "Please hold the merge until ops has sized the cluster.",
    "Keep this out of main until the load test is repeated.",
    "Rename `SESSION_URL` to `REDIS_URL` first.",
]
AT_EASE = [
    "Old cookie sessions expire on their own within a day of the deploy.",
    "The expiry test uses a fake clock, so it runs in milliseconds.",
    "See the runbook for the Redis failover steps.",
]


@pytest.mark.parametrize("kind", QUIET_KINDS)
@pytest.mark.parametrize("held", HELD)
def test_a_hold_in_a_quiet_alert_after_the_yes_keeps_it_from_approving(
    kind: str, held: str
) -> None:
    verdict = parse_verdict(REVIEW + f"> [!{kind}]\n> {held}\n")
    assert verdict.decision is not A, verdict.reasons
    # whichever reader names it, the reason points at the alert's sentence
    assert f"line {REVIEW.count(chr(10)) + 2}" in verdict.reasons[0], verdict.reasons


@pytest.mark.parametrize("kind", QUIET_KINDS)
@pytest.mark.parametrize("note", AT_EASE)
def test_a_quiet_alert_that_tells_or_points_still_approves(kind: str, note: str) -> None:
    verdict = parse_verdict(REVIEW + f"> [!{kind}]\n> {note}\n")
    assert verdict.decision is A, verdict.reasons
