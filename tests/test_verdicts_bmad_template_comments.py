"""A BMAD gate file keeps the comment lines of BMAD's own `qa-gate-tmpl.yaml` (issue 23):
`# Issues (if any) - Use fixed severity: low | medium | high` above `top_issues: []` is the
template's text, not the reviewer saying there are issues. Those exact lines are structure;
any other comment beside the gate is still read, and one that states a problem refuses."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _gate(comment: str, *, top_issues: str = "top_issues: []\n") -> str:
    return (
        "schema: 1\n"
        'story: "4.1"\n'
        'gate: "PASS"\n'
        'status_reason: "All acceptance criteria are met and covered by tests."\n'
        'reviewer: "Quinn (Test Architect)"\n'
        'updated: "2026-10-02T09:00:00Z"\n'
        "\n"
        "# Always present but only active when WAIVED\n"
        "waiver: { active: false }\n"
        "\n"
        f"{comment}\n"
        f"{top_issues}"
        "\n"
        "# Risk summary (from risk-profile task if run)\n"
        "risk_summary:\n"
        "  totals: { critical: 0, high: 0, medium: 0, low: 0 }\n"
        "  recommendations:\n"
        "    must_fix: []\n"
        "    monitor: []\n"
    )


@pytest.mark.parametrize(
    "comment",
    [
        "# Issues (if any) - Use fixed severity: low | medium | high",
        "#  issues (if any) -  use fixed severity: LOW | MEDIUM | HIGH",
        "# 问题（如果有） - 使用固定的严重性：low | medium | high",
        "# Required fields (keep these first)",
    ],
)
def test_the_templates_own_comment_lines_are_structure(comment: str) -> None:
    verdict = parse_verdict(_gate(comment))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "comment",
    [
        "# Issues found: the token is never rotated",
        "# Issues (if any) - Use fixed severity: low | medium | high; do not merge yet",
        "# Do not merge until the migration is reverted",
        "# Blocked: waiting on the security review",
    ],
)
def test_any_other_comment_that_states_a_problem_still_refuses(comment: str) -> None:
    verdict = parse_verdict(_gate(comment))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_the_template_comment_does_not_hide_an_issue_in_the_list() -> None:
    issues = "top_issues:\n  - id: SEC-001\n    severity: high\n    finding: 'no rate limit'\n"
    verdict = parse_verdict(
        _gate("# Issues (if any) - Use fixed severity: low | medium | high", top_issues=issues)
    )
    assert verdict.decision is Decision.FIXES, verdict.reasons
