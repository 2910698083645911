"""Issue 23, session 21: a GSD code review's info finding headed 'INF-1' instead of 'IN-01'.

Reviewers spell the template's info prefix both ways. An 'INF-n' block is the template's
own info finding, graded as 'IN-nn' is: accounted for unless graded higher in its Severity
field or a line of it states a problem. Other prefixes ('INFRA-1', 'INFO: …') are not it.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(finding: str) -> str:
    return (
        "---\nstatus: clean\nfiles_reviewed: 3\ncritical: 0\nwarning: 0\ninfo: 1\ntotal: 1\n"
        "---\n\n# Code Review: Phase 05 (tokenizer)\n\n## Findings\n\n"
        f"{finding}\n## Review Summary\n\nThe tokenizer is sound; the info item does not block.\n"
    )


_INF = (
    "### INF-1: Unicode digits are not normalised\n"
    "- **File**: `src/tokenize.py`\n"
    "- **Description**: `str.isdigit` accepts superscripts; consider `isdecimal` instead.\n"
)


def test_an_inf_heading_is_the_templates_info_finding() -> None:
    assert parse_verdict(_review(_INF)).decision is A


@pytest.mark.parametrize(
    "finding",
    [
        _INF + "- **Severity**: Critical\n",
        _INF + "- This must be fixed before merge.\n",
        _INF.replace("INF-1", "INFRA-1"),
    ],
)
def test_a_graded_higher_or_other_heading_is_read_as_before(finding: str) -> None:
    assert parse_verdict(_review(finding)).decision is not A
