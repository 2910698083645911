"""The verdict trailer contract: one strict model, from which everything else is derived.

mergegate asks its reviewers to end with a fenced JSON block
`{"review_id": …, "verdict": "approve|request_changes|reject", "findings": [...]}`. This
module is the only definition of that block:

* `ReviewVerdict` / `TrailerFinding` — strict pydantic models (no coercion, unknown keys
  rejected); `parse_verdict` validates trailers with them, and the `review-verdict` handoff
  schema *is* `ReviewVerdict` (`mergegate handoff check --schema review-verdict`), so both
  accept and refuse exactly the same objects (duplicate keys are refused by `_json`, which
  both read with).
* `VERDICT_VALUES`, `SEVERITY_VALUES` — the values the example trailer shows.
* `trailer_example(review_id)` — the example trailer in the reviewer prompt templates.
"""

from __future__ import annotations

import json
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from mergegate.decisions import Decision
from mergegate.verdicts._model import Severity

__all__ = [
    "SEVERITY_VALUES",
    "VERDICT_DECISIONS",
    "VERDICT_VALUES",
    "ReviewVerdict",
    "TrailerFinding",
    "TrailerVerdict",
    "trailer_example",
]

TrailerVerdict = Literal["approve", "request_changes", "reject"]
VERDICT_VALUES: tuple[str, ...] = get_args(TrailerVerdict)
VERDICT_DECISIONS: dict[str, Decision] = {
    "approve": Decision.APPROVE,
    "request_changes": Decision.FIXES,
    "reject": Decision.REJECT,
}
SEVERITY_VALUES: tuple[str, ...] = tuple(s.value for s in Severity)


class _Strict(BaseModel):
    # Built on first validation, not at import: most reviews carry no such object, and
    # `mergegate parse` and the hook start on every call (bench/bench_startup.py).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)


class TrailerFinding(_Strict):
    """One finding in the trailer. `id` is the reviewer's own id (reused across rounds)."""

    id: str | None = Field(None, min_length=1, json_schema_extra={"example": "short-stable-id"})
    severity: Severity
    title: str = Field(min_length=1, json_schema_extra={"example": "..."})
    file: str | None = Field(None, json_schema_extra={"example": "path or null"})
    line: int | None = Field(None, ge=1, json_schema_extra={"example": None})
    """1-based; null when the finding has no line (0 is not a line)."""
    detail: str | None = Field(None, json_schema_extra={"example": "..."})


class ReviewVerdict(_Strict):
    """`review-verdict`: the JSON trailer mergegate asks its reviewers for."""

    review_id: str = Field(min_length=1)
    """The nonce of the request: required, as `handoff check` always required it."""
    verdict: TrailerVerdict
    findings: list[TrailerFinding] = Field(default_factory=list)


def trailer_example(review_id: str) -> str:
    """The one-line example trailer shown to reviewers, built from the models."""
    finding: dict[str, object] = {}
    for name, field in TrailerFinding.model_fields.items():
        if name == "severity":
            finding[name] = "|".join(SEVERITY_VALUES)
        else:
            extra = field.json_schema_extra
            finding[name] = extra.get("example") if isinstance(extra, dict) else None
    body = {"review_id": review_id, "verdict": "|".join(VERDICT_VALUES), "findings": [finding]}
    return json.dumps(body, ensure_ascii=False)
