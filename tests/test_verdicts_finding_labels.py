"""A finding's label with a word that says it is still there (issue 23): 'Open bugs: 4' or
'Known issues: 1' after an approval approved, while 'Bugs: 2' did not; 'Vulnerabilities'
and 'Failures' were no labels at all. A record ('Fixed bugs: 3') and a grade ('Known
issues: none') still approve."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the change.\n\n**Verdict:** APPROVE\n\n"


@pytest.mark.parametrize(
    "line",
    [
        "Open bugs: 4",
        "Known issues: the export drops the header row",
        "**Unresolved security risks:** 1",
        "Vulnerabilities: 1",
        "Failures: 2",
        "Remaining blocking concerns: see the thread",
    ],
)
def test_a_finding_label_still_open_refuses(line: str) -> None:
    assert not parse_verdict(_HEAD + line + "\n").approved


@pytest.mark.parametrize(
    "line", ["Fixed bugs: 3", "Known issues: none", "Open issues: 0", "Remaining risks: low"]
)
def test_a_record_or_a_grade_approves(line: str) -> None:
    assert parse_verdict(_HEAD + line + "\n").approved
