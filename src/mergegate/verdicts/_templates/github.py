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
from mergegate.verdicts._templates._fields import line_fields, with_objections

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


# What `gh pr view --json` says beside the review decision: the pull request's merge state,
# whether it merges cleanly, and its checks. Only GitHub's own values are read.
_MERGE_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`\"]*(mergestatestatus|merge[ _]state[ _]status|mergeable)[*_`\"]*"
    r"[ \t]*:[ \t]*[*_`\"]*([a-z_]+)[*_`\"]*[ \t,]*",
    re.IGNORECASE,
)
_MERGES = frozenset({"clean", "has_hooks", "mergeable"})
_CHECKS_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`\"]*(statuscheckrollup|checks|status[ _]checks)[*_`\"]*[ \t]*:(.*)",
    re.IGNORECASE,
)
_CHECK_FAILED = compile_lazily(
    r"(?<![a-z_])(?:failure|failed|error|cancelled|timed_out|action_required|startup_failure|"
    r"stale|pending|in_progress|queued)(?![a-z_])",
    re.IGNORECASE,
)


def recognise(doc: Doc) -> Recognised | None:
    """Every review-state line as a verdict field, or None when there is none. Beside it, a
    merge state other than CLEAN (BLOCKED, DIRTY, UNSTABLE, BEHIND …), `mergeable:
    CONFLICTING` or a check that did not succeed is a field that does not approve: GitHub
    would not merge the pull request as it stands."""
    found = line_fields(doc, _STATE, _decision, name=NAME, max_chars=60)
    if found is None:
        return None
    merge = line_fields(doc, _MERGE_FIELD, _merge_decision, name=NAME, max_chars=80)
    checks = line_fields(doc, _CHECKS_FIELD, _checks_decision, name=NAME, max_chars=2000)
    return with_objections(found, merge, checks)


def _merge_decision(field: re.Match[str]) -> tuple[Decision, str]:
    value = field.group(2).lower()
    if value in _MERGES:
        return Decision.APPROVE, f"{field.group(1)} is {value.upper()}"
    return Decision.FIXES, f"GitHub's {field.group(1)} is {value.upper()}: it would not merge"


def _checks_decision(field: re.Match[str]) -> tuple[Decision, str]:
    failed = _CHECK_FAILED.search(field.group(2))
    if failed is None:
        return Decision.APPROVE, "every check succeeded"
    return Decision.FIXES, f"a check of the pull request is {failed.group(0).upper()}"


def _decision(state: re.Match[str]) -> tuple[Decision, str]:
    value = state.group(1).lower()
    return _DECISION.get(
        value, (Decision.MALFORMED, f"the GitHub review state {value.upper()} is no verdict")
    )
