"""A BMAD gate file's own fields beside `gate: PASS` (issue 23): an NFR that FAILs, an active
waiver, and must-fix or immediate work keep the PASS from approving, however YAML spells
them (block or flow style, any case); an NFR at CONCERNS, uncovered `ac_gaps` and future
recommendations are the reviewer's call and leave it."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = (
    'schema: 1\nstory: "2.3"\ngate: PASS\nstatus_reason: "All ACs met."\n'
    'reviewer: "Quinn (Test Architect)"\nupdated: "2026-11-27T10:00:00Z"\ntop_issues: []\n'
)


@pytest.mark.parametrize(
    "fields",
    [
        "nfr_validation:\n  security:\n    status: FAIL\n    notes: 'tokens outlive the user'\n",
        "nfr_validation:\n  security: { status: fail }\n  performance: { status: PASS }\n",
        "waiver:\n  active: true\n  reason: 'rate limiting deferred'\n",
        "waiver: { active: true, reason: 'deferred' }\n",
        "risk_summary:\n  recommendations:\n    must_fix:\n      - 'rotate the key'\n",
        "recommendations:\n  immediate:\n    - action: 'Add the missing index'\n",
    ],
)
def test_a_field_that_says_the_pass_is_not_whole_refuses(fields: str) -> None:
    verdict = parse_verdict(_HEAD + fields)
    assert verdict.decision is Decision.FIXES, verdict.reasons
    assert verdict.evidence is not None


@pytest.mark.parametrize(
    "fields",
    [
        "waiver: { active: false }\n",
        "nfr_validation:\n  security: { status: PASS }\n  reliability: { status: CONCERNS }\n",
        "evidence:\n  trace:\n    ac_covered: [1, 2]\n    ac_gaps: [3]\n",
        "recommendations:\n  immediate: []\n  future:\n    - action: 'Consider caching'\n",
        "risk_summary:\n  recommendations:\n    must_fix: []\n    monitor: ['latency']\n",
    ],
)
def test_the_reviewers_own_calls_leave_the_pass(fields: str) -> None:
    verdict = parse_verdict(_HEAD + fields)
    assert verdict.decision is Decision.APPROVE, verdict.reasons
