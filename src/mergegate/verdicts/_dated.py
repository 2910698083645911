"""Dated records: which of a frontmatter verdict and a dated body section is newer.

A frontmatter written by a tool says when it was last written (`updated:`, `updated_at:`,
`last_updated:`, `date:`); a review continued in the body often dates its new round in the
heading (`## Re-verification (2026-02-10, after the hotfix)`, `## Update 2026-11-27 17:30`).
When a heading is dated *after* the frontmatter, the frontmatter is not the newest record:
the round under that heading is (README: the last review decides). Only a provably later
date counts — a later day, or the same day with both times given and the heading's later;
a heading without a date, or a frontmatter without one, proves nothing.
"""

from __future__ import annotations

import re

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily

__all__ = ["later_dated_headings"]

_FRONT_DATE = compile_lazily(
    r"(?:updated|updated_at|last_updated|date)[ \t]*:[ \t]*[\"']?"
    r"(\d{4}-\d\d-\d\d)(?:[tT ](\d\d:\d\d))?"
)
_HEADING_DATE = compile_lazily(r"(?<!\d)(\d{4}-\d\d-\d\d)(?:[tT ](\d\d:\d\d))?(?![\d-])")
# A date written with its month's name ('21 Nov 2026', 'November 21, 2026', 'Nov 23'): the
# day before or after the month, the year optional — a heading without one is read in the
# frontmatter's year (a round dated 'Nov 23' under `updated: 2026-11-20` is later).
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
_NAMED_DATE = compile_lazily(
    rf"(?<![\w])(?:(\d{{1,2}})(?:st|nd|rd|th)?[ \t]+{_MONTH}|{_MONTH}[ \t]+(\d{{1,2}})"
    r"(?:st|nd|rd|th)?)(?![\w])(?:,?[ \t]+(\d{4})(?!\d))?"
)
Stamp = tuple[str, str | None]


def later_dated_headings(doc: Doc) -> tuple[int, ...]:
    """The line indexes of the live body headings dated after the frontmatter's date."""
    front = _frontmatter_date(doc)
    if front is None:
        return ()
    return tuple(
        index
        for index in range(doc.frontmatter_end + 1, len(doc.lines))
        if doc.lines[index].heading_level
        and doc.lines[index].live
        and (
            _later(_HEADING_DATE.search(doc.lines[index].raw), front)
            or _later_named(_NAMED_DATE.search(doc.lines[index].raw.lower()), front)
        )
    )


def _frontmatter_date(doc: Doc) -> Stamp | None:
    """The newest date the frontmatter's top-level date keys give."""
    stamps: list[Stamp] = []
    for index in range(1, max(doc.frontmatter_end, 0)):
        match = _FRONT_DATE.match(doc.lines[index].raw)  # top level: no indent
        if match is not None:
            stamps.append((match.group(1), match.group(2)))
    return max(stamps, key=lambda s: (s[0], s[1] or "")) if stamps else None


def _later(match: re.Match[str] | None, front: Stamp) -> bool:
    if match is None:
        return False
    day, time = match.group(1), match.group(2)
    if day != front[0]:
        return day > front[0]
    return time is not None and front[1] is not None and time > front[1]


def _later_named(match: re.Match[str] | None, front: Stamp) -> bool:
    """A date written with its month's name (`_NAMED_DATE`) falls on a later day than the
    frontmatter's; a heading gives no time this way, so the same day is not later."""
    if match is None:
        return False
    day = int(match.group(1) or match.group(4))
    month = _MONTHS.index((match.group(2) or match.group(3))[:3]) + 1
    year = match.group(5) or front[0][:4]
    return f"{year}-{month:02d}-{day:02d}" > front[0] and 1 <= day <= 31
