"""An item after the approval that reports a check passed is evidence, not a finding
(`mergegate.verdicts._passed_reports`, issue 23 class 1): genuine approvals whose findings-
named section lists what was run and how it came out, and hostile twins in the same places
whose item says something failed, waits for something, or counts only part of the checks."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

TOP = (
    "# Review: retry cap for the HTTP client\n\n## Verdict\n\n**Verdict:** APPROVED\n\n"
    "All acceptance criteria are met and the diff matches the plan.\n\n"
)
# Headings a finding may stand under after the approval (they name findings or risks).
HEADINGS = ["## Regression check", "## Risks", "### Findings"]

PASSED = [
    "- Service tests passed with no regressions.",
    "- Type check: verified on commit 9f2c1d0",
    "- All 412 unit tests pass.",
    "- Integration suite still passes (no regression observed).",
    "- Compilation: ok on the pinned toolchain",
    "- Phase 3 / RETRY-01, RETRY-02 tests (in `tests/test_client.py`):\n  pass.",
    "Total client tests: 87. All pass.",
    "- The release build succeeded on both runners.",
]
NOT_PASSED = [
    "- Service tests failed on CI.",
    "- Service tests pass locally but fail on the arm runner.",
    "- Some client tests pass.",
    "- 9 of 12 client tests pass.",
    "- No tests passed.",
    "- Integration tests pass once the fixture lands.",
    "- Unit tests pass; the backoff never resets after a success.",
    "- Unit tests pass. The retry counter is never reset.",
    "- Smoke tests should pass after the config change.",
    "- Type check: verified, but the stubs are stale.",
]


@pytest.mark.parametrize("heading", HEADINGS)
@pytest.mark.parametrize("item", PASSED)
def test_a_passed_check_after_the_approval_is_evidence(item: str, heading: str) -> None:
    decision = parse_verdict(f"{TOP}{heading}\n\n{item}\n").decision
    assert decision is Decision.APPROVE


@pytest.mark.parametrize("heading", HEADINGS)
@pytest.mark.parametrize("item", NOT_PASSED)
def test_a_check_not_told_as_passed_is_still_a_finding(item: str, heading: str) -> None:
    decision = parse_verdict(f"{TOP}{heading}\n\n{item}\n").decision
    assert decision is not Decision.APPROVE


# Issue 23 class 2: a blocking section's item that says every criterion holds, or that a
# check passed, names nothing still to do.
BLOCKING_TOP = "# Review: retry cap\n\n{heading}\n\n{item}\n\n## Verdict\n\n**Verdict:** APPROVED\n"
BLOCKING_HEADINGS = ["## Blocking issues", "### Critical (must fix)"]
NOTHING_TO_DO = [
    "- All acceptance criteria fully met.",
    "- Every success criterion is satisfied.",
    "- All must-haves verified.",
    "- All 58 integration tests pass on the release branch.",
]
STILL_TO_DO = [
    "- All acceptance criteria met except the export path.",
    "- Not all acceptance criteria are met.",
    "- Most acceptance criteria are met.",
    "- All acceptance criteria met once the flag lands.",
    "- All acceptance criteria must be met.",
    "- All must-haves must be verified first.",
    "- All acceptance criteria met; the backoff never resets.",
]


@pytest.mark.parametrize("heading", BLOCKING_HEADINGS)
@pytest.mark.parametrize("item", NOTHING_TO_DO)
def test_a_blocking_item_that_says_all_holds_blocks_nothing(item: str, heading: str) -> None:
    text = BLOCKING_TOP.format(heading=heading, item=item)
    assert parse_verdict(text).decision is Decision.APPROVE


@pytest.mark.parametrize("heading", BLOCKING_HEADINGS)
@pytest.mark.parametrize("item", STILL_TO_DO)
def test_a_blocking_item_that_leaves_work_still_blocks(item: str, heading: str) -> None:
    text = BLOCKING_TOP.format(heading=heading, item=item)
    assert parse_verdict(text).decision is not Decision.APPROVE
