"""Counts of blocking findings a reader sees wherever they stand on a line and however they
are written (issue 23): 'Findings — Critical: 2, Minor: 0' counts two critical findings as
much as 'Critical: 2' at the start of a line does, and so do 'Critical: ²', 'Blockers: two'
and '阻塞问题：两个'. A zero, however written, is a zero."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_YES = "\n\n### Assessment\n\n**Ready to merge?** Yes\n"


@pytest.mark.parametrize(
    "line",
    [
        "Findings — Critical: 2, Minor: 0",
        "Summary (critical: 1; minor: 3)",
        "Totals | Blockers: 4 | Nits: 2",
        "Findings — Critical: \u00b2, Minor: 0",
        "Blockers: two",
        "阻塞问题：两个（见下方评论）",
        "问题统计，严重问题：三",
    ],
)
def test_a_count_of_blocking_findings_anywhere_on_the_line_refuses(line: str) -> None:
    verdict = parse_verdict("## Summary\n\n" + line + _YES)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "Findings — Critical: 0, Minor: 2",
        "Summary (critical: none; minor: 3)",
        "Totals | Blockers: 0 | Nits: 2",
        "阻塞问题：无",
        "All 3 critical paths are covered by tests.",
    ],
)
def test_a_zero_count_leaves_the_approval(line: str) -> None:
    verdict = parse_verdict("## Summary\n\n" + line + _YES)
    assert verdict.decision is Decision.APPROVE, verdict.reasons
