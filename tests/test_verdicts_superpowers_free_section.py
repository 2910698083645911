"""Strictly, prose under a heading superpowers' template does not have must appraise (issue 23).

The code-reviewer template holds, from its Issues to its `**Ready to merge?**` answer, only
its severity sections, `Recommendations` and `Assessment`. A defect told as a plain fact in
an extra section there (`### Observations` / 'The retry loop never backs off.') approved
under the strict reading: no reader weighed it. Now such a line must appraise the change
(`_appraisal`), or the review is `malformed` (the hook asks for a restatement). The default
reading, the template's own sections and a preamble above the Issues are read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
M = Decision.MALFORMED


def _review(extra: str, *, preamble: str = "") -> str:
    return (
        f"{preamble}### Strengths\n\n- Clear naming in the scheduler.\n\n### Issues\n\n"
        "#### Critical (Must Fix)\n\nNone.\n\n#### Important (Should Fix)\n\nNone.\n\n"
        "#### Minor (Nice to Have)\n\n- Inline the `_tick` helper.\n\n"
        f"{extra}### Assessment\n\n**Ready to merge?** Yes\n\n"
        "**Reasoning:** Focused change with good coverage.\n"
    )


STATED_DEFECTS = [
    "### Observations\n\nThe retry loop never backs off when the broker is down.\n\n",
    "### Notes for the author\n\n- Session tokens are written to the debug log.\n\n",
    "### Testing\n\nThe migration drops the `archived` column without a backup.\n\n",
]


@pytest.mark.parametrize("extra", STATED_DEFECTS)
def test_a_plain_fact_in_an_extra_section_is_malformed_strictly(extra: str) -> None:
    verdict = parse_verdict(_review(extra), strict=True)
    assert verdict.decision is M, verdict.reasons


@pytest.mark.parametrize("extra", STATED_DEFECTS[:2])
def test_the_default_reading_is_unchanged(extra: str) -> None:
    assert parse_verdict(_review(extra)).decision is A


@pytest.mark.parametrize(
    "extra",
    [
        "",
        "### Recommendations\n\n- Consider a metric for skipped ticks.\n\n",
        "### Observations\n\nNo regressions found; the scheduler tests all pass.\n\n",
    ],
)
def test_template_sections_and_appraisals_still_approve_strictly(extra: str) -> None:
    verdict = parse_verdict(_review(extra), strict=True)
    assert verdict.decision is A, verdict.reasons


def test_a_preamble_above_the_issues_is_read_as_before() -> None:
    preamble = "## Code Review: scheduler tick\n\nReviewed commits a1b2c3..d4e5f6.\n\n"
    verdict = parse_verdict(_review("", preamble=preamble), strict=True)
    assert verdict.decision is A, verdict.reasons
