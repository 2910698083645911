"""Verdict objects for scripted reviewers: the one answer a reviewer mergegate prompts gives.

`{review_id}` and `{scope}` are placeholders the scripted agents (`fakes/scripted_agent.py`,
`fakes/run_agent.py`) fill in from `MERGEGATE_REVIEW_ID` and `MERGEGATE_REVIEW_SCOPE`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def finding(
    fid: str = "F-1",
    severity: str = "important",
    title: str = "Missing test for empty input",
    *,
    file: str | None = "app.py",
    line: int | None = 1,
    detail: str = "add a test",
    suggestion: str | None = None,
    requirement: str | None = None,
) -> dict[str, Any]:
    """One finding of a verdict object (every key present, as the schema requires)."""
    return {
        "id": fid,
        "severity": severity,
        "title": title,
        "file": file,
        "line": line,
        "detail": detail,
        "suggestion": suggestion,
        "requirement": requirement,
    }


def verdict_object(
    verdict: str = "approve",
    findings: Sequence[dict[str, Any]] = (),
    conditions: Sequence[str] = (),
    *,
    review_id: str = "{review_id}",
    scope: str = "{scope}",
    summary: str = "reviewed the change",
    confidence: float = 0.9,
) -> str:
    """A verdict object as JSON text (one line)."""
    return json.dumps(
        {
            "review_id": review_id,
            "scope": scope,
            "verdict": verdict,
            "conditions": list(conditions),
            "findings": list(findings),
            "summary": summary,
            "confidence": confidence,
        }
    )


def approving(**kwargs: Any) -> str:
    return verdict_object("approve", **kwargs)


def requesting_changes(*findings: dict[str, Any], **kwargs: Any) -> str:
    return verdict_object("request_changes", findings or (finding(),), **kwargs)


def pins_of(request: Any) -> tuple[str, str]:
    """The `review_id` and `scope` a reviewer request pinned in its answer schema."""
    assert request.answer_schema is not None, "not a reviewer request"
    properties = request.answer_schema.schema_object()["properties"]
    return properties["review_id"]["enum"][0], properties["scope"]["enum"][0]
