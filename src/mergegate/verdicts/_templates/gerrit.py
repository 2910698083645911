"""Gerrit votes: `Code-Review+2` approves; `+1` is not an approval by itself (another
reviewer must still approve); `0` is no vote; `-1` asks for fixes; `-2` rejects (a veto).

Only a line that is the vote (`Code-Review+2`, `- **Code-Review-1**`, `Code-Review: +2`), or
the first line of Gerrit's own message (`Patch Set 3: Code-Review+2`), is a field; a vote
quoted inside a sentence is prose for the generic reader.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import line_fields, with_objections

__all__ = ["NAME", "recognise"]

NAME = "gerrit"

_VOTE = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`]*(?:patch[ \t]*set[ \t]+\d{1,4}[ \t]*:[ \t]*)?"
    r"code-review[ \t]*:?[ \t]*([+-]?[0-2])[*_`]*[ \t.]*",
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


# A vote on any other label: `Verified-1`, `Security-Review-1`, `Patch Set 4: Verified-1`.
_LABEL_VOTE = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`]*(?:patch[ \t]*set[ \t]+\d{1,4}[ \t]*:[ \t]*)?"
    r"((?!code-review)[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,4})"
    r"[ \t]*:?[ \t]*([+-][0-2])[*_`]*[ \t.]*",
    re.IGNORECASE,
)


def recognise(doc: Doc) -> Recognised | None:
    """Every vote line as a verdict field, or None when there is none. A negative vote on any
    other label (`Verified-1`, a project's own `Security-Review-1`) is a field too: Gerrit does
    not submit a change with it (fail closed: mergegate does not know the label's function);
    a positive one approves nothing by itself."""
    found = line_fields(doc, _VOTE, lambda vote: _DECISION[vote.group(1)], name=NAME, max_chars=60)
    if found is None:
        return None
    return with_objections(
        found, line_fields(doc, _LABEL_VOTE, _label_decision, name=NAME, max_chars=80)
    )


def _label_decision(vote: re.Match[str]) -> tuple[Decision, str]:
    label, value = vote.group(1), vote.group(2)
    if value.startswith("-") and value != "-0":
        decision = Decision.REJECT if value == "-2" else Decision.FIXES
        return decision, f"{label}{value}: a negative vote keeps the change from being submitted"
    return Decision.APPROVE, f"{label}{value}"
