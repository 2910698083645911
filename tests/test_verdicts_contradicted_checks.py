"""A check mark is decoration its words can contradict: `- Load test not run ✅` and
`- DBA sign-off pending ✅` are open checks, wherever they stand in the deciding round (a
checklist above the verdict, a line after it), so the approval has not weighed them
(`malformed`). Checks whose words say they passed — including a failure word under a 'no'
(`No failing tests ✅`) — still approve, and so do checks whose 'not' denies the converse
(`Adapters depend on the domain, not vice versa ✅`): the reverse is what is not so."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
VERDICT = "**Verdict:** APPROVED\n"

OPEN = [
    "Load test not run",
    "DBA sign-off pending",
    "E2E skipped",
    "Migration failed",
    "Docs TODO",
    "Web depends on core, not vice versa; e2e not run",
    "Not the other way round: load test pending",
]
PASSED = [
    "Unit tests",
    "Lint",
    "No failing tests",
    "Zero broken links",
    "Spec compliant",
    "Adapters depend on the domain, not vice versa",
    "Events flow from core to UI, not the other way around",
]


def _checklist(items: list[str]) -> str:
    return "## Checklist\n" + "".join(f"- {item} ✅\n" for item in items) + "\n"


@pytest.mark.parametrize("item", OPEN)
def test_an_open_check_marked_passed_above_the_verdict_is_not_approved(item: str) -> None:
    verdict = parse_verdict(_checklist(["Unit tests", item]) + VERDICT)
    assert verdict.decision is not A, verdict.reasons
    assert not verdict.approved


@pytest.mark.parametrize("item", OPEN)
def test_an_open_check_marked_passed_after_the_verdict_is_not_approved(item: str) -> None:
    verdict = parse_verdict(VERDICT + f"\n- {item} ✅\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("item", PASSED)
def test_a_passed_check_still_approves(item: str) -> None:
    above = parse_verdict(_checklist(["Unit tests", item]) + VERDICT)
    after = parse_verdict(VERDICT + f"\n- {item} ✅\n")
    assert above.decision is A, above.reasons
    assert after.decision is A, after.reasons
