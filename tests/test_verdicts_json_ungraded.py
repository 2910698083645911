"""An approving JSON document whose defects list holds a finding nobody graded (issue 23):
`{"lgtm": true, "problems": ["the retry loop never backs off"]}` approved, because a plain
string under `issues` / `findings` / `problems` / `defects` was read only for blocking
words. Without a grade the approval did not say the defect is minor, so it is `malformed`.
A graded item (`"nit: …"`, a `severity` field), an empty list and ungraded notes under a
softer key (`risks`, as beside the shared corpus' `approve_with_nits`) still approve."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _doc(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


@pytest.mark.parametrize(
    "data",
    [
        {"lgtm": True, "problems": ["the retry loop never backs off"]},
        {"approved": True, "findings": ["Session cookie set without Secure"]},
        {"decision": "approve", "defects": ["CSV export drops the header row"]},
        {"approved": True, "issues": [{"title": "webhook secret in the log", "file": "a.py"}]},
    ],
)
def test_an_ungraded_defect_beside_an_approval_is_malformed(data: dict[str, Any]) -> None:
    verdict = parse_verdict(_doc(data))
    assert verdict.decision is Decision.MALFORMED
    assert "nobody graded" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    "data",
    [
        {"lgtm": True, "problems": ["nit: the retry helper could be private"]},
        {"approved": True, "issues": ["[minor] rename `tmp` in export.py"]},
        {"approved": True, "issues": [{"title": "rename tmp", "severity": "low"}]},
        {"approved": True, "findings": []},
        {"decision": "approve", "risks": ["Callers may expect the old default timeout."]},
    ],
)
def test_graded_or_absent_defects_and_soft_notes_approve(data: dict[str, Any]) -> None:
    assert parse_verdict(_doc(data)).approved
