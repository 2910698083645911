"""A heading that negates its finding noun (issue 23): GSD's '## Verification of scope items
(no findings)' names what was verified, not findings. It was graded as a findings heading,
so its bullets (which carry file names) read as findings the approval had not weighed. Such
a heading is now read like the same heading without the parenthesis: the declaration is not
trusted to approve, its items are read as under any neutral heading (a labelled issue, an
open task box or a stated defect there still refuses), and a heading that names findings
beside a negated other noun ('Findings (no regressions)') still names findings."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(heading: str, item: str) -> str:
    return (
        "# Phase 3: Code Review Report\n\n**Verdict:** APPROVE\n\n"
        "No Critical or Warning findings.\n\n"
        f"## {heading}\n\n"
        "- **Login path intact:** `auth/login.ts` keeps the token check; the diff is additive.\n"
        f"- {item}\n"
    )


_CLEAN_ITEM = "**Podfile:** `ios/Podfile` sets the platform to 15.0 only."


@pytest.mark.parametrize(
    "heading",
    [
        "Verification of scope items (no findings)",
        "Scope checks — no issues found",
        "Checked areas (zero findings)",
    ],
)
def test_a_heading_that_negates_its_finding_noun_is_not_a_findings_heading(heading: str) -> None:
    verdict = parse_verdict(_review(heading, _CLEAN_ITEM))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("heading", "item"),
    [
        ("Verification of scope items (no findings)", "**Issue:** `auth.py:12` leaks the token"),
        ("Verification of scope items (no findings)", "[ ] rotate the key in `auth.py`"),
        ("Verification of scope items (no findings)", "The migration drops the users table."),
        ("Findings (no regressions)", _CLEAN_ITEM),
        ("Issues found — no new ones", _CLEAN_ITEM),
    ],
)
def test_items_under_it_are_still_read(heading: str, item: str) -> None:
    verdict = parse_verdict(_review(heading, item))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
