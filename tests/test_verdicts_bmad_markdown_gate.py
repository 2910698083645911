"""A BMAD gate written in Markdown (`docs/qa/gates/1.2-….md`): `## Gate Status: PASS`, then
`## Top Issues` blocks (`### 1. TEST-001: …` with `- **Severity**: resolved`), a `## Risk
Summary` of counts and the template's other sections. It was read by the generic reader
only — the gate heading was no gate field, a closed issue's `**Finding**:` line a finding —
and a genuine PASS was `malformed` (issue 23). The heading is the gate field; an issue
block whose severity closes it (resolved, closed, fixed, done) or grades it low is the
record a gate file's `top_issues` holds, one graded medium or above blocks; the risk counts
are `risk_summary.totals` (a critical one blocks). In a YAML gate file a `#` line stays a
comment: a gate commented out is no gate (`malformed`)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_GATE = """# Quality Gate Decision: 1.2 - Parser

## Gate Status: {gate}

## Story Information
- **Story**: 1.2 - Expression parser
- **Reviewer**: Quinn (Test Architect)
- **Date**: 2026-02-01

## Status Reason
The parser meets all acceptance criteria with coverage above 90%.

## Top Issues

### 1. TEST-001: Coverage check not automated
- **Severity**: {severity}
- **Finding**: {finding}
- **Resolution**: Coverage now runs in the standard test suite

## NFR Validation
- **Security**: PASS - No security concerns
- **Reliability**: PASS - Error handling covered

## Risk Summary
- Critical risks: {critical}
- High risks: 1 (TECH-001: Expression parsing complexity)
- Low risks: 0

## Recommendations

### Immediate (Must fix before production)
- {immediate}

### Future (Can be addressed later)
- Add benchmarks for long expressions
"""


def _gate(**fields: str) -> str:
    values = {
        "gate": "PASS",
        "severity": "resolved",
        "finding": "Coverage verification now runs without environment variables",
        "critical": "0",
        "immediate": "None - All critical issues have been resolved",
    }
    values.update(fields)
    return _GATE.format(**values)


@pytest.mark.parametrize("severity", ["resolved", "closed", "fixed", "done", "low"])
def test_a_markdown_gate_whose_issues_are_closed_or_low_approves(severity: str) -> None:
    verdict = parse_verdict(_gate(severity=severity))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
    assert verdict.dialect == "bmad"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"gate": "CONCERNS"}, Decision.FIXES),
        ({"gate": "FAIL"}, Decision.REJECT),
        ({"severity": "high"}, Decision.FIXES),
        ({"severity": "medium"}, Decision.FIXES),
        ({"severity": "unclear"}, Decision.FIXES),
        ({"critical": "1"}, Decision.FIXES),
        ({"immediate": "Add rate limiting to the parser endpoint"}, Decision.FIXES),
    ],
)
def test_what_blocks_a_gate_file_blocks_a_markdown_gate(
    fields: dict[str, str], expected: Decision
) -> None:
    verdict = parse_verdict(_gate(**fields))
    assert verdict.decision is expected, verdict.reasons


def test_a_closed_issue_that_states_a_problem_now_is_still_read() -> None:
    verdict = parse_verdict(_gate(finding="The parser crashes on empty input"))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_an_issue_block_without_a_severity_blocks() -> None:
    text = _gate().replace("- **Severity**: resolved\n", "")
    assert parse_verdict(text).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "text",
    [
        'schema: 1\nstory: "1.1"\n# gate: PASS\nstatus_reason: "ok"\ntop_issues: []\n',
        'schema: 1\nstory: "1.1"\n## Gate Status: PASS\ntop_issues: []\n',
        '# Gate: PASS\ngate:\n  story_id: "1.1"\n',
    ],
    ids=["commented-out", "heading-in-yaml", "mapping-without-value"],
)
def test_in_a_yaml_gate_file_a_hash_line_is_a_comment_not_the_gate(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
