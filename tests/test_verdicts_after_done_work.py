"""`after` and work already done beside a check's result is history, not a condition (issue
23 class 4, `_awaited.told_after`, `_statement`): a result status reached after a noun phrase
naming work (`Status: clean after gap closure plans 22-06 and 22-07`, `PASSED after
fixes`), and a line that tells what was done after something (`Re-verified after gap
closure.`). A finite clause after `after` still waits (`after the fix lands`), and an
approval act keeps its own rule (`approved after the token fix` stays conditional)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

GSD_REVIEW = (
    "---\nstatus: clean\nfiles_reviewed: 6\ncritical: 0\nwarning: 0\ninfo: 0\ntotal: 0\n---\n\n"
    "# Code Review: Phase 31\n\n{status}\n\n## Summary\n\nNo findings in the six files.\n"
)
REPORT = (
    "# Test report: export pipeline\n\n{status}\n\n## Results\n\n"
    "| Suite | Result |\n|---|---|\n| unit | 214 passed |\n| e2e | 18 passed |\n"
)

HISTORY = [
    (GSD_REVIEW, "**Status:** clean after gap closure plans 31-04 and 31-05"),
    (GSD_REVIEW, "**Status:** clean after the second remediation pass over `export.py`"),
    (REPORT, "**Status:** PASSED after the schema migration"),
    (REPORT, "**Status:** passed after commit 7c1e0aa"),
    (REPORT, "**Status:** passed\n\nRe-verified after gap closure on the staging mirror."),
]
WAITING = [
    (GSD_REVIEW, "**Status:** clean after the lock fix lands"),
    (GSD_REVIEW, "**Status:** clean after PR 88 merges"),
    (REPORT, "**Status:** passed (after the flaky test is fixed)"),
    (REPORT, "**Status:** passed after tests pass on arm64"),
    (REPORT, "**Status:** passed (re-verified after the fix lands)"),
    (REPORT, "**Status:** approved after the token fix"),
    (REPORT, "**Status:** passed\n\nMerged after the rollback script lands."),
    (REPORT, "**Status:** passed\n\nMerge after the rollback script is reviewed."),
    (REPORT, "**Status:** passed (after fixes) but the rollback is missing"),
]


@pytest.mark.parametrize(("template", "status"), HISTORY)
def test_after_done_work_beside_a_result_is_history(template: str, status: str) -> None:
    assert parse_verdict(template.format(status=status)).decision is Decision.APPROVE


@pytest.mark.parametrize(("template", "status"), WAITING)
def test_after_an_event_still_to_come_is_a_condition(template: str, status: str) -> None:
    assert parse_verdict(template.format(status=status)).decision is not Decision.APPROVE
