"""GitHub review states: `APPROVED` approves, `CHANGES_REQUESTED` asks for fixes, and
`COMMENTED` (or `DISMISSED`, `PENDING`) is no verdict.

A field is a line `state: <STATE>`, `review state: <STATE>` or `reviewDecision: <STATE>` (as
`gh pr view --json` and the review API print them; also as a bold label, `**Review state:**
APPROVED`), the value one of GitHub's states and nothing after it.
"""

from __future__ import annotations

import re

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import line_fields

__all__ = ["NAME", "recognise"]

NAME = "github"

_STATE = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`\"]*(?:review[ _]?state|state|review[ _]?decision)[*_`\"]*"
    r"[ \t]*:[*_`\"]*[ \t]*[*_`\"]*"
    r"(approved|changes_requested|commented|dismissed|pending|review_required)[*_`\"]*[ \t,]*",
    re.IGNORECASE,
)
_DECISION = {
    "approved": (Decision.APPROVE, "the GitHub review state is APPROVED"),
    "changes_requested": (Decision.FIXES, "the GitHub review state is CHANGES_REQUESTED"),
}


def recognise(doc: Doc) -> Recognised | None:
    """Every review-state line as a verdict field, or None when there is none."""
    return line_fields(doc, _STATE, _decision, name=NAME, max_chars=60)


def _decision(state: re.Match[str]) -> tuple[Decision, str]:
    value = state.group(1).lower()
    return _DECISION.get(
        value, (Decision.MALFORMED, f"the GitHub review state {value.upper()} is no verdict")
    )
