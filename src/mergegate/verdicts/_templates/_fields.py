"""Building a verdict site from a field a recogniser read, and the `key: value` line shape."""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Line
from mergegate.verdicts._site import Site
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind

__all__ = ["KEY_LINE", "field_site"]

KEY_LINE = re.compile(r"([a-z][a-z0-9_-]{0,40})[ \t]*:(.*)")
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
