"""Issue 23, session 20: the BMAD QA Results template's `### Recommended Status` section.

The template ends the reviewer's QA Results with '### Gate Status' (the gate line) and
'### Recommended Status' holding one of two values: '✓ Ready for Done' or '✗ Changes Required
- See unchecked items above'. The first agrees with a PASS gate and is accounted for; the
second blocks; anything else in the section is read like any text after the approval.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _qa_results(recommended: str) -> str:
    return (
        "## QA Results\n\n### Review Date: 2026-04-03\n\n"
        "### Reviewed By: Quinn (Test Architect)\n\n"
        "### Code Quality Assessment\n\nThe exporter keeps one writer per batch; tests cover "
        "the empty batch.\n\n### Compliance Check\n\n- All ACs Met: ✓ All 5 acceptance criteria "
        "validated\n\n### Gate Status\n\nGate: PASS → docs/qa/gates/3.2-export-batches.yml\n\n"
        f"### Recommended Status\n\n{recommended}\n"
    )


@pytest.mark.parametrize("value", ["✓ Ready for Done", "[✓ Ready for Done]", "**Ready for Done**"])
def test_ready_for_done_after_a_pass_gate_approves(value: str) -> None:
    assert parse_verdict(_qa_results(value)).decision is A


@pytest.mark.parametrize(
    "value",
    [
        "✗ Changes Required - See unchecked items above",
        "[✗ Changes Required]",
        "✓ Ready for Done once the export flag is renamed",
        "✓ Ready for Done\n\nRename the export flag first.",
    ],
)
def test_any_other_recommended_status_keeps_the_pass_from_approving(value: str) -> None:
    assert parse_verdict(_qa_results(value)).decision is not A


# Session 22 (issue 23): the value with the reviewer's reason after a dash or colon. The
# heading is the template's; the line is read like any text after the approval.
@pytest.mark.parametrize(
    "value",
    [
        "✓ Ready for Done - every acceptance criterion is met and covered by tests",
        "✓ Ready for Done — l'implémentation est complète",
        "**Ready for Done**: the exporter is complete and well tested",
    ],
)
def test_ready_for_done_with_its_reason_approves(value: str) -> None:
    verdict = parse_verdict(_qa_results(value))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    "value",
    [
        "✓ Ready for Done - after the export flag is renamed",
        "✓ Ready for Done - pending the security sign-off",
        "✓ Ready for Done: do not merge until QA re-runs",
        "✓ Ready for Done - Changes Required for the CSV path",
        "✓ Ready for Done - see notes\n\nRename the export flag first.",
    ],
)
def test_a_reason_that_qualifies_ready_for_done_keeps_it_from_approving(value: str) -> None:
    assert parse_verdict(_qa_results(value)).decision is not A
