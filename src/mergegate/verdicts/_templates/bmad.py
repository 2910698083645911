"""BMAD's QA gate: `gate: PASS | CONCERNS | FAIL | WAIVED` (the gate yaml, or the story's
`Gate: X → docs/qa/gates/….yml` line). Only PASS approves: CONCERNS asks for fixes, FAIL
rejects, and WAIVED is a person setting the gate aside, not the reviewer approving (fixes).

A field is the gate line with its value and nothing after it but the path of the gate file;
any other text after the value (`gate: PASS # once CI is green`) is left to the generic
grammar, which reads it as text after an approval.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import field_site

__all__ = ["NAME", "recognise"]

NAME = "bmad"

_GATE = re.compile(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]*(?:qa[ \t]+)?gate(?:[ \t]+status)?[*_]*[ \t]*:[ \t]*[*_\"']*"
    r"(pass|concerns|fail|waived)[*_\"']*(?:[ \t]*(?:→|->)[ \t]*`?[\w./{}-]{1,200}`?)?[ \t]*",
    re.IGNORECASE,
)
_DECISION = {
    "pass": (Decision.APPROVE, "the QA gate is PASS"),
    "concerns": (Decision.FIXES, "the QA gate is CONCERNS"),
    "fail": (Decision.REJECT, "the QA gate is FAIL"),
    "waived": (Decision.FIXES, "the QA gate is WAIVED: set aside by a person, not passed"),
}


def recognise(doc: Doc) -> Recognised | None:
    """Every gate line as a verdict field, or None when there is none."""
    sites = []
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank or len(line.raw) > 260:
            continue
        gate = _GATE.fullmatch(line.raw)
        if gate is not None:
            decision, reason = _DECISION[gate.group(1).lower()]
            sites.append(field_site(index, line, decision, dialect=NAME, reason=reason))
    if not sites:
        return None
    return Recognised(name=NAME, sites=tuple(sites), accounted=frozenset(s.index for s in sites))
