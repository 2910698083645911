"""The JSON trailer mergegate asks its own reviewers for, and JSON verdict documents.

A trailer is a fenced ```json block (or a whole document that is one JSON object) of the form
`{"review_id": "...", "verdict": "approve|request_changes|reject", "findings": [...]}`. It is
validated strictly: a truncated or invalid object is reported as such and never completed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._model import Finding, Severity

__all__ = ["Trailer", "find_trailers"]

MAX_TRAILER_CHARS = 1_000_000
_VERDICTS: dict[str, Decision] = {
    "approve": Decision.APPROVE,
    "request_changes": Decision.FIXES,
    "reject": Decision.REJECT,
}


class _FindingModel(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str | None = None
    severity: Literal["critical", "important", "minor"]
    title: str
    file: str | None = None
    line: int | None = None
    detail: str = ""


class _TrailerModel(BaseModel):
    model_config = ConfigDict(extra="ignore")
    review_id: str | None = None
    verdict: Literal["approve", "request_changes", "reject"]
    findings: list[_FindingModel] = []


@dataclass(frozen=True, slots=True)
class Trailer:
    """One JSON verdict object found in the document (valid or not)."""

    index: int
    """Line index of the opening fence (or 0 for a whole-document object)."""
    end_index: int
    """Line index just after the block."""
    decision: Decision | None
    """None when the object is truncated or invalid."""
    review_id: str | None
    findings: tuple[Finding, ...]
    problem: str | None


def find_trailers(doc: Doc, text: str) -> list[Trailer]:
    """Every fenced json block (and a whole-JSON document) that talks about a verdict."""
    out: list[Trailer] = []
    for block in doc.blocks:
        if block.info not in ("json", "jsonc", "json5"):
            continue
        body = "\n".join(line.raw for line in doc.lines[block.start : block.end])
        if '"verdict"' not in body:
            continue
        trailer = _parse(body, block.start - 1, block.end + 1, closed=block.closed)
        out.append(trailer)
    stripped = text.strip()
    first = next((line.raw for line in doc.lines if not line.blank), "")
    # A whole-JSON document starts at column 0 (an indented one is an indented code block).
    if not out and first.startswith("{") and '"verdict"' in stripped[:MAX_TRAILER_CHARS]:
        out.append(_parse(stripped, 0, len(doc.lines), closed=stripped.endswith("}")))
    return out


def _parse(body: str, index: int, end_index: int, *, closed: bool) -> Trailer:
    def broken(problem: str) -> Trailer:
        return Trailer(index, end_index, None, None, (), problem)

    if len(body) > MAX_TRAILER_CHARS:
        return broken(f"JSON verdict larger than {MAX_TRAILER_CHARS:,} characters")
    if not closed:
        return broken("JSON verdict block is not closed (truncated output)")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        return broken(f"JSON verdict does not parse ({type(exc).__name__}: {str(exc)[:120]})")
    try:
        model = _TrailerModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return broken(f"JSON verdict is invalid at {where}: {first['msg']}")
    findings = tuple(
        Finding.make(
            Severity(f.severity), f.title, file=f.file, line=f.line, detail=f.detail, ref=f.id
        )
        for f in model.findings
    )
    return Trailer(index, end_index, _VERDICTS[model.verdict], model.review_id, findings, None)
