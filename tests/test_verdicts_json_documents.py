"""A whole-output JSON verdict document of another tool is accounted for key by key
(`mergegate.verdicts._jsondoc`): every verdict key at any depth decides together, and an
approval stands only when every other key is a place a review writes and says nothing
against it. Each hostile class approved before; each has genuine twins in the same shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _doc(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


# A verdict key below the top level is a verdict of the review too: the worst decides.
NESTED = [
    {"approved": True, "review": {"verdict": "changes_requested", "reason": "tenant leak"}},
    {"approved": True, "final": {"approved": False, "reason": "second pass: rows deleted"}},
    {"status": "approved", "security": {"status": "failed"}},
]
# A key mergegate has no reading for, holding something: not accounted for.
UNKNOWN_KEYS = [
    {"lgtm": True, "scope": "packages/web only; packages/api not reviewed"},
    {"status": "approved", "merge_after": "2026-12-01"},
    {"decision": "approve", "required_changes": ["Remove the /__dump endpoint"]},
    {"decision": "approve", "blocked_by": ["#412 schema split"]},
    {"decision": "approve", "findings": [{"severity": "minor", "title": "t", "todo": "rotate"}]},
]
# A place a review writes, carrying what that place may not: a condition in prose, a
# blocking finding in a risk list, blocking words in advice.
CARRIED = [
    {"status": "approved", "comment": "Land only after #412."},
    {"verdict_summary": "x", "decision": "approve", "summary": "Merge once CI is green."},
    {"overall_assessment": "approve", "risks": [{"severity": "critical", "title": "token logged"}]},
    {"decision": "approve", "suggestions": ["The SQL injection must be fixed before merge."]},
]
GENUINE = [
    {"overall_assessment": "approve", "comments": [{"severity": "info", "note": "Nice."}]},
    {
        "decision": "approve",
        "summary": "Small, well-tested change to the slug generator.",
        "findings": [{"severity": "minor", "file": "slug.py", "line": 14, "title": "Typo"}],
    },
    {
        "summary": {
            "overall_assessment": "approve_with_nits",
            "strengths": ["Guardrails are enforced with unit coverage."],
            "risks": ["Package metadata still advertises a CLI."],
        },
        "issues": [{"title": "Metadata", "severity": "low", "where": "pyproject.toml:3"}],
        "tests_suggested": ["poetry run pytest -v"],
        "notes": ["No blocking defects; the transport cleanup looks correct."],
    },
    {"approved": True, "reviewer": "bot", "confidence": 0.9, "blockers": [], "scope": ""},
]


@pytest.mark.parametrize("data", NESTED + UNKNOWN_KEYS + CARRIED)
def test_a_json_document_with_something_unread_or_against_it_does_not_approve(
    data: dict[str, Any],
) -> None:
    verdict = parse_verdict(_doc(data))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("data", GENUINE)
def test_a_json_document_fully_accounted_for_approves(data: dict[str, Any]) -> None:
    verdict = parse_verdict(_doc(data))
    assert verdict.decision is A, verdict.reasons


def test_an_unknown_key_is_named_in_the_reason() -> None:
    verdict = parse_verdict(_doc({"status": "approved", "merge_after": "2026-12-01"}))
    assert verdict.decision is Decision.MALFORMED
    assert any('"merge_after"' in reason for reason in verdict.reasons), verdict.reasons
