"""Building a verdict site from a field a recogniser read."""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Line
from mergegate.verdicts._site import Site
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind

__all__ = ["field_site"]


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
