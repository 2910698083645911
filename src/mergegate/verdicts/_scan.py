"""One linear pass over untrusted text that finds the top-level JSON objects in it.

The scanner never parses values; it only tracks brackets and strings, so it stays linear in
the length of the text whatever the input (megabytes of `{` included) and keeps at most
`MAX_CANDIDATES` spans. `json.loads` then parses each span, whose lengths add up to at most the
length of the text.

Rules, chosen so that a gate never takes a fragment for an answer:

* Outside any object, a `{` opens a candidate only when the next non-blank character could
  start a JSON member (`"`, `'` or `}`) or the text ends — so prose like "use {name} here"
  does not open one.
* Inside an object, every bracket counts; a closer that does not match the innermost opener
  closes the nearest matching one (the inner ones are abandoned, json.loads reports them).
* Strings are followed with their escapes. A raw newline does not end a string: agents often
  put one inside a value, and that must surface as a `json_syntax` error with a position, not
  as a string that never closed.
* If the text ends while an object is open, the output is truncated — whatever came before.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from mergegate.verdicts._patterns import compile_lazily

__all__ = ["MAX_CANDIDATES", "ScanResult", "Span", "scan_objects"]

MAX_CANDIDATES = 64
"""Only the last this-many top-level objects are kept; the last one decides anyway."""

# Inside an object: a bracket, or a whole string with its escapes. The string branch always
# matches — up to its closing quote or to the end of the text (group 1 says which) — and its
# quantifiers are possessive, so no attempt fails and backtracks: the pass stays linear.
_TOKEN = compile_lazily(r"""[{}\[\]]|"(?:[^"\\]++|\\.)*+("|\\?\Z)""", re.DOTALL)
# A `{` whose next non-blank character can start a member, or that ends the text. The
# possessive `*+` never backtracks, so each blank run is read once: linear overall.
_OBJECT_START = compile_lazily(r"""\{(?=[ \t\r\n]*+(?:["'}]|\Z))""")
_OPENERS = {"}": ord("{"), "]": ord("[")}


@dataclass(frozen=True, slots=True)
class Span:
    """Offsets `[start, end)` of one top-level object in the scanned text."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What one pass found."""

    candidates: tuple[Span, ...]
    """Closed top-level objects, in order (the last `MAX_CANDIDATES` of them)."""
    dropped: int
    """Closed objects before those, not kept."""
    unclosed_at: int | None
    """Offset of the outermost `{` still open at the end of the text: the output is truncated."""
    open_brackets: str
    """The brackets still open at the end, outermost first (e.g. `{[{`)."""
    in_string: bool
    """True when the text ends inside a string."""
    first_brace: int | None
    """Offset of the first `{` in the text, whether or not it opened a candidate."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.stack = bytearray()  # open brackets; one byte each, so depth costs little memory
        self.counts = {ord("{"): 0, ord("["): 0}  # how many of each are open (keeps closing O(1))
        self.start = 0  # offset of the outermost open `{`
        self.spans: deque[Span] = deque(maxlen=MAX_CANDIDATES)
        self.closed = 0
        self.in_string = False

    def run(self) -> ScanResult:
        text = self.text
        first = text.find("{")
        while self.pos < len(text) and self._open_top_level() and self._scan_object():
            pass
        return ScanResult(
            candidates=tuple(self.spans),
            dropped=self.closed - len(self.spans),
            unclosed_at=self.start if self.stack else None,
            open_brackets=self.stack.decode("ascii"),
            in_string=self.in_string,
            first_brace=first if first >= 0 else None,
        )

    def _open_top_level(self) -> bool:
        """Find the next `{` that can start an object; False when there is none."""
        match = _OBJECT_START.search(self.text, self.pos)
        if match is None:
            self.pos = len(self.text)
            return False
        self.pos = match.end()
        self._push(ord("{"))
        self.start = match.start()
        return True

    def _scan_object(self) -> bool:
        """Follow the object just opened until it closes (True) or the text ends (False)."""
        text, search, pos = self.text, _TOKEN.search, self.pos
        while True:
            match = search(text, pos)
            if match is None:
                self.pos = len(text)
                return False
            pos = match.end()
            char = text[match.start()]
            if char == '"':
                if match.group(1) != '"':  # the string runs to the end of the text
                    self.in_string = True
                    self.pos = len(text)
                    return False
            elif char in "{[":
                self._push(ord(char))
            elif self._close(_OPENERS[char], match.start()):
                self.pos = pos
                return True

    def _push(self, opener: int) -> None:
        self.stack.append(opener)
        self.counts[opener] += 1

    def _close(self, opener: int, at: int) -> bool:
        """Close the nearest matching opener; True when that closed a top-level object."""
        if not self.counts[opener]:
            return False  # a closer with nothing to close: json.loads will say so if it matters
        # rfind only runs when it will succeed, and everything it passes over is popped, so
        # each opener is looked at a bounded number of times: the pass stays linear.
        index = self.stack.rfind(opener)
        for abandoned in self.stack[index:]:
            self.counts[abandoned] -= 1
        del self.stack[index:]
        if self.stack:
            return False
        self.spans.append(Span(self.start, at + 1))
        self.closed += 1
        return True


def scan_objects(text: str) -> ScanResult:
    """Find the top-level JSON object candidates of `text` in one linear pass."""
    return _Scanner(text).run()
