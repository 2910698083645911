"""JSON verdicts: the trailer contract, JSON verdict documents, and unfenced objects in prose.

Three places hold JSON a gate must read, each read strictly (`_json.read_json`: duplicate
keys, NaN/Infinity and overflowing numbers refused) and never repaired:

1. the whole document is one JSON object (`{"summary": {"overall_assessment": …}}`);
2. a *live* fenced ```json block (not inside a comment, an example or what an instruction
   introduces) that holds a `"verdict"` key — mergegate's trailer, validated against
   `ReviewVerdict` (unknown keys refused);
3. an unfenced object in live prose (`Result: {"verdict": "approve", …}`), found by the linear
   scanner. It can say no, but it never approves (`inline`): the trailer is a fenced block or
   the whole output. An object the text ends inside of is truncated: it never approves.

An object that talks about a verdict but cannot be read is *broken* (`decision is None`):
a broken verdict can never be outvoted into an approval.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from mergegate.decisions import Decision
from mergegate.verdicts._json import DuplicateKeyError, NumberRangeError, read_json
from mergegate.verdicts._jsondoc import read_document
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._model import Finding, Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._scan import scan_objects

__all__ = ["JsonVerdict", "find_json_verdicts"]

MAX_JSON_CHARS = 1_000_000
_JSON_INFOS = frozenset({"json", "jsonc", "json5"})
# Cheap test: does this text talk about a verdict at all?
_VERDICT_KEY = compile_lazily(
    r'"(?:verdict|approved?|approval|lgtm|ready_to_merge|merge_ready|mergeable|ready|decision|'
    r'status|result|outcome|(?:overall|final)_[a-z_]{1,30})"\s*:'
)


@dataclass(frozen=True, slots=True)
class JsonVerdict:
    """One JSON object that talks about a verdict (valid or not)."""

    index: int
    """Line index where the object (or its fence) starts."""
    end_index: int
    """Line index just after it."""
    decision: Decision | None
    """None when the object is broken: truncated, unreadable or invalid."""
    problem: str | None = None
    trailer: bool = False
    """It has a `verdict` key: mergegate's trailer contract applies."""
    inline: bool = False
    """Written straight into prose (not fenced, not the whole output): never approves."""
    review_id: str | None = None
    findings: tuple[Finding, ...] = ()
    blocking: str | None = None
    """Blocking content inside it (`"blocking_issues": [...]`, a critical finding)."""
    reason: str = ""


def find_json_verdicts(doc: Doc) -> list[JsonVerdict]:
    """Every JSON object of the document that talks about a verdict, in document order."""
    whole = _whole_document(doc)
    if whole is not None:
        return [whole]
    found = [verdict for block in doc.blocks if (verdict := _fenced(doc, block)) is not None]
    found.extend(_unfenced(doc))
    found.sort(key=lambda v: v.index)
    return found


def _whole_document(doc: Doc) -> JsonVerdict | None:
    first = next((i for i, line in enumerate(doc.full) if line.strip()), None)
    if first is None or not doc.full[first].startswith("{"):
        return None
    text = "\n".join(doc.full[first:]).strip()
    if not _VERDICT_KEY.search(text[:MAX_JSON_CHARS]):
        return None
    return _read(text, first, len(doc.full), closed=text.endswith("}"))


def _fenced(doc: Doc, block: Any) -> JsonVerdict | None:
    if block.info not in _JSON_INFOS or not block.live:
        return None
    body = "\n".join(doc.full[block.start : block.end])
    if '"verdict"' not in body:
        return None
    found = _read(body, block.start - 1, block.end + 1, closed=block.closed)
    if found.decision is not None and not found.trailer:
        return None  # a fenced JSON example without a verdict key is not the trailer
    return found


def _unfenced(doc: Doc) -> Iterator[JsonVerdict]:
    """Objects written straight into live prose, found in one linear scan."""
    if not any("{" in whole for whole in doc.full):
        return
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for line, whole in zip(doc.lines, doc.full, strict=True):
        starts.append(offset)
        text = whole if line.live else ""
        parts.append(text)
        offset += len(text) + 1
    live = "\n".join(parts)
    if "{" not in live:
        return
    scan = scan_objects(live)
    for span in scan.candidates:
        raw = live[span.start : span.end]
        if not _VERDICT_KEY.search(raw) or _in_array(live, span.start):
            continue  # no verdict in it, or one item of a list (a per-item status)
        first = bisect.bisect_right(starts, span.start) - 1
        end = bisect.bisect_right(starts, span.end)
        found = _read(raw, first, end, closed=True)
        if found.decision is not Decision.MALFORMED:
            yield replace(found, inline=True)
    if scan.unclosed_at is not None and _VERDICT_KEY.search(live[scan.unclosed_at :]):
        first = bisect.bisect_right(starts, scan.unclosed_at) - 1
        yield JsonVerdict(
            first,
            len(doc.lines),
            None,
            "a JSON verdict in the text is cut off before it closes (truncated output)",
        )


def _in_array(text: str, start: int) -> bool:
    before = text[max(0, start - 200) : start].rstrip()
    return before.endswith(("[", ","))


def _read(text: str, index: int, end: int, *, closed: bool) -> JsonVerdict:
    data, problem = _parsed(text, closed=closed)
    if problem is not None:
        return JsonVerdict(index, end, None, problem)
    if "verdict" in data:
        return _trailer(text, index, end)
    return _document(data, index, end)


def _parsed(text: str, *, closed: bool) -> tuple[dict[str, Any], str | None]:
    """The object, read strictly, or why it cannot be read. Never repaired or completed."""
    if len(text) > MAX_JSON_CHARS:
        return {}, f"JSON verdict larger than {MAX_JSON_CHARS:,} characters"
    if not closed:
        return {}, "JSON verdict block is not closed (truncated output)"
    try:
        data = read_json(text)
    except (DuplicateKeyError, NumberRangeError) as exc:
        return {}, f"JSON verdict is invalid: {exc}"
    except (ValueError, RecursionError) as exc:
        return {}, f"JSON verdict does not parse ({type(exc).__name__}: {str(exc)[:120]})"
    if not isinstance(data, dict):
        return {}, "a JSON verdict must be an object"
    return data, None


def _trailer(text: str, index: int, end: int) -> JsonVerdict:
    # Lazy: only a document with a trailer-shaped object loads the contract's models.
    from pydantic import ValidationError  # noqa: PLC0415

    from mergegate.verdicts._contract import VERDICT_DECISIONS, ReviewVerdict  # noqa: PLC0415

    try:
        model = ReviewVerdict.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        return JsonVerdict(index, end, None, f"JSON verdict is invalid at {where}: {message}")
    findings = tuple(
        Finding.make(
            Severity(f.severity),
            f.title,
            file=f.file,
            line=f.line,
            detail=f.detail or "",
            ref=f.id,
        )
        for f in model.findings
    )
    contradiction = next(filter(None, (_contradicts(f) for f in findings)), None)
    if contradiction is not None:
        return JsonVerdict(index, end, None, f"JSON verdict contradicts itself: {contradiction}")
    return JsonVerdict(
        index,
        end,
        VERDICT_DECISIONS[model.verdict],
        trailer=True,
        review_id=model.review_id,
        findings=findings,
        reason=f"JSON trailer verdict '{model.verdict}'",
    )


# A severity label opening a finding's title or detail: `BLOCKER:`, `Critical - …`,
# `[P0] …`, `**High**`, `Must fix before merge: …` (at most four words before the colon).
_SEVERITY_LABEL = compile_lazily(
    r"[ \t*_`]*(?:[\[(][ \t]*([^\])\n]{1,30}?)[ \t]*[\])]|(?:\*\*|__)([^*_\n]{1,30}?)(?:\*\*|__)"
    r"|([^\W\d_]\w{0,40}(?:[ \t]{1,4}\w{1,40}){0,3})[ \t]*(?:[:：]|[ \t][—–-][ \t]))"
)
_RANK = {Severity.MINOR: 0, Severity.IMPORTANT: 1, Severity.CRITICAL: 2}


def _contradicts(finding: Finding) -> str | None:
    """A finding whose own title or detail opens with a severity label above its `severity`
    field (`"severity": "minor"`, `"title": "BLOCKER: …"`): the object says two things about
    one finding, and a gate takes neither (the field alone would let it through)."""
    for text in (finding.title, finding.detail):
        match = _SEVERITY_LABEL.match(text)
        if match is None:
            continue
        label = next(g for g in match.groups() if g is not None)
        try:
            labelled = Severity.from_word(label)
        except ValueError:
            continue
        if _RANK[labelled] > _RANK[finding.severity]:
            return (
                f"finding '{finding.title[:60]}' is labelled '{label.strip()}' but its "
                f"severity is '{finding.severity.value}'"
            )
    return None


def _document(data: Mapping[str, Any], index: int, end: int) -> JsonVerdict:
    """A JSON verdict document of another tool, read key by key (`_jsondoc`)."""
    read = read_document(data)
    return JsonVerdict(index, end, read.decision, blocking=read.blocking, reason=read.reason)
