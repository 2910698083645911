"""The document structure the grammars read: which lines are live, and which section they are in.

A line is *live* when a reviewer's own verdict could stand there. Not live: fenced and indented
code, block quotes and HTML comments — as markdown-it renders them (`_rendered`), never guessed
from a line's shape — YAML frontmatter (read by its own dialect), echoed
templates (`Yes/No/With fixes`), instructions addressed to the reviewer and what they introduce
(also an example introduced without a colon: "Example lines"), and everything under an
example/template/instructions heading. A fence opened inside a comment, an example section or
after an instruction is not live either, and neither is what it holds (`Block.live`). A line
shaped like a pasted diff ('+x', '@@ …') renders as text: it is read for a no like an
instruction's text (`instruction_like`), never for an approval.

Headings also say which *round* of a multi-round document a line belongs to (`Section.round`:
"Round 2", "Re-review", "Update", "Addendum" …) and whether they scope their lines to one part
of the change (`Section.part`: "File: a.py", "Track B", "Security") or to something that is
not the change at all (`Section.local`: "Alternative 2", "Option B", "Finding #3").
One pass, linear in the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mergegate.verdicts._headings import RoundMark, heading_kind
from mergegate.verdicts._names import prose_of
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._rendered import (
    RenderedView,
    blank_comments,
    blank_struck,
    blank_struck_html,
    footnote_marker,
    needs_view,
    rendered_view,
)
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["Block", "Doc", "Line", "Section", "is_table_row", "structure"]

_FENCE = compile_lazily(r" {0,3}(`{3,}|~{3,})(.*)")
_HEADING = compile_lazily(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*")
_BRACKET_HEADING = compile_lazily(r"\[([^\[\]]{1,80})\]")
_LIST_ITEM = compile_lazily(r" {0,3}(?:[-*+]|\d{1,3}[.)])(?:[ \t]|$)")
# A line shaped like a unified diff's: '+x' / '-x' with no space after the sign (with one it
# is a list bullet), headers. Rendered, it is text: read for a no, never for an approval.
_DIFF_LINE = compile_lazily(r"[+](?![ \t]|$)|-(?![ \t-]|$)|diff --git |index [0-9a-f]")
_HUNK_LINE = compile_lazily(r"[ +\\-]")
# Two verdict words offered as alternatives: an echoed template, not a verdict.
_TEMPLATE = compile_lazily(
    r"(?<![a-z])(?:yes|no|with fixes|approved?|request[_ ]changes|rejected?|passed|pass|failed|"
    r"fail|clean|issues[_ ]found|concerns|waived|lgtm|nack|ack|go|no-go)[ \t]*(?:/|\||\bor\b)"
    r"[ \t]*(?:yes|no\b|with |approve|request|reject|pass|fail|clean|issues|concerns|waived|"
    r"lgtm|nack|ack|go\b|no-go)"
)
_INSTRUCTION_PHRASES = (
    "respond with", "reply with", "answer with", "output format", "response format",
    "your verdict", "your response", "you must", "you should", "must end with", "end your review",
    "use the format", "use this format", "following format", "format:", "should say",
    "should output", "should respond", "return this", "the reviewer must", "the reviewer should",
    "reviewers must", "placeholder",
)  # fmt: skip
_INSTRUCTION_RE = compile_lazily("|".join(re.escape(p) for p in _INSTRUCTION_PHRASES))
# Words that introduce an example: they make a line not live when they come before its
# first separator ('For example: Ready to merge? Yes'), not when a verdict's reason uses
# them ('**Verdict:** Not yet. Auth runs on the default templates').
_EXAMPLE_WORDS = compile_lazily(r"e\.g\.|for example|example:|such as|template|for instance")
_FIRST_SEPARATOR = compile_lazily(r"[:?=]")
# A short line that opens with an example word introduces an example, colon or not.
_EXAMPLE_INTRO = compile_lazily(
    r"[ \t>*_`#-]*(?:examples?|samples?|for instance|illustration|e\.g\.|ex\.|例如|示例|样例|"
    r"例[:：]|例えば|예시|ejemplos?|exemplos?|exemples?|beispiele?|esempio)(?![a-z])[^.!?]{0,60}$"
)
# A line that ends with a word introducing what follows ('Reply with a line such as',
# 'For example', 'Por ejemplo', '例如') makes the next lines an example, colon or not.
_INTRODUCER_END = compile_lazily(
    r"(?:(?<![^\W_])(?:such as|like this|like so|like|as follows|for example|for instance|"
    r"namely|the following|as shown below|with|e\.g\.?|i\.e\.?|ex\.|por ejemplo|como|"
    r"por exemplo|par exemple|comme|comme ceci|zum beispiel|z\. ?b\.|beispielsweise|wie|etwa|"
    r"ad esempio|per esempio|например)|例如|比如|如下|例えば|たとえば|のように|예를 들어|"
    r"다음과 같이)[ \t,，、…]*(?:\.\.\.)?$"
)
# A line that is only the name of an example: 'Template', 'Output format', 'Plantilla'.
_BARE_INTRO = compile_lazily(
    r"[ \t>*_`#-]*(?:template|output|output format|format|sample output|expected output|"
    r"plantilla|modelo|formato|modèle|vorlage|模板|格式|テンプレート|템플릿)[ \t*_`.]*$"
)
# A short label line that introduces an example or an output: 'Typical output:',
# 'Expected result:', 'Sample reply:'. What follows it is what such a thing looks like.
_LABELLED_INTRO = compile_lazily(
    r"[ \t>*_`#-]*(?:[^\W\d_]+[ \t]+){0,3}(?:output|outputs|example|examples|sample|samples|"
    r"template|illustration|demo|snippet|mock|mockup|expected (?:result|reply|response)|"
    r"reply|response|ejemplo|exemplo|exemple|beispiel|esempio)[ \t*_`]*[:：][ \t*_`]*$|"
    r"[^:：]{0,20}(?:示例|样例|输出|例)[:：][ \t]*$"
)
# Either of the two, in one match (it runs on every line).
_INTRO_LINE = compile_lazily(f"(?:{_BARE_INTRO.pattern})|(?:{_LABELLED_INTRO.pattern})")
# A sentence that ends on its line.
_TERMINATED = compile_lazily(r"[.!?。！？)\]][ \t*_`\"'”]*$")
# A YAML 'key: value  # comment' line: the comment may enumerate the choices
# ('gate: "CONCERNS" # PASS|CONCERNS|FAIL|WAIVED'); only the value says whether the line
# is an echoed template. (The comment is still read as text after the answer.)
_YAML_VALUE = compile_lazily(
    r"""([ \t-]*[a-z_][\w.-]{0,40}[ \t]*:[ \t]*(?:"[^"]*"|'[^']*'|[^\s#"']+))[ \t]+#"""
)
# Cheap pre-check: a template needs an alternative separator or braces.
_TEMPLATE_HINT = compile_lazily(r"[/|{]| or ")
# One cheap search that every instruction, template or example line passes.
_ANY_HINT = compile_lazily(
    "|".join(
        [
            _TEMPLATE_HINT.pattern,
            _INSTRUCTION_RE.pattern,
            _EXAMPLE_WORDS.pattern,
            r"(?:examples?|samples?|illustration|ex\.|例|예시|ejemplo|exemplo|exemple|beispiel|esempio)",
        ]
    )
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
    round: bool = False
    part: bool = False
    advisory: bool = False
    round_record: bool = False
    """A record of the round it sits in ('### Re-review method' under '## Re-review'): a
    section of that round, not a later one (`_apply_heading`)."""


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
    part: bool = False
    frontmatter: bool = False
    indent: int = 0
    blank: bool = False
    capped: bool = False
    """The line was longer than `MAX_LINE_CHARS` and only its start was read."""
    instruction_like: bool = False
    """Not live only because it looks like an instruction, an echoed template or an example
    (itself, or the heading above it): it still renders as the reviewer's text, so
    `_accounting` reads it for a no."""
    footnote: bool = False
    quoted: bool = False
    """Inside a block quote: shown, but someone else's words (not live)."""
    """A footnote definition (`[^1]: …`), shown at the end of the document as rendered."""
    _low: str | None = None
    _clean: str | None = None
    _prose: str | None = None
    shapeless: bool | None = None
    """Whether the line's shape carries no decision (`_accounting.line_carries_no_decision`),
    once a reader has asked: `_accounting` and `_after` both ask it of every line."""

    def show(self, text: str) -> None:
        """Replace the line's text by what renders (a comment blanked, a footnote's marker
        dropped), forgetting what was computed from the old text: a cached reading of a
        comment's words would make them live again."""
        self.raw = text
        self._low = self._clean = self._prose = None
        self.shapeless = None

    @property
    def shows(self) -> bool:
        """The reader sees this line as the reviewer's text: live, or hidden from approving
        only because it looks like an instruction or an example. What such a line lists
        against the change still counts."""
        return self.live or self.instruction_like

    @property
    def low(self) -> str:
        """The normalized text (NFKC, case-folded), computed once."""
        if self._low is None:
            self._low = norm(self.raw)
        return self._low

    @property
    def clean(self) -> str:
        """`low` with markup removed (`_vocab.clean_value`), computed once."""
        if self._clean is None:
            self._clean = clean_value(self.low)
        return self._clean

    @property
    def prose(self) -> str:
        """`low` without the code names in it (`_names.prose_of`), computed once: the readers
        after an approval each read it (`_refusals`, `_unweighed`, `_block`)."""
        if self._prose is None:
            self._prose = prose_of(self.low)
        return self._prose


@dataclass(slots=True)
class Block:
    """A fenced code block: its info string, body line indexes, whether it was closed, and
    whether it was opened where a reviewer's own words could stand (not inside an HTML
    comment, an example/template section or what an instruction introduces)."""

    info: str
    start: int
    end: int
    closed: bool
    live: bool = True


@dataclass(slots=True)
class Doc:
    """The structured document. `full` holds the uncapped lines (JSON blocks are read whole);
    `rounds` the indexes of headings that open a new round; `cut` says the input was longer
    than the window and its start was dropped."""

    lines: list[Line]
    blocks: list[Block] = field(default_factory=list)
    frontmatter_end: int = -1
    full: tuple[str, ...] = ()
    rounds: list[int] = field(default_factory=list)
    cut: bool = False
    unrendered: bool = False
    """The document has markup but is longer than `_rendered.MAX_VIEW_CHARS`: it was read as
    source text only, so an approval in it is never trusted."""


@dataclass(slots=True)
class _State:
    fence: tuple[str, int, int, str, bool] | None = None  # char, length, start, info, live
    instruction_tail: bool = False
    instruction_gap: bool = False  # blank lines right after an instruction's paragraph
    example_gap: bool = False  # an example intro's paragraph, across one blank gap
    sections: list[Section] = field(default_factory=list)
    local: bool = False  # some enclosing heading scopes its lines to something else
    part: bool = False  # some enclosing heading scopes its lines to one part of the change
    example: bool = False  # some enclosing heading is an example/template/instructions
    view: RenderedView | None = None  # how each line renders (None: plain text, no markup)
    index: int = 0
    echoed: int | None = None  # an example-like heading read as the review's own (`_echoed`)
    numbered: bool = False  # a heading numbered a review ('Review 1', 'Initial verdict')
    hidden: frozenset[int] = frozenset()  # paragraph lines all inside an inline comment
    hunk: bool = False  # in the paragraph of a diff hunk ('@@ -1,3 +1,3 @@')


def structure(
    raw_lines: tuple[str, ...],
    first_number: int,
    *,
    full: tuple[str, ...] | None = None,
    cut: bool = False,
    echoed: int | None = None,
) -> Doc:
    """Classify every line (live or not, heading, section) in one linear pass.

    `raw_lines` are the (capped) lines that are matched; `full`, when given, the same lines
    uncapped: a line whose full text is longer is marked `capped`. `echoed`, when given, is
    the index of an example-like heading whose section is read as the reviewer's own text
    (`_echoed` decides when); everything else about its lines is classified as usual.
    """
    doc = Doc(
        lines=[Line(number=first_number + i, raw=text) for i, text in enumerate(raw_lines)],
        full=full if full is not None else raw_lines,
        cut=cut,
    )
    if full is not None:
        for line, whole in zip(doc.lines, full, strict=True):
            line.capped = len(whole) > len(line.raw)
    start = _mark_frontmatter(doc)
    state = _State(view=_view(doc, raw_lines, start), echoed=echoed)
    state.hidden = _show_as_rendered(doc, state.view, start)
    for index in range(start, len(doc.lines)):
        state.index = index
        _classify(doc, index, state)
    if state.fence is not None:
        _char, _n, begin, info, live = state.fence
        doc.blocks.append(
            Block(info=info, start=begin + 1, end=len(doc.lines), closed=False, live=live)
        )
    if state.view is not None:
        _apply_view(doc, state.view)
    return doc


def _view(doc: Doc, raw_lines: tuple[str, ...], start: int) -> RenderedView | None:
    """The rendered view of the body (frontmatter lines blanked), when it has markup;
    `doc.unrendered` when it has markup but is too long to render."""
    body = ("",) * start + raw_lines[start:]
    if not needs_view(body):
        return None
    view = rendered_view(body)
    doc.unrendered = view is None
    return view


def _show_as_rendered(doc: Doc, view: RenderedView | None, start: int) -> frozenset[int]:
    """Each line's text as shown: comments, struck-through text (`blank_struck`) and the
    code part of a `<pre>` line blanked, a footnote's text without its `[^1]:` marker.
    Without a view (the text has no markup, or is too long to render) comments are blanked
    as a browser reads raw HTML. Returns the lines left with nothing to show: they stay
    inside their paragraph, and are not live."""
    if view is None:
        body = [line.raw for line in doc.lines[start:]]
        shown = blank_comments("\n".join(body), html=True).split("\n") if doc.unrendered else body
        rewrites = {start + i: t for i, t in enumerate(shown) if t != body[i]}
    else:
        rewrites = view.rewrites
    for index, line in enumerate(doc.lines[start:], start):
        struck = blank_struck(blank_struck_html(rewrites.get(index, line.raw)))
        if struck != line.raw:
            rewrites[index] = struck
    for index, text in rewrites.items():
        doc.lines[index].show(text)
    for index in view.footnotes if view is not None else ():
        line = doc.lines[index]  # read a footnote's text as GitHub shows it: without '[^1]:'
        line.show(line.raw[footnote_marker(line.raw) :])
        line.footnote = True
    return frozenset(i for i, text in rewrites.items() if not text.strip())


def _apply_view(doc: Doc, view: RenderedView) -> None:
    """What renders as nothing is blanked; code, quotes and underlines are never live."""
    for index in view.invisible:
        line = doc.lines[index]
        line.show("")
        line.blank, line.live = True, False
    for index in view.quote:
        doc.lines[index].quoted = True
    for index in view.code | view.quote | view.underline:
        doc.lines[index].live = False
        doc.lines[index].instruction_like = False
    for index in view.filtered:  # shown as text by GitHub, hidden by a browser: read for a no
        if not doc.lines[index].blank:
            doc.lines[index].live = False
            doc.lines[index].instruction_like = True
    for item in view.items:
        # A list item of an instruction's example ('Output format:' / '- …') holds the
        # paragraphs indented under it too: they are the example's, not the reviewer's.
        if doc.lines[item.start].instruction_like:
            for index in item:
                if doc.lines[index].live:
                    doc.lines[index].live = False
                    doc.lines[index].instruction_like = True


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
    # Comments are already blanked (`_show_as_rendered`): a fence inside one opens nothing
    # (a trailer wrapped in <!-- --> is not a trailer).
    if state.fence is not None and not _fence_goes_on(doc, index, state):
        state.fence = None  # its container ended (a list item, a quote): markdown-it closed it
    if state.fence is not None or _opens_fence(doc, index, state):
        _fence_line(doc, index, state, text)
        line.live = False
        return
    if index in state.hidden:
        line.blank, line.live = False, False
        return
    if line.blank:
        state.hunk = False
        # 'Use this format:' + blank + a fence: the fence is still what the instruction shows.
        state.instruction_gap = state.instruction_tail or state.instruction_gap
        state.instruction_tail = state.example_gap and state.instruction_tail
        state.example_gap = False
        return
    state.instruction_gap = False
    if line.live and _apply_heading(line, index, state):
        doc.rounds.append(index)
    _inherit_section(line, state)
    if line.live and _diff_shaped(text, state):
        line.live, line.instruction_like = False, True
        return
    # A setext heading is a paragraph's lines underlined: it may still be an instruction
    # ('Output format:' over a verdict line, then '---').
    setext = state.view is not None and index in state.view.setext
    if line.live and (not line.heading_level or state.instruction_tail or setext):
        line.live = not _is_instruction_or_template(line, state)
        line.instruction_like = not line.live


def _diff_shaped(text: str, state: _State) -> bool:
    """A line that looks like part of a pasted diff ('+Ready to merge? Yes' after '@@ …').
    Markdown shows it as text, so it is never hidden: it counts against an approval like an
    instruction's text (`_accounting`), but a diff may be the code under review, so an
    approval written there counts for nothing. A '+ ' or '- ' line is a list bullet."""
    if text.startswith("@@"):
        state.hunk = True
        return True
    if state.hunk and _HUNK_LINE.match(text) and not text.startswith(("+ ", "- ")):
        return True
    state.hunk = False
    return _DIFF_LINE.match(text) is not None


def _plain(text: str, state: _State) -> bool:
    """The common case, decided cheaply: a paragraph line starting with a letter, outside any
    fence or hidden comment, with no fence/heading/list syntax in it."""
    return (
        text[:1].isalpha()
        and (state.view is None or state.index not in state.view.setext)
        and state.fence is None
        and state.index not in state.hidden
        and "```" not in text
        and "~~~" not in text
    )


def _classify_plain(line: Line, state: _State) -> None:
    state.instruction_gap = False
    state.hunk = False
    _inherit_section(line, state)
    if line.live:
        line.live = not _is_instruction_or_template(line, state)
        line.instruction_like = not line.live


def _inherit_section(line: Line, state: _State) -> None:
    if not state.sections:
        return
    line.section = state.sections[-1]
    line.local = state.local
    line.part = state.part
    if state.example:
        line.instruction_like = line.live
        line.live = False  # examples, templates, instructions and their subsections


def _opens_fence(doc: Doc, index: int, state: _State) -> bool:
    """True (and the fence is opened) when this line starts a fenced block."""
    text = doc.lines[index].raw
    if "```" not in text and "~~~" not in text:
        return False
    match = _FENCE.fullmatch(text)
    if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return False
    if state.view is not None and index not in state.view.code:
        return False  # markdown-it reads no fence here (say, inside an HTML block): text
    info = match.group(2).strip().split(" ", 1)[0].casefold() if match.group(2) else ""
    live = not (state.example or state.instruction_tail or state.instruction_gap)
    state.fence = (match.group(1)[0], len(match.group(1)), index, info, live)
    return True


def _fence_goes_on(doc: Doc, index: int, state: _State) -> bool:
    """False when markdown-it shows this line as something else than the open fence's code:
    the fence ended with its container. Recorded as unclosed (it never holds a trailer)."""
    if state.view is None or index in state.view.code or doc.lines[index].raw.strip() == "":
        return True
    assert state.fence is not None
    _char, _n, begin, info, live = state.fence
    doc.blocks.append(Block(info=info, start=begin + 1, end=index, closed=False, live=live))
    return False


def _fence_line(doc: Doc, index: int, state: _State, text: str) -> None:
    """A line inside (or opening) a fence: close the fence when this line closes it."""
    assert state.fence is not None
    char, length, begin, info, live = state.fence
    if begin == index:
        return
    match = _FENCE.fullmatch(text) if char in text else None
    closes = match is not None and match.group(1)[0] == char and len(match.group(1)) >= length
    if closes and match is not None and not match.group(2).strip():
        doc.blocks.append(Block(info=info, start=begin + 1, end=index, closed=True, live=live))
        state.fence = None


def _apply_heading(line: Line, index: int, state: _State) -> bool:
    """Open the section of a heading line; True when it opens a new round."""
    level, text = _heading_of(line.raw)
    if state.view is not None and index in state.view.setext:
        level, text = state.view.setext[index], line.raw.strip()
    if not level:
        return False
    line.heading_level = level
    line.heading_text = text
    low = norm(text).strip(" *_`:")
    kind = heading_kind(text, low, level)
    # 'Re-review method' under '## Re-review' is that round's record, not a later round.
    in_round = kind.round_record and any(s.round and s.level < level for s in state.sections)
    section = Section(
        level=level,
        text=low,
        line_index=index,
        verdict_like=kind.verdict_like,
        local=kind.local,
        example=kind.example and index != state.echoed,
        round=not in_round and (kind.round or _numbered_round(kind.mark, state)),
        part=kind.part,
        advisory=kind.advisory,
        round_record=in_round,
    )
    while state.sections and state.sections[-1].level >= level:
        state.sections.pop()
    state.sections.append(section)
    state.local = any(s.local for s in state.sections)
    state.part = any(s.part for s in state.sections)
    state.example = any(s.example for s in state.sections)
    # A round of one part ('Follow-up round: CHANGELOG wording') replaces no earlier verdict:
    # its yes is a part's yes (`heading_kind`), the earlier no still stands.
    return section.round and not section.part and not state.example


def _numbered_round(mark: RoundMark, state: _State) -> bool:
    """A heading that numbers a review opens a round when it is a later one ('Review 2'),
    or the final one after a numbered review ('Initial verdict' … 'Final verdict'); alone,
    'Final verdict' is the one review's verdict section and supersedes nothing."""
    opens = mark is RoundMark.LATER or (mark is RoundMark.FINAL and state.numbered)
    state.numbered = state.numbered or mark is not RoundMark.NONE
    return opens


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


def _introduces(low: str) -> bool:
    """The line ends with a word that introduces what follows ('… such as', 'e.g.')."""
    tail = low.rstrip(" \t*_`>:")[-40:]
    return bool(tail) and _INTRODUCER_END.search(tail) is not None


def _is_instruction_or_template(line: Line, state: _State) -> bool:
    low = line.low
    if state.instruction_tail:
        state.example_gap = False
        return True
    if _introduces(low) or _INTRO_LINE.match(low):
        _example_follows(state)  # 'Reply with a line such as', 'For example', 'Template'
        return True
    if not _ANY_HINT.search(low):
        return False  # the common case, in one search
    if _is_template(low):
        return True
    if _instruction_in(low):
        _instruction_tail(line, low, state)
        return True
    intro = _EXAMPLE_INTRO.match(low) is not None
    if intro:
        _example_follows(state)  # 'Example lines', 'Sample output'
    return intro


def _example_follows(state: _State) -> None:
    """What follows — on the next lines, or after one blank line — is the example."""
    state.instruction_tail = True
    state.example_gap = True


# A verdict field named by its two values, then its separator: '**Go/No-Go:** GO',
# 'Pass/Fail: PASS'. The pair names the field, so only its value can be a template's choices.
_CHOICE_NAMED_LABEL = compile_lazily(
    r"[ \t>*_`-]*(?:go[ \t]*/[ \t]*no[- ]go|ship[ \t]*/[ \t]*no[- ]ship|pass[ \t]*/[ \t]*fail)"
    r"(?:[ \t]+decision)?[*_` \t]*:"
)


def _is_template(low: str) -> bool:
    yaml_value = _YAML_VALUE.match(low) if "#" in low else None
    shown = yaml_value.group(1) if yaml_value is not None else low
    named = _CHOICE_NAMED_LABEL.match(shown)
    if named is not None:
        shown = shown[named.end() :]
    return bool(
        _TEMPLATE_HINT.search(shown)
        and (_TEMPLATE.search(shown) or ("{" in shown and "}" in shown and "status" in shown))
    )


def _instruction_in(low: str) -> bool:
    """An instruction phrase, or an example word before the line's first separator."""
    if _INSTRUCTION_RE.search(low):
        return True
    example = _EXAMPLE_WORDS.search(low)
    separator = _FIRST_SEPARATOR.search(low)
    return example is not None and (separator is None or example.start() < separator.start())


def _instruction_tail(line: Line, low: str, state: _State) -> None:
    """An instruction ending in ':' introduces the example that follows it; one whose
    sentence runs on ('Reply with a line' / 'Verdict: APPROVE' / 'when done.') carries the
    rest of its paragraph with it."""
    ends = low.rstrip(" *_`")
    state.instruction_tail = ends.endswith(":") or (
        _TERMINATED.search(ends) is None and _LIST_ITEM.match(line.raw) is None
    )


def is_table_row(raw: str) -> bool:
    """A line of a GFM table (or a cell-separated line shaped like one): it opens with `|`."""
    return raw.lstrip().startswith("|")


_DELIMITER_ROW = compile_lazily(
    r"[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*"
)


def is_delimiter_row(raw: str) -> bool:
    """A GFM table's delimiter row (`|---|:--:|`): the line under its header row."""
    return _DELIMITER_ROW.fullmatch(raw) is not None
