"""Findings: superpowers Critical/Important/Minor sections and severity-tagged list items.

Only live lines are read; ids are derived from content so a finding keeps its id across rounds.
"""

from __future__ import annotations

from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._model import SEVERITY_WORDS, Finding, Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import norm

__all__ = ["MAX_FINDINGS", "findings_of", "location_of"]

MAX_FINDINGS = 200

_ITEM = compile_lazily(r" {0,8}(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)")
_TAG = compile_lazily(r"[\[(*_`]*([a-z0-9 ]{2,14}?)[\])*_`]*[ \t]*(?:[:—–-]|\])[ \t*_`]*(.*)")
_FILE_LINE = compile_lazily(r"([\w./-]{1,200}\.[a-z0-9]{1,8})(?::(\d{1,7}))?")
_NONE = frozenset({"none", "none.", "(none)", "n/a", "无", "なし", "없음", "nothing", "-"})


def findings_of(doc: Doc) -> tuple[Finding, ...]:
    """Findings from live lines, in document order, de-duplicated by id, at most 200."""
    found: dict[str, Finding] = {}
    current: Severity | None = None
    for line in doc.lines:
        if not line.live or line.blank:
            continue
        if line.heading_level:
            current = _severity_of(norm(line.heading_text))
            continue
        finding = _finding_from_item(line, current)
        if finding is not None and finding.id not in found:
            found[finding.id] = finding
            if len(found) >= MAX_FINDINGS:
                break
    return tuple(found.values())


def _severity_of(text: str) -> Severity | None:
    text = text.lstrip("#*_`[( 0-9.").strip()
    for word, severity in SEVERITY_WORDS:
        if text.startswith(word):
            return severity
    return None


def _finding_from_item(line: Line, current: Severity | None) -> Finding | None:
    match = _ITEM.fullmatch(line.raw)
    if match is None:
        return None
    body = match.group(1).strip()
    severity = current
    tagged = _TAG.fullmatch(norm(body))
    if tagged is not None:
        tag_severity = _severity_of(tagged.group(1))
        if tag_severity is not None:
            severity = tag_severity
            body = body[len(body) - len(tagged.group(2)) :] if tagged.group(2) else body
    if severity is None or norm(body).strip(" *_`.") in _NONE or not body:
        return None
    title = _title_of(body)
    file, line_no = location_of(body)
    return Finding.make(severity, title, file=file, line=line_no, detail=body)


def _title_of(body: str) -> str:
    text = body.replace("**", "").replace("`", "").strip()
    location = _FILE_LINE.match(text)
    if location is not None:
        rest = text[location.end() :].lstrip(" —–-:")
        text = rest or text
    for stop in (". ", " — ", ": "):
        cut = text.find(stop)
        if 0 < cut < 160:
            return text[:cut].strip()
    return text[:160].strip()


def location_of(body: str) -> tuple[str | None, int | None]:
    """The first `path/file.ext[:line]` named in `body` (a path or a line number needed)."""
    for match in _FILE_LINE.finditer(body):
        name = match.group(1)
        if "/" in name or match.group(2):
            return name, int(match.group(2)) if match.group(2) else None
    return None, None
