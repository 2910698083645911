"""Dialect grammars: each finds candidate verdicts on live lines, with their line and authority.

Every grammar reads the same structured document (`_lines.Doc`) and yields `Candidate`s; the
decision rules live in `_decide`. Grammars never look inside non-live lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._text import has_lookalike, norm
from mergegate.verdicts._vocab import (
    Hit,
    LabelKind,
    clean_value,
    first_hit,
    hits,
    label_kind,
    qualifier_of,
)

__all__ = ["DIALECTS", "Candidate", "critical_counts", "find_candidates"]

DIALECTS: tuple[str, ...] = (
    "superpowers",
    "verdict-line",
    "status-line",
    "frontmatter",
    "megazord",
    "json",
    "bmad",
    "lgtm",
    "cli-flag",
    "verdict-section",
)

_SEPARATOR_RE = re.compile(r"[:?=]")
_CLI_FLAG = re.compile(r"--verdict[= ]+[\"']?([a-z_-]{2,30})")
_JSON_KV = re.compile(r"\"([a-z_ -]{1,40})\"[ \t]*:[ \t]*(?:\"([^\"\\]{0,200})\"|(true|false))")
_JSON_BOOL_KEYS = frozenset(
    [
        "approved",
        "approve",
        "lgtm",
        "ready_to_merge",
        "merge_ready",
        "mergeable",
        "ready",
        "approval",
    ]
)
_EMPHASIS = re.compile(r"\*\*([^*]{1,60})\*\*|__([^_]{1,60})__|`([^`]{1,60})`")
_LINE_START_ANYWHERE = frozenset(
    {"lgtm", "nack", "ack", "acked", "nak", "nacked", "ship it", "shipit"}
)
_YAML_KEY = re.compile(r"[a-z][a-z0-9_-]{0,40}")
_MAYBE_LABEL = re.compile(r"[:?=|\"*_]|--verdict")
_ANYWHERE_HINT = re.compile(r"[^a-z]{0,12}(?:lgtm|n?ack|nak|ship)")
_BMAD = frozenset({"pass", "concerns", "fail", "waived"})
_COUNT_LABELS = frozenset(
    [
        "critical",
        "critical issues",
        "critical findings",
        "critical count",
        "criticals",
        "blockers",
        "blocking issues",
        "blocking findings",
        "p0",
    ]
)
_NUMBER = re.compile(r"\d{1,6}")
_LIST_MARK = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One verdict statement found in the document."""

    index: int
    decision: Decision
    dialect: str
    reason: str
    strong: bool = False
    local: bool = False
    lookalike: bool = False
    qualifier: str | None = None


def find_candidates(doc: Doc) -> list[Candidate]:
    """Every candidate verdict in document order (frontmatter first, then live lines)."""
    found = list(_frontmatter(doc))
    for index, line in enumerate(doc.lines):
        if line.live and not line.blank:
            found.extend(_line_candidates(doc, index, line))
    return found


def critical_counts(doc: Doc) -> list[tuple[int, int]]:
    """(line index, count) for every 'Critical: N' / 'blockers: N' count line."""
    out: list[tuple[int, int]] = []
    for index, line in enumerate(doc.lines):
        if not (line.live or line.frontmatter) or ":" not in line.raw:
            continue
        label, _, value = clean_value(norm(line.raw)).partition(":")
        if _strip_decor(label) in _COUNT_LABELS:
            match = _NUMBER.match(value.strip())
            if match:
                out.append((index, int(match.group(0))))
    return out


# --------------------------------------------------------------------------- per line


def _line_candidates(doc: Doc, index: int, line: Line) -> Iterator[Candidate]:
    text = line.low
    section = line.section
    if not (
        line.heading_level
        or _MAYBE_LABEL.search(text)
        or (section is not None and section.verdict_like)
        or _ANYWHERE_HINT.match(text)
    ):
        return  # no separator, no emphasis, no heading, no verdict section: nothing to find
    found = False
    for cand in _flag_and_json(index, line, text):
        found = True
        yield cand
    if found:
        return
    labelled = _labelled(doc, index, line, text)
    if labelled is not None:
        yield labelled
        return
    bare = _bare_phrase(index, line, text)
    if bare is not None:
        yield bare


def _flag_and_json(index: int, line: Line, text: str) -> Iterator[Candidate]:
    if "--verdict" in text:
        match = _CLI_FLAG.search(text)
        if match:
            value = clean_value(match.group(1).replace("-", " "))
            hit = first_hit(value, at_start=True)
            if hit and hit.decision:
                yield _make(
                    index, line, hit, value, dialect="cli-flag", where="--verdict flag", strong=True
                )
    if '":' in text or '" :' in text:
        for match in _JSON_KV.finditer(text):
            cand = _json_pair(index, line, match)
            if cand is not None:
                yield cand


def _json_pair(index: int, line: Line, match: re.Match[str]) -> Candidate | None:
    key = match.group(1).strip()
    label = key.replace("_", " ")
    if match.group(3) is not None:
        if key not in _JSON_BOOL_KEYS or _nested_json(line, match):
            return None
        decision = Decision.APPROVE if match.group(3) == "true" else Decision.REJECT
        return _candidate(
            index, line, decision, dialect="json", what=f'"{key}": {match.group(3)}', strong=True
        )
    kind = label_kind(label)
    if kind is None or (not key.startswith(("overall", "final")) and _nested_json(line, match)):
        return None  # a per-item status/verdict inside a list of objects
    value = clean_value(match.group(2) or "")
    hit = first_hit(value, at_start=True)
    if hit is None or hit.decision is None:
        return None
    return _make(
        index,
        line,
        hit,
        value,
        dialect="json",
        where=f'"{key}"',
        strong=kind is not LabelKind.STATUS,
    )


def _nested_json(line: Line, match: re.Match[str]) -> bool:
    """True when the key sits below the top-level object (in an array or a nested object)."""
    prefix = match.string[: match.start()]
    depth = prefix.count("{") + prefix.count("[") - prefix.count("}") - prefix.count("]")
    return "[" in prefix or depth > 1 or line.indent > 2


def _labelled(doc: Doc, index: int, line: Line, text: str) -> Candidate | None:
    body = line.heading_text if line.heading_level else line.raw
    ntext = norm(body) if line.heading_level else text
    for label, kind, own_value in _label_values(ntext, alone_ok=line.heading_level > 0):
        value = own_value if own_value.strip(" -*") else _next_value(doc, index)
        if not value:
            continue
        cand = _from_label(index, line, label, kind, value)
        if cand is not None:
            return cand
    if line.heading_level:
        return _heading_phrase(index, line, clean_value(ntext))
    return None


def _label_values(text: str, *, alone_ok: bool = False) -> Iterator[tuple[str, LabelKind, str]]:
    """(label, kind, value) for each way the line reads as 'label: value'.

    A label standing alone (its answer on the next line) is only considered for headings
    (`alone_ok`) and emphasized lines ('**Ready to merge?**', '1. **Overall conclusion**').
    """
    stripped = text.strip()
    if stripped.startswith("|") or " | " in stripped:
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if len(cells) >= 2:
            label = _strip_decor(clean_value(cells[0]))
            kind = label_kind(_drop_parens(label).rstrip("?: "))
            if kind is not None:
                yield _drop_parens(label).rstrip("?: "), kind, cells[1]
                return
        for cell in cells:
            yield from _colon_values(cell)
        return
    yield from _colon_values(stripped)
    if len(stripped) > 80 or not (alone_ok or "*" in stripped or "__" in stripped):
        return
    alone = _drop_parens(_strip_decor(clean_value(stripped))).rstrip("?:. ")
    kind = label_kind(alone)
    if kind is not None and kind is not LabelKind.STATUS:
        yield alone, kind, ""  # a label standing alone; its answer is on the next line


def _colon_values(text: str) -> Iterator[tuple[str, LabelKind, str]]:
    for seen, sep in enumerate(_SEPARATOR_RE.finditer(text, 0, 120)):
        if seen >= 4:
            return
        pos, ch = sep.start(), sep.group(0)
        label = _drop_parens(_strip_decor(clean_value(text[:pos]))).rstrip("?: ")
        if ch == "?" and label_kind(label) is not LabelKind.YESNO:
            continue
        kind = label_kind(label)
        if kind is not None:
            yield label, kind, text[pos + 1 :].lstrip(":")
            return


def _from_label(
    index: int, line: Line, label: str, kind: LabelKind, raw_value: str
) -> Candidate | None:
    value = _strip_value_decor(clean_value(raw_value))
    hit = first_hit(value, at_start=kind is not LabelKind.VERDICT)
    if hit is None and kind is LabelKind.STATUS and _starts_with_workflow_word(value):
        # 'Status: review complete, can merge after P0 is fixed': the state word opens the
        # value and the verdict follows in the same sentence.
        hit = first_hit(value[_first_clause_break(value) :].lstrip(), at_start=False)
        value = value[_first_clause_break(value) :].lstrip()
    if hit is None or hit.decision is None:
        return None
    if hit.phrase in ("yes", "no") and kind is LabelKind.STATUS:
        return None
    dialect = _dialect_of(kind, label, hit, line)
    cand = _make(
        index,
        line,
        hit,
        value,
        dialect=dialect,
        where=f"'{label}'",
        strong=kind is not LabelKind.STATUS,
    )
    if line.indent >= 2 and not _LIST_MARK.match(line.raw):
        cand = replace(cand, local=True)  # a nested key ('  security:\n    status: PASS')
    if label.startswith(("overall", "final")):
        cand = replace(cand, local=False)
    return cand


def _starts_with_workflow_word(value: str) -> bool:
    """The first clause holds a workflow word (complete, resolved…) and no verdict word."""
    first = value[: _first_clause_break(value)]
    found = hits(first)
    return bool(found) and all(h.decision is None for h in found)


def _first_clause_break(value: str) -> int:
    for i, ch in enumerate(value):
        if ch in ",，;；、—":
            return i + 1
    return len(value)


def _dialect_of(kind: LabelKind, label: str, hit: Hit, line: Line) -> str:
    if kind is LabelKind.YESNO:
        return "superpowers"
    if kind is LabelKind.VERDICT:
        return "verdict-line"
    if label == "gate" and hit.phrase in _BMAD:
        return "bmad"
    section = line.section
    if section is not None and "review complete" in section.text:
        return "megazord"
    return "status-line"


def _next_value(doc: Doc, index: int) -> str:
    """The answer on the next live line for a label standing alone ('**Ready to merge?**')."""
    for nxt in doc.lines[index + 1 : index + 4]:
        if nxt.blank:
            continue
        text = nxt.low
        if not nxt.live or nxt.heading_level or any(True for _ in _label_values(text)):
            return ""  # the next line speaks for itself
        return text
    return ""


def _heading_phrase(index: int, line: Line, text: str) -> Candidate | None:
    """A heading that is itself a verdict: '## Ready to merge', '## LGTM', '## Approved'."""
    value = _strip_decor(text)
    hit = first_hit(value, at_start=True)
    if hit is None or hit.decision is None or hit.end < len(value.rstrip(" .!")):
        return None
    return _make(index, line, hit, value, dialect="verdict-line", where="heading", strong=True)


def _bare_phrase(index: int, line: Line, text: str) -> Candidate | None:
    """A line that starts with a verdict ('LGTM', 'NACK -- …'; in a verdict section any)."""
    section = line.section
    if (section is None or not section.verdict_like) and not _ANYWHERE_HINT.match(text):
        return None
    value = _strip_value_decor(clean_value(text))
    hit = first_hit(value, at_start=True)
    in_verdict_section = section is not None and section.verdict_like
    if hit is not None and hit.decision is not None:
        rest = value[hit.end :].lstrip()
        if rest.startswith(":"):
            return None  # 'Approved by: …' is a label, not a verdict
        if hit.phrase in _LINE_START_ANYWHERE:
            return _make(index, line, hit, value, dialect="lgtm", where="line start")
        if in_verdict_section:
            return _make(
                index, line, hit, value, dialect="verdict-section", where="verdict section"
            )
    if in_verdict_section and section is not None and "summary" not in section.text:
        return _emphasized(index, line, text)
    return None


def _emphasized(index: int, line: Line, text: str) -> Candidate | None:
    """In a verdict section: a bold/code span that is wholly a verdict ('Round 3 is **passed**')."""
    for match in _EMPHASIS.finditer(text):
        span = clean_value(next(g for g in match.groups() if g is not None))
        found = hits(span)
        if len(found) != 1:
            continue
        hit = found[0]
        if hit.decision is None or hit.start != 0 or hit.end != len(span.rstrip(" .!")):
            continue
        value = clean_value(text)
        return _make(
            index, line, hit, value, dialect="verdict-section", where="verdict section (emphasis)"
        )
    return None


# --------------------------------------------------------------------------- frontmatter


def _frontmatter(doc: Doc) -> Iterator[Candidate]:
    for index in range(1, max(doc.frontmatter_end, 0)):
        line = doc.lines[index]
        if line.raw[:1] in (" ", "\t") or ":" not in line.raw:
            continue
        key, _, raw_value = norm(line.raw).partition(":")
        label = key.strip().replace("_", " ")
        if not _YAML_KEY.fullmatch(key.strip()) or label_kind(label) is None:
            continue
        value = _strip_value_decor(clean_value(raw_value))
        hit = first_hit(value, at_start=True)
        if hit is None or hit.decision is None:
            continue
        yield _make(
            index,
            line,
            hit,
            value,
            dialect="frontmatter",
            where=f"frontmatter '{key.strip()}'",
            strong=True,
        )


# --------------------------------------------------------------------------- helpers


def _make(
    index: int, line: Line, hit: Hit, value: str, *, dialect: str, where: str, strong: bool = False
) -> Candidate:
    assert hit.decision is not None
    decision = hit.decision
    qualifier = None
    if decision is Decision.APPROVE:
        qualifier = qualifier_of(value, hit)
        if qualifier is not None:
            decision = Decision.FIXES
    reason = f"{where} says '{hit.phrase}'"
    if qualifier is not None:
        reason += f", qualified by '{qualifier}'"
    return Candidate(
        index=index,
        decision=decision,
        dialect=dialect,
        reason=reason,
        strong=strong,
        local=line.local,
        lookalike=has_lookalike(line.raw),
        qualifier=qualifier,
    )


def _candidate(
    index: int, line: Line, decision: Decision, *, dialect: str, what: str, strong: bool
) -> Candidate:
    return Candidate(
        index=index,
        decision=decision,
        dialect=dialect,
        reason=f"{what}",
        strong=strong,
        local=line.local,
        lookalike=has_lookalike(line.raw),
    )


def _strip_decor(text: str) -> str:
    """Drop leading list markers, numbering, emoji and punctuation: '- ✅ 1. approved'."""
    i = 0
    while i < len(text) and not text[i].isalpha():
        i += 1
    return text[i:].strip()


def _strip_value_decor(text: str) -> str:
    """Drop a leading list marker, emoji and punctuation, but keep numbers ('36 passed')."""
    text = _LIST_MARK.sub("", text, count=1) if _LIST_MARK.match(text) else text
    i = 0
    while i < len(text) and not text[i].isalnum():
        i += 1
    return text[i:].strip()


def _drop_parens(text: str) -> str:
    """'merge-ready (m0 / debug)' → 'merge-ready'. Bounded: one pass, no nesting."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return " ".join("".join(out).split())
