"""Plan-given patterns matched against whole files, in linear time (RE2): one matcher for an
artifact's `contains` and a key link's `pattern`.

A plan's pattern is written by whoever wrote the plan, and the files it is matched against by
whoever wrote the code: both are untrusted. Python's `re` backtracks (`(a+)+$` takes
exponential time), so patterns go through RE2, which guarantees time linear in the input and
refuses the constructs that would need backtracking (backreferences, lookaround).

Plan authors write patterns the way they would `grep` a line, while code spans lines: an
`import {` list over six lines, an `export {…} from` block, a call chain split before
`.method(`. So a pattern is searched in three views of the file, each a linear pass:

1. the text as it is (multi-line mode: `^` and `$` match at every line);
2. *joined*: every run of whitespace, newlines included, read as one space;
3. *tight*: joined, and no space after `(`, `[`, `{` or before `)`, `]`, `}`, `,`, `.`, `;`
   (so `foo\\n  .bar(\\n x)` reads `foo.bar(x)`).

In each view the pattern is tried as a regular expression and as literal text (a `contains`
of `foo(bar)` means those characters). When nothing matches, the same views are searched
ignoring case, and a hit there says so (`ignored_case`). A pattern RE2 refuses is searched as
literal text only, and the result says so. A match always reports the line of the original
file where it starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

__all__ = ["PatternMatch", "search_pattern"]

_MAX_MEMORY = 64 << 20
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]},.;")


@dataclass(frozen=True, slots=True)
class PatternMatch:
    """Where a pattern matched (1-based line and the line's text), and how it was read."""

    found: bool
    line: int | None = None
    text: str = ""
    literal: bool = False
    """True when the pattern was not a usable RE2 expression and was searched as plain text."""
    view: str = "text"
    """`text`, `joined` (across lines) or `tight` (across lines and around punctuation)."""
    ignored_case: bool = False
    """True when it matched only with letter case ignored."""

    def describe(self) -> str:
        """How it matched, for evidence: empty for a plain match in the text."""
        how = []
        if self.view != "text":
            how.append("across line breaks")
        if self.ignored_case:
            how.append("ignoring letter case")
        if self.literal:
            how.append("as literal text: not a valid RE2 pattern")
        return f" ({'; '.join(how)})" if how else ""


def _compile(pattern: str, *, ignore_case: bool) -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print parse errors to stderr itself
    options.max_mem = _MAX_MEMORY
    options.case_sensitive = not ignore_case
    options.posix_syntax = False
    try:
        return re2.compile(f"(?m){pattern}", options)
    except re2.error:
        return None


@dataclass(frozen=True, slots=True)
class _View:
    name: str
    text: str
    origin: list[int] | None
    """For each character of `text`, its offset in the original (None: the original)."""

    def original(self, offset: int) -> int:
        if self.origin is None:
            return offset
        return self.origin[min(offset, len(self.origin) - 1)] if self.origin else 0


def _joined(text: str, *, tight: bool) -> _View:
    """One linear pass: whitespace runs become one space (none at all around punctuation when
    `tight`), with the original offset of every kept character."""
    out: list[str] = []
    origin: list[int] = []
    pending: int | None = None  # offset of a whitespace run not written yet
    for i, ch in enumerate(text):
        if ch.isspace():
            if pending is None:
                pending = i
            continue
        if pending is not None and out:
            glue = not tight or (out[-1] not in _OPEN and ch not in _CLOSE)
            if glue:
                out.append(" ")
                origin.append(pending)
        pending = None
        out.append(ch)
        origin.append(i)
    return _View("tight" if tight else "joined", "".join(out), origin)


def _views(text: str) -> list[_View]:
    return [_View("text", text, None), _joined(text, tight=False), _joined(text, tight=True)]


def _search(
    pattern: str, text: str, views: list[_View], *, ignore_case: bool
) -> PatternMatch | None:
    compiled = _compile(pattern, ignore_case=ignore_case)
    needle = pattern.lower() if ignore_case else pattern
    for view in views:
        if compiled is not None:
            match = compiled.search(view.text)
            if match is not None:
                return _at(text, view, match.start(), literal=False, ignore_case=ignore_case)
        haystack = view.text.lower() if ignore_case else view.text
        at = haystack.find(needle) if needle else -1
        if at >= 0:
            return _at(text, view, at, literal=compiled is None, ignore_case=ignore_case)
    return None


def search_pattern(pattern: str, text: str) -> PatternMatch:
    """Search the whole of `text` for `pattern` (RE2 and literal, across lines; see the module
    docstring). Linear in `len(text)` for every pattern."""
    views = _views(text)
    found = _search(pattern, text, views, ignore_case=False) or _search(
        pattern, text, views, ignore_case=True
    )
    if found is not None:
        return found
    return PatternMatch(False, literal=_compile(pattern, ignore_case=False) is None)


def _at(text: str, view: _View, offset: int, *, literal: bool, ignore_case: bool) -> PatternMatch:
    at = view.original(offset)
    line = text.count("\n", 0, at) + 1
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    snippet = text[start : end if end != -1 else len(text)].strip()
    return PatternMatch(True, line, snippet[:200], literal, view.name, ignore_case)
