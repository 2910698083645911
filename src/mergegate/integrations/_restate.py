"""The restatement: a malformed review is asked ONCE for its verdict as the verdict object.

mergegate cannot choose the format of a review it did not prompt, but after one that has no
verdict it can: the hook's block asks the orchestrator to dispatch the same reviewer again with
a request to answer with nothing but the verdict object (`mergegate.verdicts.VerdictObject`,
its JSON Schema in the request) carrying a fresh `review_id`. The next answer from that
reviewer is read as that object first — strictly, and decided by the one approval rule
(`decide_object`), so an object with another id (text planted in the code under review) never
approves. An answer that is not an object at all is read by the ordinary reader (a prose
"Ready to merge? Yes" on the retry still approves, as seed 000 wants); one that is still
undecidable is the second malformed answer: STOP.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mergegate.verdicts import Evidence, Finding, Severity, Verdict

__all__ = ["RESTATED_SCOPE", "RestateRequest", "read_restated"]

RESTATED_SCOPE = "restated review"
_DESCRIPTION_CHARS = 90


@dataclass(frozen=True)
class RestateRequest:
    """What the hook asked one reviewer to restate: the id its object must carry."""

    review_id: str
    scope: str = RESTATED_SCOPE

    @classmethod
    def new(cls) -> RestateRequest:
        return cls(review_id="mg-" + os.urandom(8).hex())  # as secrets.token_hex, without random

    def instruction(self) -> str:
        """The text the orchestrator adds to the reviewer's prompt (schema included). The
        template's verdict is not a valid value, so a template copied as it is never reads
        as an approval."""
        template = (
            f'{{"review_id": {json.dumps(self.review_id)}, "scope": {json.dumps(self.scope)}, '
            '"verdict": "approve or request_changes or reject", "conditions": [...], '
            '"findings": [{"id": ..., "severity": "critical|important|minor", "title": ..., '
            '"file": ..., "line": ..., "detail": ..., "suggestion": ..., "requirement": ...}], '
            '"summary": "one line", "confidence": 0.0 to 1.0}'
        )
        return (
            "Answer with nothing but one JSON object - no prose, no code fence - that matches "
            f"this JSON Schema: {compact_schema()} Shape: {template}. Copy review_id and scope "
            "exactly; say approve only if nothing must change before merging."
        )


@lru_cache(maxsize=1)
def compact_schema() -> str:
    """The verdict object's JSON Schema on one line, without titles and long descriptions."""
    # Here, not at the top: the verdict object is a pydantic model, and an approving review
    # (most of the hook's calls) never needs it (bench/bench_startup.py).
    from mergegate.verdicts import verdict_object_schema  # noqa: PLC0415

    return json.dumps(_compact(verdict_object_schema()), separators=(",", ":"), ensure_ascii=True)


def _compact(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _compact(v)
            for k, v in value.items()
            if k != "title" and not (k == "description" and len(str(v)) > _DESCRIPTION_CHARS)
        }
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def read_restated(output: str, request: RestateRequest) -> Verdict | None:
    """The verdict of a restated answer when it is a verdict object (decided by the approval
    rule against `request`), or None when it is not an object, for the ordinary reader."""
    from mergegate.verdicts import (  # noqa: PLC0415 - see compact_schema
        MalformedObjectError,
        VerdictRequest,
        decide_object,
        read_verdict_object,
    )

    try:
        obj = read_verdict_object(output)
    except MalformedObjectError:
        return None
    decided = decide_object(
        output, VerdictRequest(review_id=request.review_id, scope=request.scope)
    )
    findings = tuple(
        Finding.make(
            Severity(f.severity), f.title, file=f.file, line=f.line, detail=f.detail, ref=f.id
        )
        for f in obj.findings
    )
    return Verdict(
        decision=decided.decision,
        dialect="verdict-object",
        evidence=Evidence.at(1, f'"verdict": "{obj.verdict}" (review_id {obj.review_id})'),
        reasons=(decided.reason,),
        findings=findings,
    )
