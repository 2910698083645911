"""A count of blocking findings above zero keeps an approval from approving, whatever the
label's length: 'Critical issues: 2' was read as the label 'critical' with no count after it
(the alternation took its shortest alternative) and approved. Zero counts still approve."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(count_line: str) -> str:
    return f"## Review result\n\n{count_line}\n\nVerdict: APPROVE\n"


@pytest.mark.parametrize(
    "line",
    [
        "Critical issues: 2",
        "Critical findings: 1",
        "Critical count: 3",
        "Blocking issues: 2",
        "Blocking issues: 2 (see the inline comments)",
        "Blocking findings: 1",
        "- **Critical issues:** 1",
        "Blocking issues: ٢",  # Arabic-Indic digits are digits
        "Criticals: 4",
    ],
)
def test_a_blocking_count_above_zero_is_blocking(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is Decision.FIXES, verdict.reasons


@pytest.mark.parametrize(
    "line", ["Critical issues: 0", "Blocking issues: 0 (none found)", "Blocking findings: 0"]
)
def test_a_zero_count_still_approves(line: str) -> None:
    assert parse_verdict(_review(line)).decision is Decision.APPROVE
