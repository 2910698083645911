"""The rendered view: what a person sees for each source line, from markdown-it-py (CommonMark).

The line scanner (`_lines`) reads source lines; Markdown renders some of them as nothing and
others as something the scanner's own rules would not guess. This module parses the document
once with markdown-it-py (CommonMark, raw HTML on, GFM tables) and says, per line index:

- `invisible`: it renders as nothing — a link-reference definition (`[x]: <url> "APPROVED"`)
  or an HTML block made only of comments. Such a line can carry no decision either way;
- `code`: fenced or indented code (also indented inside a list item) and `<pre>` blocks: shown
  as code, never a verdict;
- `filtered`: `<script>`, `<style>` and `<textarea>` blocks. GitHub's tag filter (GFM's
  disallowed raw HTML) escapes their tags, so what they hold shows as text, and a browser
  shows a textarea's text in a box: never an approval (another renderer hides it), but read
  for a no like the reviewer's text;
- `quote`: inside a block quote, including a lazy continuation line (`> a` then `b` with no
  blank line renders `b` inside the quote): someone else's words, never a verdict — except a
  GitHub alert (`> [!WARNING]` first), which renders as the writer's own callout;
- `setext`: a setext heading's first text line (`Critical` over `========`) and its level;
  `underline` its underline line;
- HTML structure in an HTML block, rewritten as the Markdown that renders the same: a line
  that is one `<h1>`…`<h6>` element becomes its `#` heading, a table row (`<tr>` … `</tr>`,
  on one line or several) the pipe row of its cells, and the lines made only of tags blank;
- `rewrites`: lines part of which renders as nothing, with that part blanked (same length):
  HTML comments as a browser ends them (`<!-->` and `<!--->` are whole empty comments, `--!>`
  closes one as `-->` does) — in an HTML block, or inside a paragraph where CommonMark reads
  one (closed within its block, not in a code span, not backslash-escaped: `\\<!--` is
  text) — and the `<pre>` … `</pre>` part of a line whose text goes on after the closing tag
  (`<pre>x</pre> visible text`: the text after it shows).

Nothing else about a line's liveness is guessed from its shape: a `+` or `-1` line, a line
after `@@`, a paragraph indented inside a list item, an indented `>` that continues a
paragraph all render as text, so they are read as text.

A footnote definition (`[^1]: only after …`) is visible text (GitHub renders it at the foot of
the page, without its `[^1]:` marker); CommonMark without the footnote extension may read a
one-word one as a link reference, so such lines are never `invisible`, and `footnotes` names
them so that the scanner reads their text without the marker.

markdown-it is imported lazily, and only for a document with markup that can render
differently from its source (`needs_view`): a plain review pays nothing. Only its block pass
runs (its inline pass costs up to 30 µs a character on hostile emphasis and raw HTML): whether
a paragraph holds a real inline comment is read from its source lines with code spans
taken out (`blank_comments`, linear). Block parsing still costs up to ~5 s per MB on hostile shapes
(table rows, setext headings), so it runs only on documents of at most `MAX_VIEW_CHARS`
characters (real reviews are well under 100 KB); a longer document with markup gets no view
(`rendered_view` returns None) and the decision refuses to approve it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from mergegate.verdicts._patterns import compile_lazily

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = [
    "MAX_VIEW_CHARS",
    "RenderedView",
    "blank_struck",
    "blank_struck_html",
    "footnote_marker",
    "needs_view",
    "rendered_view",
]

# Markup whose rendering the line scanner could misread: link references and footnotes, raw
# HTML and comments, quotes, setext underlines, indented code, entities.
_NEEDS = compile_lazily(
    r"^ {0,3}\[[^\]\n]+\]:|<|^ {0,3}>|^ {0,3}(?:=+|-+)[ \t]*$|^(?: {4}|\t)", re.M
)
_FOOTNOTE = compile_lazily(r" {0,3}\[\^[^\]]+\]:[ \t]*")
# CommonMark's HTML block start condition 1: the tag name, then a space, '>' or the line end.
_CODE_HTML = compile_lazily(r"[ \t]*<(?:pre|script|style|textarea)(?=[ \t>]|$)", re.I | re.M)
_FILTERED_HTML = compile_lazily(r"[ \t]*<(?:script|style|textarea)(?=[ \t>]|$)", re.I | re.M)
_CODE_HTML_END = compile_lazily(r"</(?:pre|script|style|textarea)>", re.I)
_BACKTICKS = compile_lazily(r"`+")
# A GitHub alert (`> [!NOTE]` … `> [!CAUTION]` on the quote's first line) renders as the
# writer's own callout, not as someone else's words: its lines are the reviewer's text.
_ALERT = compile_lazily(r" {0,3}>[ \t]*\[!(?:note|tip|important|warning|caution)\][ \t]*$", re.I)
_MAX_NESTING = 40
MAX_VIEW_CHARS = 128_000
"""Documents longer than this (with markup) are not rendered, and never approve."""


@dataclass(frozen=True, slots=True)
class RenderedView:
    """Per line index (0-based, of the lines given), how the line renders (module docstring)."""

    invisible: frozenset[int] = frozenset()
    code: frozenset[int] = frozenset()
    filtered: frozenset[int] = frozenset()
    items: tuple[range, ...] = ()
    """The lines of each list item, the paragraphs indented under it included."""
    quote: frozenset[int] = frozenset()
    setext: dict[int, int] = field(default_factory=dict)
    underline: frozenset[int] = frozenset()
    rewrites: dict[int, str] = field(default_factory=dict)
    footnotes: frozenset[int] = frozenset()


def footnote_marker(line: str) -> int:
    """Where the text of a footnote definition line starts (after `[^1]:`), 0 if it is none."""
    match = _FOOTNOTE.match(line)
    return match.end() if match else 0


def needs_view(lines: Sequence[str]) -> bool:
    """True when the text has markup that can render differently from its source lines."""
    return _NEEDS.search("\n".join(lines)) is not None  # one search in C, not one per line


def rendered_view(lines: Sequence[str]) -> RenderedView | None:
    """Parse `lines` as CommonMark (+ tables, raw HTML) and classify every line (see above);
    None when the text is longer than `MAX_VIEW_CHARS`."""
    text = "\n".join(lines)
    if len(text) > MAX_VIEW_CHARS:
        return None
    tokens = _parser().parse(text)
    walk = _Walk(lines)
    for token in tokens:
        walk.token(token)
    footnotes: set[int] = set()
    for index, text in enumerate(lines):
        if _FOOTNOTE.match(text) and index not in walk.code:
            footnotes.add(index)
        elif text.strip() and index not in walk.covered:
            walk.invisible.add(index)
    return RenderedView(
        invisible=frozenset(walk.invisible),
        code=frozenset(walk.code),
        filtered=frozenset(walk.filtered),
        items=tuple(walk.items),
        quote=frozenset(walk.quote),
        setext=walk.setext,
        underline=frozenset(walk.underline),
        rewrites=walk.rewrites,
        footnotes=frozenset(footnotes),
    )


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - lazy: only documents with markup

    options = {"html": True, "maxNesting": _MAX_NESTING}
    return MarkdownIt("commonmark", options).enable("table").disable("inline")


@dataclass(slots=True)
class _Walk:
    lines: Sequence[str]
    covered: set[int] = field(default_factory=set)
    invisible: set[int] = field(default_factory=set)
    code: set[int] = field(default_factory=set)
    filtered: set[int] = field(default_factory=set)
    items: list[range] = field(default_factory=list)
    quote: set[int] = field(default_factory=set)
    setext: dict[int, int] = field(default_factory=dict)
    underline: set[int] = field(default_factory=set)
    rewrites: dict[int, str] = field(default_factory=dict)
    _last: range = range(0)

    def token(self, token: Token) -> None:
        if token.map is None:
            return
        span = range(token.map[0], token.map[1])
        self.covered.update(span)
        kind = token.type
        if kind in ("fence", "code_block"):
            self.code.update(span)
        elif kind == "blockquote_open" and not _ALERT.match(self.lines[span.start]):
            self.quote.update(span)
        elif kind == "list_item_open":
            self.items.append(span)
        elif kind == "html_block":
            self._html(token, span)
        elif kind == "heading_open" and token.markup[:1] in ("=", "-"):
            # The first line opens the heading; later lines of a multi-line one read as its
            # section's text (a heading that opens a new section per line could split an
            # instruction from the verdict line it introduces).
            self.setext[span[0]] = int(token.tag[1:])
            self.underline.add(span[-1])
        elif kind == "inline" and "<!--" in token.content and span != self._last:
            self._last = span  # the cells of a table row share its span: blank it once
            self._rewrite(span, blank_comments(self._text(span), html=False))

    def _text(self, span: range) -> str:
        return "\n".join(self.lines[span.start : span.stop])

    def _html(self, token: Token, span: range) -> None:
        if _FILTERED_HTML.match(token.content):
            self.filtered.update(span)
        elif _CODE_HTML.match(token.content):
            self._code_html(span)
        elif "<!--" in token.content:
            shown = blank_comments(self._text(span), html=True)
            if not shown.strip():
                self.invisible.update(span)
            else:
                self._rewrite(span, shown)
                self._structure(span)
        else:
            self._structure(span)

    def _structure(self, span: range) -> None:
        """HTML headings and table rows, shown as the Markdown that renders the same: a
        line that is one `<h1>`…`<h6>` element as its `#` heading, rows as pipe rows."""
        shown = [self.rewrites.get(i, self.lines[i]) for i in span]
        out = html_rows(shown, span.start) if _HTML_ROW.search("\n".join(shown)) else {}
        for index, line in zip(span, shown, strict=True):
            heading = _HTML_HEADING.fullmatch(line) if "<" in line else None
            if heading is not None:
                text = " ".join(_TAG.sub(" ", heading.group(2)).split())
                out[index] = "#" * int(heading.group(1)) + " " + text
        self.rewrites.update(out)

    def _code_html(self, span: range) -> None:
        """`<pre>` … `</pre>`: code, up to the closing tag; text after it on its line shows."""
        self.code.update(span)
        last = span[-1]
        end = _CODE_HTML_END.search(self.lines[last])
        if end is not None and self.lines[last][end.end() :].strip():
            self.code.discard(last)
            self.rewrites[last] = " " * end.end() + self.lines[last][end.end() :]

    def _rewrite(self, span: range, shown: str) -> None:
        if "<!--" not in self._text(span):
            return
        for index, text in zip(span, shown.split("\n"), strict=True):
            if text != self.lines[index]:
                self.rewrites[index] = text


_HTML_HEADING = compile_lazily(r"[ \t]*<h([1-6])(?:[ \t][^<>]*)?>(.*?)</h\1[ \t]*>[ \t]*", re.I)
_HTML_ROW = compile_lazily(
    r"<tr(?=[\s>])[^<>]*>(.*?)(?=</tr\s*>|<tr[\s>]|</table\s*>|\Z)", re.I | re.S
)
_HTML_CELL = compile_lazily(r"<t[dh](?=[\s>])[^<>]*>", re.I)
_TAG = compile_lazily(r"</?[a-z][^<>]*>", re.I)


def html_rows(lines: Sequence[str], first: int) -> dict[int, str]:
    """The lines of an HTML block holding table rows, as GitHub shows them: each row
    (`<tr><td>Security</td><td>FAIL</td></tr>`, on one line or several) as the pipe-table
    row it renders like (`| Security | FAIL |`) on its `<tr>` line, the other lines of the
    row and the lines made only of tags (`<table>`, `</tr>`) blank; text outside a row as it
    stands. Keyed by line index (`first` is the index of `lines[0]`)."""
    text = "\n".join(lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    out: dict[int, str] = {}
    rows = [(bisect_right(starts, r.start()) - 1, r) for r in _HTML_ROW.finditer(text)]
    opened = Counter(begin for begin, _ in rows)
    for begin, row in rows:
        if opened[begin] > 1:
            continue  # several rows on one line: no pipe row shows them; left as written
        end = bisect_right(starts, max(row.end() - 1, row.start())) - 1
        cells = [" ".join(_TAG.sub(" ", c).split()) for c in _HTML_CELL.split(row.group(1))[1:]]
        out[first + begin] = "| " + " | ".join(c or " " for c in cells) + " |"
        out.update((first + i, "") for i in range(begin + 1, end + 1))
    for i, line in enumerate(lines):
        if first + i not in out and line.strip() and not _TAG.sub("", line).strip():
            out[first + i] = ""
    return out


def blank_comments(text: str, *, html: bool) -> str:
    """`text` with every HTML comment a reader does not see blanked to spaces (same length,
    same line breaks). `html`: raw HTML, as a browser reads it (an unclosed comment runs to
    the end). Otherwise Markdown inline text: a comment is one only when it closes in the
    text, outside code spans, and its `<` is not backslash-escaped. Either way `<!-->` and
    `<!--->` are whole empty comments and the browser ends one at `--!>` as well as `-->`.
    Linear: each search moves forward."""
    if "<!--" not in text:
        return text
    spans = _SpanIndex([] if html else _code_spans(text))
    closes = _Closer(text)
    out: list[str] = []
    pos = 0
    start = text.find("<!--")
    while start >= 0:
        end = None
        if html or not (_escaped(text, start) or spans.holds(start)):
            end = _comment_end(text, start, closes, html)
        if end is None:
            start = text.find("<!--", start + 1)
            continue
        out.append(text[pos:start])
        out.append(re.sub(r"[^\n]", " ", text[start:end]))
        pos = end
        start = text.find("<!--", end)
    out.append(text[pos:])
    return "".join(out)


class _Closer:
    """The first `-->` at or after a position, searched forward only (positions only grow)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = -2  # not searched yet

    def after(self, body: int) -> int:
        if self.at == -2 or (0 <= self.at < body):
            self.at = self.text.find("-->", body)
        return self.at


class _SpanIndex:
    """Code spans, asked in increasing positions."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self.i = 0

    def holds(self, at: int) -> bool:
        while self.i < len(self.spans) and self.spans[self.i][1] <= at:
            self.i += 1
        return self.i < len(self.spans) and self.spans[self.i][0] <= at


_TILDES = compile_lazily(r"~+")


def blank_struck(text: str) -> str:
    """`text` (one line) with GitHub's strikethrough blanked to spaces (same length): a run
    of one or two tildes opens where it is left-flanking and is closed by the nearest later
    run of the same length that is right-flanking (`~~APPROVED~~`, `~rejected~`) — the
    delimiter rules of CommonMark's emphasis, which GFM applies to tildes: `self~~(not yet)~~`
    opens nothing (a letter before the run, punctuation after it), and GitHub shows it as
    text. Struck text is shown crossed out — withdrawn, not said — so no reader takes a
    verdict from it. Runs in code spans, escaped (`\\~`) or of three tildes or more are
    text. Linear: each run is pushed and popped at most once."""
    if "~" not in text:
        return text
    spans = _SpanIndex(_code_spans(text))
    opened: dict[int, list[int]] = {1: [], 2: []}
    struck: list[tuple[int, int]] = []
    for run in _TILDES.finditer(text):
        start, end = run.span()
        size = end - start
        if size > 2 or spans.holds(start) or _escaped(text, start):
            continue
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        stack = opened[size]
        if stack and _flanking(after, before):  # right-flanking: it may close
            first = stack.pop()
            struck.append((first, end))
            for other in opened.values():  # openers inside the struck span are text now
                while other and other[-1] > first:
                    other.pop()
        elif _flanking(before, after):  # left-flanking: it may open
            stack.append(start)
    if not struck:
        return text
    out = list(text)
    for first, end in struck:
        out[first:end] = " " * (end - first)
    return "".join(out)


# GitHub's HTML sanitizer keeps `<s>`, `<del>` and `<strike>`: each shows its text crossed
# out, as `~~…~~` does. A tag in a code span is text, and so is an escaped `\\<`.
_STRIKE_OPEN = compile_lazily(r"<(s|del|strike)(?:[ \t][^<>]{0,200})?>", re.IGNORECASE)
_STRIKE_CLOSE = {
    name: compile_lazily(rf"</{name}[ \t]*>", re.IGNORECASE) for name in ("s", "del", "strike")
}


def blank_struck_html(text: str) -> str:
    """`text` (one line) with what an HTML strikethrough tag covers blanked to spaces (same
    length), the tags included: `<s>APPROVED</s>` shows the approval crossed out — withdrawn,
    not said, like `~~APPROVED~~` (`blank_struck`). A tag left open strikes to the end of the
    line (a browser strikes to the end of its block; the line is all a reader here takes from
    it). Linear: each search moves forward."""
    if "<" not in text:
        return text
    spans = _SpanIndex(_code_spans(text))
    out = list(text)
    pos = 0
    while (tag := _STRIKE_OPEN.search(text, pos)) is not None:
        start = tag.start()
        if spans.holds(start) or _escaped(text, start):
            pos = tag.end()
            continue
        close = _STRIKE_CLOSE[tag.group(1).lower()].search(text, tag.end())
        end = close.end() if close is not None else len(text)
        out[start:end] = " " * (end - start)
        pos = end
    return "".join(out)


def _flanking(outside: str, inside: str) -> bool:
    """Whether a delimiter run with `outside` on one side and `inside` on the side it would
    cover flanks that side (CommonMark 6.2): `inside` is not white space, and it is not
    punctuation unless `outside` is white space or punctuation too."""
    if inside.isspace():
        return False
    return not _punctuation(inside) or outside.isspace() or _punctuation(outside)


def _punctuation(ch: str) -> bool:
    """A Unicode punctuation character in CommonMark's sense: general category P or S."""
    return unicodedata.category(ch)[0] in "PS"


def _comment_end(text: str, start: int, closes: _Closer, html: bool) -> int | None:
    """Where the browser's comment opened at `start` ends (exclusive); None when Markdown
    reads no comment there (inline text without a closing `-->`)."""
    body = start + 4
    for empty in (">", "->"):
        if text.startswith(empty, body):
            return body + len(empty)
    close = closes.after(body)
    if close < 0 and not html:
        return None
    bang = text.find("--!>", body, close if close >= 0 else len(text))
    if bang >= 0:
        return bang + 4
    return close + 3 if close >= 0 else len(text)


def _escaped(text: str, start: int) -> bool:
    """`\\<!--` in Markdown text is a literal `<` (an odd run of backslashes before it)."""
    at = start
    while at > 0 and text[at - 1] == "\\":
        at -= 1
    return (start - at) % 2 == 1


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The CommonMark code spans of `text`, in linear time: a run of n backticks opens a span
    that the next run of exactly n backticks closes; a run with no such partner is text."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    partner: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        partner[i] = last.get(length)
        last[length] = i
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        j = partner[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans
