"""Clean results that are genuine approvals, each with hostile twins that must not approve:
a findings heading over an empty list ('### Issues Found' / 'None.') is the title of an empty
section, not a request for fixes; the superpowers spec reviewer's own result line ('✅ Spec
compliant', optionally with 'all requirements met, nothing extra') is its verdict."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

EMPTY_FINDINGS_SECTION = {
    "issues_found_none": "## Review\n\n### Issues Found\nNone.\n\n### Verdict\nAPPROVE\n",
    "problems_none_found": "### Problems found\n- None found\n\n**Verdict:** APPROVED\n",
    "issues_na": "## Issues found\n\nN/A\n\n## Verdict\n\nLGTM\n",
    "issues_chinese": "## Issues found\n\n无\n\n## 结论\n\n通过\n",
}
NON_EMPTY_FINDINGS_SECTION = {
    "none_but": "### Issues Found\nNone. But the cache key is wrong.\n\n### Verdict\nAPPROVE\n",
    "a_finding": "### Issues Found\n- The cache key is wrong.\n\n### Verdict\nAPPROVE\n",
    "none_then_finding": (
        "### Issues Found\nNone.\n- The cache key is wrong.\n\n### Verdict\nAPPROVE\n"
    ),
    "nothing_under_it": "### Issues Found\n\n### Verdict\nAPPROVE\n",
}
SPEC_COMPLIANT = {
    "alone": "✅ Spec compliant\n",
    "bold_in_section": (
        "## Spec Compliance Review\n\n**✅ Spec compliant**\n\n"
        "All 5 requirements implemented; nothing extra.\n"
    ),
    "verdict_heading": (
        "## Verdict: ✅ Spec compliant\n\n| Check | Result |\n|---|---|\n| tests | ✅ |\n"
    ),
    "with_reason": "✅ Spec compliant — all requirements met, nothing extra\n",
}
NOT_SPEC_COMPLIANT = {
    "issues": "❌ Issues found:\n- Missing the --dry-run flag (cli.py:40)\n",
    "not": "**Verdict:** Not spec compliant — the export is missing\n",
    "but": "✅ Spec compliant — all requirements met, but the export is missing\n",
    "question": "Spec compliant? Not quite: the flag is missing.\n",
    "non_compliant": "**Status:** ❌ Spec non-compliant\n",
}


@pytest.mark.parametrize("name", sorted(EMPTY_FINDINGS_SECTION))
def test_a_findings_heading_over_an_empty_list_does_not_block(name: str) -> None:
    verdict = parse_verdict(EMPTY_FINDINGS_SECTION[name])
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("name", sorted(NON_EMPTY_FINDINGS_SECTION))
def test_a_findings_heading_over_content_still_blocks(name: str) -> None:
    verdict = parse_verdict(NON_EMPTY_FINDINGS_SECTION[name])
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("name", sorted(SPEC_COMPLIANT))
def test_the_spec_reviewers_clean_result_approves(name: str) -> None:
    verdict = parse_verdict(SPEC_COMPLIANT[name])
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("name", sorted(NOT_SPEC_COMPLIANT))
def test_a_spec_result_with_issues_does_not_approve(name: str) -> None:
    verdict = parse_verdict(NOT_SPEC_COMPLIANT[name])
    assert verdict.decision is not A, verdict.reasons
