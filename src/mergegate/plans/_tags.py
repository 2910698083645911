"""Tolerant scanning for GSD's XML-looking blocks (`<task type="auto"> ... </task>`).

The blocks are not XML: their content holds raw `<`, `&`, code fences, generics such as
`Array<string>` and tag-like prose (agent prompt snippets). So only *known* tag names count,
only at the start of a line (after indentation) for an opener, only at the start or the end of
a line for a closer, and never inside a fenced code block.

One pass indexes every opener and closer line; elements are then matched with binary search,
so scanning stays O(n log n) however the tags are (un)balanced. A block whose closer is missing
ends where the next sibling block opens (or at its parent's end) and the scanner reports it,
rather than reading the rest of the file into it.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass

from mergegate.plans._document import Document

__all__ = ["Element", "TagIndex"]

_OPEN = re.compile(r"^[ \t]*<([A-Za-z][\w-]*)((?:[ \t][^<>]*)?)>(.*)$")
_CLOSE_LINE = re.compile(r"^[ \t]*</([A-Za-z][\w-]*)>[ \t]*$")
_CLOSE_TAIL = re.compile(r"</([A-Za-z][\w-]*)>[ \t]*$")
_ATTR = re.compile(r"([A-Za-z_][\w:.-]*)[ \t]*=[ \t]*(?:\"([^\"]*)\"|'([^']*)')")


@dataclass(frozen=True)
class Element:
    """One known block: its name, attributes and the lines it spans (0-based, inclusive)."""

    name: str
    attrs: dict[str, str]
    start: int
    end: int
    inner_start: int
    """First line of the content that is not on the opener line (start + 1, or start)."""
    inner_end: int
    """Exclusive end of the content lines (the closer line, or end + 1 when unclosed)."""
    text: str
    """The content, dedented, without the tags and surrounding blank lines."""
    closed: bool


class TagIndex:
    """Where each tag name opens and closes in a document (fenced lines excluded)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._opens: dict[str, list[int]] = defaultdict(list)
        self._closes: dict[str, list[int]] = defaultdict(list)
        self._open_match: dict[int, re.Match[str]] = {}
        for i, line in enumerate(doc.lines):
            if doc.fenced[i] or "<" not in line:
                continue
            opener = _OPEN.match(line)
            if opener:
                name = opener.group(1).lower()
                self._opens[name].append(i)
                self._open_match[i] = opener
            closer = _CLOSE_LINE.match(line) or _CLOSE_TAIL.search(line)
            if closer:
                self._closes[closer.group(1).lower()].append(i)

    def count(self, name: str, start: int = 0) -> int:
        """How many `<name ...>` openers there are from line `start` on."""
        positions = self._opens.get(name, [])
        return len(positions) - bisect_left(positions, start)

    def elements(self, names: frozenset[str], start: int, end: int) -> list[Element]:
        """The outermost known blocks in lines `start`..`end` (exclusive), in order."""
        openers = sorted(
            (i, name) for name in names for i in _between(self._opens.get(name, []), start, end)
        )
        found: list[Element] = []
        cursor = start
        for k, (i, name) in enumerate(openers):
            if i < cursor:
                continue  # inside the previous block: its text, not structure
            next_sibling = openers[k + 1][0] if k + 1 < len(openers) else end
            element = self._element(name, i, next_sibling, end)
            found.append(element)
            cursor = element.end + 1
        return found

    def _element(self, name: str, i: int, next_sibling: int, limit: int) -> Element:
        opener = self._open_match[i]
        attrs = {m.group(1): m.group(2) or m.group(3) or "" for m in _ATTR.finditer(opener[2])}
        rest = opener.group(3)
        closing = f"</{name}>"
        tail = rest.lower().rfind(closing)
        if tail >= 0 and not rest[tail + len(closing) :].strip():
            return Element(name, attrs, i, i, i, i, rest[:tail].strip(), closed=True)
        close = self._next_close(name, i, limit)
        if close is not None and (close < next_sibling or not self._opens_between(name, i, close)):
            return self._span(name, attrs, i, close, rest, closed=True)
        end = (next_sibling if next_sibling < limit else limit) - 1
        return self._span(name, attrs, i, max(end, i), rest, closed=False)

    def _next_close(self, name: str, i: int, limit: int) -> int | None:
        closes = self._closes.get(name, [])
        k = bisect_right(closes, i)
        return closes[k] if k < len(closes) and closes[k] < limit else None

    def _opens_between(self, name: str, i: int, close: int) -> bool:
        opens = self._opens.get(name, [])
        k = bisect_right(opens, i)
        return k < len(opens) and opens[k] < close

    def _span(
        self, name: str, attrs: dict[str, str], i: int, end: int, rest: str, *, closed: bool
    ) -> Element:
        lines = list(self.doc.lines[i + 1 : end + (0 if closed else 1)])
        if closed:
            last = self.doc.lines[end]
            cut = last.lower().rfind(f"</{name}>")
            if last[:cut].strip():
                lines.append(last[:cut])
        body = textwrap.dedent("\n".join(lines)).strip("\n")
        text = f"{rest.strip()}\n{body}".strip() if rest.strip() else body.strip()
        inner_end = end if closed else end + 1
        return Element(name, attrs, i, end, i + 1, inner_end, text, closed=closed)


def _between(positions: list[int], start: int, end: int) -> list[int]:
    return positions[bisect_left(positions, start) : bisect_left(positions, end)]
