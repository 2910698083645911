"""The rendered view: what a person sees for each source line, from markdown-it-py (CommonMark).

The line scanner (`_lines`) reads source lines; Markdown renders some of them as nothing and
others as something the scanner's own rules would not guess. This module parses the document
once with markdown-it-py (CommonMark, raw HTML on, GFM tables) and says, per line index:

- `invisible`: it renders as nothing — a link-reference definition (`[x]: <url> "APPROVED"`)
  or an HTML block made only of comments. Such a line can carry no decision either way;
- `code`: fenced or indented code (also indented inside a list item) and `<pre>`, `<script>`,
  `<style>`, `<textarea>` blocks: shown as code, never a verdict;
- `quote`: inside a block quote, including a lazy continuation line (`> a` then `b` with no
  blank line renders `b` inside the quote): someone else's words, never a verdict;
- `setext`: a setext heading's first text line (`Critical` over `========`) and its level;
  `underline` its underline line;
- `comment_ok`: lines of blocks where markdown-it found a real HTML comment. Elsewhere `<!--`
  (in inline code, say) opens nothing, so the scanner must not hide what follows it.

A footnote definition (`[^1]: only after …`) is visible text (GitHub renders it at the foot of
the page, without its `[^1]:` marker); CommonMark without the footnote extension may read a
one-word one as a link reference, so such lines are never `invisible`, and `footnotes` names
them so that the scanner reads their text without the marker.

markdown-it is imported lazily, and only for a document with markup that can render
differently from its source (`needs_view`): a plain review pays nothing. Only its block pass
runs (its inline pass costs up to 30 µs a character on hostile emphasis and raw HTML): whether
a paragraph holds a real inline comment is read from its text with code spans taken out
(`_without_code_spans`, linear). Block parsing still costs up to ~5 s per MB on hostile shapes
(table rows, setext headings), so it runs only on documents of at most `MAX_VIEW_CHARS`
characters (real reviews are well under 100 KB); a longer document with markup gets no view
(`rendered_view` returns None) and the decision refuses to approve it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["MAX_VIEW_CHARS", "RenderedView", "footnote_marker", "needs_view", "rendered_view"]

# Markup whose rendering the line scanner could misread: link references and footnotes, raw
# HTML and comments, quotes, setext underlines, indented code, entities.
_NEEDS = re.compile(r"^ {0,3}\[[^\]\n]+\]:|<|^ {0,3}>|^ {0,3}(?:=+|-+)[ \t]*$|^(?: {4}|\t)", re.M)
_FOOTNOTE = re.compile(r" {0,3}\[\^[^\]]+\]:[ \t]*")
_CODE_HTML = ("<pre", "<script", "<style", "<textarea")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_BACKTICKS = re.compile(r"`+")
_MAX_NESTING = 40
MAX_VIEW_CHARS = 128_000
"""Documents longer than this (with markup) are not rendered, and never approve."""


@dataclass(frozen=True, slots=True)
class RenderedView:
    """Per line index (0-based, of the lines given), how the line renders (module docstring)."""

    invisible: frozenset[int] = frozenset()
    code: frozenset[int] = frozenset()
    quote: frozenset[int] = frozenset()
    setext: dict[int, int] = field(default_factory=dict)
    underline: frozenset[int] = frozenset()
    comment_ok: frozenset[int] = frozenset()
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
    walk = _Walk()
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
        quote=frozenset(walk.quote),
        setext=walk.setext,
        underline=frozenset(walk.underline),
        comment_ok=frozenset(walk.comment_ok),
        footnotes=frozenset(footnotes),
    )


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - lazy: only documents with markup

    options = {"html": True, "maxNesting": _MAX_NESTING}
    return MarkdownIt("commonmark", options).enable("table").disable("inline")


@dataclass(slots=True)
class _Walk:
    covered: set[int] = field(default_factory=set)
    invisible: set[int] = field(default_factory=set)
    code: set[int] = field(default_factory=set)
    quote: set[int] = field(default_factory=set)
    setext: dict[int, int] = field(default_factory=dict)
    underline: set[int] = field(default_factory=set)
    comment_ok: set[int] = field(default_factory=set)
    _block: range = range(0)

    def token(self, token: Token) -> None:
        if token.map is None:
            if token.type == "inline":
                self._inline(token)
            return
        span = range(token.map[0], token.map[1])
        self.covered.update(span)
        self._block = span
        kind = token.type
        if kind in ("fence", "code_block"):
            self.code.update(span)
        elif kind == "blockquote_open":
            self.quote.update(span)
        elif kind == "html_block":
            self._html(token, span)
        elif kind == "heading_open" and token.markup[:1] in ("=", "-"):
            # The first line opens the heading; later lines of a multi-line one read as its
            # section's text (a heading that opens a new section per line could split an
            # instruction from the verdict line it introduces).
            self.setext[span[0]] = int(token.tag[1:])
            self.underline.add(span[-1])
        elif kind == "inline":
            self._inline(token)

    def _html(self, token: Token, span: range) -> None:
        content = token.content.lstrip()
        if content.lower().startswith(_CODE_HTML):
            self.code.update(span)
        elif "<!--" in content:
            self.comment_ok.update(span)
            if not _COMMENT.sub("", content).strip():
                self.invisible.update(span)

    def _inline(self, token: Token) -> None:
        if "<!--" in token.content and "<!--" in _without_code_spans(token.content):
            self.comment_ok.update(self._block)


def _without_code_spans(text: str) -> str:
    """`text` with its CommonMark code spans removed, in linear time: a run of n backticks
    opens a span that the next run of exactly n backticks closes; a run with no such partner
    is literal text."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    partner: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        partner[i] = last.get(length)
        last[length] = i
    out: list[str] = []
    pos = i = 0
    while i < len(runs):
        j = partner[i]
        if j is None:
            i += 1
            continue
        out.append(text[pos : runs[i][0]])
        pos = runs[j][1]
        i = j + 1
    out.append(text[pos:])
    return "".join(out)
