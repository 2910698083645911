"""Issue 23, session 21: SDD agent-log entries that write each task's two stages as
bold-labelled list items, the spec stage answered without its own name:

    - **Spec review:** ✅ compliant (independently verified all 6 requirement groups)
    - **Quality review:** ✅ APPROVED (no Critical/Important)

A list marker before the bold label is decoration; under the spec stage's label 'compliant'
is the spec reviewer's 'Spec compliant'. Both stages must still approve, in every task the
log records, and what follows an answer is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _log(spec: str, quality: str, *, more: str = "") -> str:
    return (
        "# SDD Ledger — Export Pipeline\n\n## Task Tracking\n\n"
        "### Task 1: Stream rows to CSV\n\n- **Status:** COMPLETED\n"
        f"- **Spec review:** {spec}\n- **Quality review:** {quality}\n{more}"
    )


@pytest.mark.parametrize(
    ("spec", "quality"),
    [
        ("✅ compliant (independently verified all 6 requirement groups)", "✅ APPROVED"),
        ("✅ compliant", "✅ APPROVED (no Critical/Important issues)"),
    ],
)
def test_list_item_stages_that_both_approve_approve_the_task(spec: str, quality: str) -> None:
    assert parse_verdict(_log(spec, quality)).decision is A


@pytest.mark.parametrize(
    ("spec", "quality", "more"),
    [
        ("❌ not compliant (header row missing)", "✅ APPROVED", ""),
        ("✅ compliant once the header row lands", "✅ APPROVED", ""),
        ("✅ non-compliant", "✅ APPROVED", ""),
        ("✅ compliant", "Needs changes (file handle leak)", ""),
        (
            "✅ compliant",
            "✅ APPROVED",
            "\n### Task 2: Gzip output\n\n"
            "- **Spec review:** PENDING\n- **Quality review:** PENDING\n",
        ),
    ],
)
def test_a_stage_that_does_not_approve_keeps_the_log_from_approving(
    spec: str, quality: str, more: str
) -> None:
    assert parse_verdict(_log(spec, quality, more=more)).decision is not A
