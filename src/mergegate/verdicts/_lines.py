"""The document structure the grammars read: which lines are live, and which section they are in.

A line is *live* when a reviewer's own verdict could stand there. Not live: fenced and indented
code, block quotes, HTML comments, diff lines, YAML frontmatter (read by its own dialect), echoed
templates (`Yes/No/With fixes`), instructions addressed to the reviewer and what they introduce,
and everything under an example/template/instructions heading. One pass, linear in the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mergegate.verdicts._text import has_lookalike, norm

__all__ = ["Block", "Doc", "Line", "Section", "structure"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*")
_BRACKET_HEADING = re.compile(r"\[([^\[\]]{1,80})\]")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,3}[.)])(?:[ \t]|$)")
# Two verdict words offered as alternatives: an echoed template, not a verdict.
_TEMPLATE = re.compile(
    r"(?<![a-z])(?:yes|no|with fixes|approved?|request[_ ]changes|rejected?|passed|pass|failed|"
    r"fail|clean|issues[_ ]found|concerns|waived|lgtm|nack|ack|go|no-go)[ \t]*(?:/|\||\bor\b)"
    r"[ \t]*(?:yes|no\b|with |approve|request|reject|pass|fail|clean|issues|concerns|waived|"
    r"lgtm|nack|ack|go\b|no-go)"
)
_INSTRUCTION_PHRASES = (
    "respond with",
    "reply with",
    "answer with",
    "output format",
    "response format",
    "your verdict",
    "your response",
    "you must",
    "you should",
    "must end with",
    "end your review",
    "use the format",
    "use this format",
    "following format",
    "format:",
    "e.g.",
    "for example",
    "example:",
    "such as",
    "should say",
    "should output",
    "should respond",
    "return this",
    "the reviewer must",
    "the reviewer should",
    "reviewers must",
    "template",
    "placeholder",
)
_INSTRUCTION_RE = re.compile("|".join(re.escape(p) for p in _INSTRUCTION_PHRASES))
# Cheap pre-check: a template needs an alternative separator or braces.
_TEMPLATE_HINT = re.compile(r"[/|{]| or ")
_EXAMPLE_HEADING_WORDS = (
    "example",
    "template",
    "sample",
    "format",
    "instruction",
    "prompt",
    "expected output",
    "expected behavior",
    "expected behaviour",
    "anti-pattern",
    "how to",
    "usage",
    "test scenario",
    "示例",
    "模板",
    "例",
    "テンプレート",
    "예시",
    "템플릿",
    "ejemplo",
    "plantilla",
    "exemplo",
    "modelo",
    "exemple",
    "modèle",
)
# Headings that scope a verdict to one part: 'Alternative 2', 'Decision 3: ...', 'File: a.py'.
_LOCAL_HEADING = re.compile(
    r"(?:alternative|option|approach|candidate|proposal|variant|finding|issue|item|decision|"
    r"criterion|requirement|risk)s?(?:[ \t]*(?:\d|#)|[ \t]+[a-z](?![a-z]))|"
    r"(?:file|module|component|function|class)[ \t]*:|"
    r"(?:alternative|option|approach|candidate|proposal|variant)s?(?![a-z])"
)
_VERDICT_HEADING_WORDS = (
    "verdict",
    "decision",
    "conclusion",
    "assessment",
    "recommendation",
    "summary",
    "ready to merge",
    "merge readiness",
    "final",
    "overall",
    "result",
    "outcome",
    "判定",
    "结论",
    "結論",
    "总结",
    "總結",
    "まとめ",
    "결론",
    "판정",
    "요약",
    "veredicto",
    "veredito",
    "conclusión",
    "conclusão",
    "décision",
    "résumé",
)


@dataclass(slots=True)
class Section:
    """A heading and what it implies for the lines under it."""

    level: int
    text: str
    line_index: int
    verdict_like: bool
    local: bool
    example: bool


@dataclass(slots=True)
class Line:
    """One input line with its structural facts."""

    number: int
    raw: str
    live: bool = True
    heading_level: int = 0
    heading_text: str = ""
    section: Section | None = None
    local: bool = False
    frontmatter: bool = False
    indent: int = 0
    blank: bool = False
    _low: str | None = None

    @property
    def low(self) -> str:
        """The normalized text (NFKC, case-folded), computed once."""
        if self._low is None:
            self._low = norm(self.raw)
        return self._low


@dataclass(slots=True)
class Block:
    """A fenced code block: its info string, body line indexes, and whether it was closed."""

    info: str
    start: int
    end: int
    closed: bool


@dataclass(slots=True)
class Doc:
    """The structured document."""

    lines: list[Line]
    blocks: list[Block] = field(default_factory=list)
    frontmatter_end: int = -1


@dataclass(slots=True)
class _State:
    fence: tuple[str, int, int, str] | None = None  # char, length, start index, info
    comment: bool = False
    hunk: bool = False
    prev_blank: bool = True
    in_indented: bool = False
    in_list: bool = False
    instruction_tail: bool = False
    sections: list[Section] = field(default_factory=list)
    local: bool = False  # some enclosing heading scopes its lines to a part
    example: bool = False  # some enclosing heading is an example/template/instructions


def structure(raw_lines: tuple[str, ...], first_number: int) -> Doc:
    """Classify every line (live or not, heading, section) in one linear pass."""
    doc = Doc(lines=[Line(number=first_number + i, raw=text) for i, text in enumerate(raw_lines)])
    start = _mark_frontmatter(doc)
    state = _State()
    for index in range(start, len(doc.lines)):
        _classify(doc, index, state)
    if state.fence is not None:
        _char, _n, begin, info = state.fence
        doc.blocks.append(Block(info=info, start=begin + 1, end=len(doc.lines), closed=False))
    return doc


def _mark_frontmatter(doc: Doc) -> int:
    lines = doc.lines
    if not lines or lines[0].raw.strip() != "---":
        return 0
    for i in range(1, min(len(lines), 400)):
        if lines[i].raw.lstrip().startswith(("```", "~~~", "#")):
            return 0  # markdown inside: a horizontal rule, not YAML frontmatter
        if lines[i].raw.strip() in ("---", "..."):
            for j in range(i + 1):
                lines[j].frontmatter = True
                lines[j].live = False
            doc.frontmatter_end = i
            return i + 1
    return 0


def _classify(doc: Doc, index: int, state: _State) -> None:
    line = doc.lines[index]
    text = line.raw
    if _plain(text, state):
        _classify_plain(line, state)
        return
    stripped = text.strip()
    line.blank = not stripped
    line.indent = len(text) - len(text.lstrip(" \t"))
    if _in_fence(doc, index, state, text) or _in_comment(line, state):
        line.live = False
        return
    if line.blank:
        state.prev_blank = True
        state.hunk = False
        state.instruction_tail = False
        return
    line.live = _live_by_shape(line, state)
    if line.live:
        _apply_heading(line, index, state)
    _inherit_section(line, state)
    if line.live and (not line.heading_level or state.instruction_tail):
        line.live = not _is_instruction_or_template(line, state)
    state.prev_blank = False


def _plain(text: str, state: _State) -> bool:
    """The common case, decided cheaply: a paragraph line starting with a letter, outside any
    fence, comment or hunk, with no fence/comment/heading/list syntax in it."""
    return (
        text[:1].isalpha()
        and state.fence is None
        and not state.comment
        and not state.hunk
        and "<!--" not in text
        and "```" not in text
        and "~~~" not in text
    )


def _classify_plain(line: Line, state: _State) -> None:
    state.in_indented = False
    state.in_list = False
    state.hunk = False
    _inherit_section(line, state)
    if line.live:
        line.live = not _is_instruction_or_template(line, state)
    state.prev_blank = False


def _inherit_section(line: Line, state: _State) -> None:
    if not state.sections:
        return
    line.section = state.sections[-1]
    line.local = state.local
    if state.example:
        line.live = False  # examples, templates, instructions and their subsections


def _in_fence(doc: Doc, index: int, state: _State, text: str) -> bool:
    if state.fence is None and "```" not in text and "~~~" not in text:
        return False
    match = _FENCE.fullmatch(text)
    if state.fence is not None:
        char, length, begin, info = state.fence
        closes = match is not None and match.group(1)[0] == char and len(match.group(1)) >= length
        if closes and match is not None and not match.group(2).strip():
            doc.blocks.append(Block(info=info, start=begin + 1, end=index, closed=True))
            state.fence = None
        return True
    if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
        info = match.group(2).strip().split(" ", 1)[0].casefold() if match.group(2) else ""
        state.fence = (match.group(1)[0], len(match.group(1)), index, info)
        return True
    return False


def _in_comment(line: Line, state: _State) -> bool:
    text = line.raw
    if state.comment:
        end = text.find("-->")
        if end < 0:
            return True
        state.comment = False
        line.raw = " " * (end + 3) + text[end + 3 :]
        return not line.raw.strip()
    start = text.find("<!--")
    if start < 0:
        return False
    end = text.find("-->", start + 4)
    if end < 0:
        state.comment = True
        line.raw = text[:start]
    else:
        line.raw = text[:start] + " " * (end + 3 - start) + text[end + 3 :]
    # A line with a comment stripped may still carry live text before/after the comment.
    if not line.raw.strip():
        return True
    return _in_comment(line, state) if "<!--" in line.raw else False


def _live_by_shape(line: Line, state: _State) -> bool:
    """Block quotes, diff lines and indented code are never live."""
    text = line.raw
    lead = text.lstrip(" ")
    if lead.startswith(">"):
        return False
    if lead.startswith("@@") or text.startswith(("diff --git", "+++ ", "--- a/", "index ")):
        state.hunk = lead.startswith("@@") or state.hunk
        return False
    if state.hunk and text[:1] in (" ", "+", "-", "\\"):
        return False
    state.hunk = False
    if text.startswith("+") or (text.startswith("-") and text[1:2] not in (" ", "-", "")):
        return False
    return not _indented_code(line, state)


def _indented_code(line: Line, state: _State) -> bool:
    """CommonMark-ish: 4+ columns after a blank line (or more code) and outside a list."""
    text = line.raw
    if not (text.startswith("\t") or line.indent >= 4):
        state.in_indented = False
        if _LIST_ITEM.match(text):
            state.in_list = True
        elif line.indent == 0:
            state.in_list = False
        return False
    if state.in_list and (not state.prev_blank or _LIST_ITEM.match(text.lstrip(" \t"))):
        return False  # a nested list item or a lazy continuation line
    # Fail closed: an indented paragraph after a blank line is read as code even in a list.
    if state.in_indented or state.prev_blank:
        state.in_indented = True
        return True
    return False


def _apply_heading(line: Line, index: int, state: _State) -> None:
    level, text = _heading_of(line.raw)
    if not level:
        return
    line.heading_level = level
    line.heading_text = text
    low = norm(text).strip(" *_`:")
    section = Section(
        level=level,
        text=low,
        line_index=index,
        # Fail closed: a heading that spells 'Verdict' with look-alikes is not a verdict
        # section, or 'No findings.' under it would approve without an authoritative word.
        verdict_like=not has_lookalike(text)
        and _starts_with_any(_strip_decor(low), _VERDICT_HEADING_WORDS),
        local=bool(_LOCAL_HEADING.match(_strip_decor(low))),
        example=any(word in low for word in _EXAMPLE_HEADING_WORDS),
    )
    while state.sections and state.sections[-1].level >= level:
        state.sections.pop()
    state.sections.append(section)
    state.local = any(s.local for s in state.sections)
    state.example = any(s.example for s in state.sections)


def _heading_of(text: str) -> tuple[int, str]:
    first = text.lstrip(" ")[:1]
    if first not in ("#", "["):
        return 0, ""
    match = _HEADING.fullmatch(text)
    if match:
        return len(match.group(1)), (match.group(2) or "").strip()
    bracket = _BRACKET_HEADING.fullmatch(text.strip())
    if bracket:
        return 3, bracket.group(1).strip()
    return 0, ""


def _strip_decor(text: str) -> str:
    """Drop leading numbering, emoji and markup from a heading: '5. ✅ **Verdict**' → 'verdict'."""
    i = 0
    while i < len(text) and not (text[i].isalpha()):
        i += 1
    return text[i:].replace("*", "").replace("`", "").strip()


def _starts_with_any(text: str, words: tuple[str, ...]) -> bool:
    return any(text.startswith(word) for word in words)


def _is_instruction_or_template(line: Line, state: _State) -> bool:
    low = line.low
    if state.instruction_tail:
        return True
    if _TEMPLATE_HINT.search(low) and (
        _TEMPLATE.search(low) or ("{" in low and "}" in low and "status" in low)
    ):
        return True
    if _INSTRUCTION_RE.search(low):
        # An instruction ending in ':' introduces the example that follows it.
        state.instruction_tail = low.rstrip(" *_`").endswith(":")
        return True
    return False
