"""An item under a heading of work done after an approval (`## Resolved`, `## Previous
findings`, `## Fixed`) is read, not trusted for its heading: one that says it is not done
(`NOT resolved`, `still open`, `unfixed`), or that carries a blocking grade without being
told as done, is a finding the approval has not weighed (`malformed`). Genuine twins — items
told as done, and ungraded records of work — still approve."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
OPENING = "## Verdict\n\nAPPROVE\n\n"
CLOSING_BODY = "## Summary\n\nThe change moves token handling into `auth/`.\n\n"
CLOSING = "**Ready to merge?** Yes\n\n"

NOT_DONE = [
    "## Resolved\n\n- C1 (critical, token in logs): NOT resolved — `billing/` still logs it.",
    "## Previous findings\n\n- F1 (critical): token logged in plain text — still open.",
    "## Fixed\n\n- I-2 (important): the retry cap is unfixed; see the thread.",
    "## Addressed\n\n- [P1] the race in `store.py` has not been fixed yet.",
    "## Prior round\n\n- **Critical:** the migration drops `users.phone`.",
]
DONE_TWINS = [
    "## Resolved\n\n- C1 (critical, token in logs): fixed in abc123.",
    "## Previous findings\n\n- F1 (critical): resolved — the token is masked now.",
    "## Fixed since the last review\n\n- Renamed the helper to `mask_token`.",
    "## Addressed\n\n- The retry cap test was added.",
]


@pytest.mark.parametrize("section", NOT_DONE)
@pytest.mark.parametrize("place", ["opening", "closing"])
def test_an_item_not_done_under_a_done_heading_is_not_approved(section: str, place: str) -> None:
    text = OPENING + section if place == "opening" else CLOSING_BODY + CLOSING + section
    verdict = parse_verdict(text + "\n")
    assert verdict.decision is not A, verdict.reasons
    assert not verdict.approved


@pytest.mark.parametrize("section", DONE_TWINS)
@pytest.mark.parametrize("place", ["opening", "closing"])
def test_an_item_told_as_done_under_a_done_heading_still_approves(section: str, place: str) -> None:
    text = OPENING + section if place == "opening" else CLOSING_BODY + CLOSING + section
    verdict = parse_verdict(text + "\n")
    assert verdict.decision is A, verdict.reasons
