"""Plan-given regular expressions, matched in linear time (RE2).

A key link's `pattern` is written by whoever wrote the plan, and the files it is matched
against by whoever wrote the code: both are untrusted. Python's `re` backtracks (`(a+)+$`
takes exponential time), so patterns go through RE2, which guarantees time linear in the
input and refuses the constructs that would need backtracking (backreferences, lookaround).
A pattern RE2 refuses, or that is not a valid regular expression at all, is searched as
literal text instead, and the evidence says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

__all__ = ["PatternMatch", "search_pattern"]

_MAX_MEMORY = 64 << 20


@dataclass(frozen=True, slots=True)
class PatternMatch:
    """Where a pattern matched (1-based line and the line's text), and how it was read."""

    found: bool
    line: int | None = None
    text: str = ""
    literal: bool = False
    """True when the pattern was searched as plain text (not a usable RE2 expression)."""


def _compile(pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print parse errors to stderr itself
    options.max_mem = _MAX_MEMORY
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None


def search_pattern(pattern: str, text: str) -> PatternMatch:
    """Search `text` for `pattern` (RE2 syntax; literal text if it is not a valid RE2 pattern)."""
    compiled = _compile(pattern)
    if compiled is None:
        offset = text.find(pattern)
        return _at(text, offset, literal=True)
    match = compiled.search(text)
    return _at(text, match.start() if match else -1, literal=False)


def _at(text: str, offset: int, *, literal: bool) -> PatternMatch:
    if offset < 0:
        return PatternMatch(False, literal=literal)
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    snippet = text[start : end if end != -1 else len(text)].strip()
    return PatternMatch(True, line, snippet[:200], literal)
