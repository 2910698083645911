"""Gerrit votes: `Code-Review+2` approves; `+1` is not an approval by itself (another
reviewer must still approve); `0` is no vote; `-1` asks for fixes; `-2` rejects (a veto).

Only a line that is the vote (`Code-Review+2`, `- **Code-Review-1**`, `Code-Review: +2`) is a
field; a vote quoted inside a sentence is prose for the generic reader.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import field_site

__all__ = ["NAME", "recognise"]

NAME = "gerrit"

_VOTE = re.compile(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`]*code-review[ \t]*:?[ \t]*([+-]?[0-2])[*_`]*[ \t.]*",
    re.IGNORECASE,
)
_DECISION = {
    "+2": (Decision.APPROVE, "Code-Review+2 approves"),
    "2": (Decision.APPROVE, "Code-Review+2 approves"),
    "+1": (Decision.MALFORMED, "Code-Review+1 is not an approval by itself"),
    "1": (Decision.MALFORMED, "Code-Review+1 is not an approval by itself"),
    "0": (Decision.MALFORMED, "Code-Review 0 is no vote"),
    "+0": (Decision.MALFORMED, "Code-Review 0 is no vote"),
    "-0": (Decision.MALFORMED, "Code-Review 0 is no vote"),
    "-1": (Decision.FIXES, "Code-Review-1 asks for changes"),
    "-2": (Decision.REJECT, "Code-Review-2 vetoes the change"),
}


def recognise(doc: Doc) -> Recognised | None:
    """Every vote line as a verdict field, or None when there is none."""
    sites = []
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank or len(line.raw) > 40:
            continue
        vote = _VOTE.fullmatch(line.raw)
        if vote is not None:
            decision, reason = _DECISION[vote.group(1)]
            sites.append(field_site(index, line, decision, dialect=NAME, reason=reason))
    if not sites:
        return None
    return Recognised(name=NAME, sites=tuple(sites), accounted=frozenset(s.index for s in sites))
