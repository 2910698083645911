"""Megazord-style finding blocks: a heading `### Finding N: <title>` and field lines under it.

    ### Finding 1: SQL injection in login
    - **Severity:** Critical
    - **Location:** auth.py:10
    - **Suggestion:** Use bound parameters.

Each block is one finding whose severity is its `Severity` field (Critical → critical, High
and Medium → important, Low → minor: the package's one severity table) and whose title is the
heading's. The field lines are accounted for, so a `Suggestion:` line is not read as a finding
of its own. A critical or important finding is blocking content: no verdict line beside it
approves.

Megazord's reviewer also ends with a `## REVIEW COMPLETE` block (`**Task:**`, `**Status:**
passed | issues_found`, `**Critical:** N` …): a document with that heading is claimed as
Megazord's, and its status and count lines are read by the generic reader under the one rule
(a count above zero is blocking content beside `passed`).
"""

from __future__ import annotations

from mergegate.verdicts._findings import location_of
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._model import Finding, Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._text import norm

__all__ = ["NAME", "recognise"]

NAME = "megazord"

_BLOCK = compile_lazily(
    r"[ \t*_`]*(?:finding|issue|bug)[ \t]*#?[ \t]*(\d{1,4})[ \t]*[:.—–-]?[ \t]*(.*)"
)
_FIELD = compile_lazily(
    r"[ \t]*[-*+][ \t]+(?:\*\*|__)([^*_:]{1,30}):?(?:\*\*|__)[ \t]*:?[ \t]*(.*)"
)


def recognise(doc: Doc) -> Recognised | None:
    """Every finding block with a Severity field; None when there is none and no `REVIEW
    COMPLETE` heading."""
    findings: list[Finding] = []
    accounted: set[int] = set()
    blocking: tuple[int, str] | None = None
    complete = False
    for index, line in enumerate(doc.lines):
        if not (line.live and line.heading_level):
            continue
        heading = norm(line.heading_text)
        complete = complete or "review complete" in heading
        block = _BLOCK.fullmatch(heading)
        if block is None:
            continue
        title = line.heading_text.strip()[:160]
        read = _fields(doc, index, line.heading_level)
        if "severity" not in read:
            continue
        severity_at, severity_word = read["severity"]
        try:
            severity = Severity.from_word(severity_word.strip(" *_`."))
        except ValueError:
            continue  # an unknown severity: the generic reader reads the block as prose
        accounted.update(at for at, _ in read.values())
        where = read.get("location", read.get("file", (0, "")))[1]
        file, number = location_of(where)
        findings.append(Finding.make(severity, title, file=file, line=number))
        if blocking is None and severity is not Severity.MINOR:
            blocking = (severity_at, f"a {severity_word.strip()} finding: '{title[:60]}'")
    if not findings:
        return Recognised(name=NAME) if complete else None
    return Recognised(
        name=NAME, findings=tuple(findings), accounted=frozenset(accounted), blocking=blocking
    )


def _fields(doc: Doc, start: int, level: int) -> dict[str, tuple[int, str]]:
    """The block's `- **Key:** value` lines by lower-cased key (the first of each), up to the
    next heading of the same or a higher level."""
    read: dict[str, tuple[int, str]] = {}
    for index in range(start + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level and line.heading_level <= level:
            break
        if not line.live or line.blank:
            continue
        field = _FIELD.fullmatch(line.raw)
        if field is not None:
            read.setdefault(field.group(1).strip().lower(), (index, field.group(2)))
    return read
