"""A check told as optional is no condition: 'is not required again unless the user wishes
to confirm the final state' offers a check a person may make; it waits for nothing. A GSD
verifier writes it in its `Human Verification Required` section under `status: passed` when
the human check was already made (issue 23: a genuine pass refused as `malformed`).

The shape is closed on both sides: a need negated (`not required`, `not needed`, `not
necessary`, `no longer needed`) right before `unless`, and after it a person (`the user`,
`you`, `someone` …) and a verb of wanting (`wishes`, `wants`, `prefers`, `would like`).
Any other `unless` is still a condition."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _report(prose: str) -> str:
    return (
        "---\nphase: 18-settings\nverified: 2026-04-02T10:00:00Z\nstatus: passed\n"
        "score: 11/11 must-haves verified\n---\n\n"
        "# Phase 18: Settings Verification Report\n\n"
        "**Phase Goal:** Users can change settings.\n**Status:** passed\n\n"
        "## Goal Achievement\n\n| # | Truth | Status |\n|---|---|---|\n"
        "| 1 | Settings persist | ✓ VERIFIED |\n\n"
        f"### Human Verification Required\n\n{prose}\n\n"
        "### Gaps Summary\n\nNo gaps.\n\n---\n\n"
        "_Verified: 2026-04-02T10:00:00Z_\n_Verifier: Claude (gsd-verifier)_\n"
    )


_OPTIONAL = [
    "The visual check was performed during plan execution and is not required again unless "
    "the user wishes to confirm the final state.",
    "Manual testing is not needed unless you want to see the dialog yourself.",
    "A second look in Safari is not necessary unless someone prefers to check it by hand.",
    "Re-running the walkthrough is no longer needed unless the team would like a recording.",
]


@pytest.mark.parametrize("prose", _OPTIONAL)
def test_a_check_told_as_optional_does_not_condition_a_pass(prose: str) -> None:
    verdict = parse_verdict(_report(prose))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


_CONDITIONS = [
    "Merging is fine unless the user wishes to keep the old flag.",
    "The visual check is not required unless the migration fails.",
    "The check is not required again unless the layout changes.",
    "Approved unless the user wants the export in UTC.",
    "Not required unless QA finds a regression.",
    "The check is required unless the user wishes otherwise.",
]


@pytest.mark.parametrize("prose", _CONDITIONS)
def test_any_other_unless_still_conditions_the_pass(prose: str) -> None:
    verdict = parse_verdict(_report(prose))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
