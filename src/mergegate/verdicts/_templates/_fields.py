"""Building a verdict site from a field a recogniser read, the one-line field readers share,
and the `key: value` line shape."""

from __future__ import annotations

import re
from collections.abc import Callable

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind

__all__ = ["KEY_LINE", "field_site", "line_fields"]

KEY_LINE = compile_lazily(r"([a-z][a-z0-9_-]{0,40})[ \t]*:(.*)")
"""A `key: value` line (matched from its first character): a lower-case key of at most 41
characters, then the rest of the line. YAML frontmatter (`_frontmatter`) and a GSD report's
top-level fields (`gsd`) read keys alike."""


def field_site(index: int, line: Line, decision: Decision, *, dialect: str, reason: str) -> Site:
    """The site of a verdict field at `line`, scoped like the line (a field under "Alternative
    2" or "File: a.py" is not the document's) and flagged as it is (look-alikes, cap)."""
    return Site(
        index=index,
        decision=decision,
        dialect=dialect,
        reason=reason,
        kind=LabelKind.VERDICT,
        local=line.local,
        part=line.part,
        lookalike=has_lookalike(line.raw),
        capped=line.capped,
    )


def line_fields(
    doc: Doc,
    field: re.Pattern[str],
    decide: Callable[[re.Match[str]], tuple[Decision, str]],
    *,
    name: str,
    max_chars: int,
) -> Recognised | None:
    """Template `name` when some live line of at most `max_chars` is the field `field` as a
    whole (a vote, a review state, a gate): each one a site with the (decision, reason)
    `decide` reads from it, and accounted for; None when there is none."""
    sites = []
    for index, line in enumerate(doc.lines):
        match = field.fullmatch(line.raw) if line.live and len(line.raw) <= max_chars else None
        if match is not None:
            decision, reason = decide(match)
            sites.append(field_site(index, line, decision, dialect=name, reason=reason))
    accounted = frozenset(s.index for s in sites)
    return Recognised(name=name, sites=tuple(sites), accounted=accounted) if sites else None
