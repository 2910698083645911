"""Issue 23: a BMAD gate file's `status_reason` is the gate's own reason, read as a field.

BMAD's template fills `status_reason` with "1-2 sentence summary of why this gate decision".
Two shapes of a genuine PASS reason were read as conditions: a narrated fix ("requirements met
after resolving the API issue": `after` with a gerund, told of a state already reached) and an
obligation the reason itself declares non-blocking ("clarification needed but not blocking").
The hostile twins put a real condition in the same field: they never approve.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _gate(reason: str, *, blank: bool = False) -> str:
    gap = "\n" if blank else ""
    return (
        "schema: 1\n"
        "story: '2.3'\n"
        "story_title: 'Export endpoint'\n"
        "gate: PASS\n"
        f"{gap}status_reason: '{reason}'\n"
        "reviewer: 'Quinn (Test Architect)'\n"
        "updated: '2026-01-05T10:00:00Z'\n\n"
        "top_issues: []\n\n"
        "recommendations:\n"
        "  immediate: []\n"
        "  future:\n"
        "    - action: 'Consider caching the export query'\n"
        "      refs: ['api/export.py']\n"
    )


GENUINE = [
    "Every acceptance criterion met after fixing the pagination bug. Tests are thorough.",
    "All checks passed after adding an index on the export table; code is clean.",
    "Export works end to end. A small README clarification needed but not blocking.",
    "Solid implementation; one naming tweak recommended (non-blocking).",
]
HOSTILE = [
    # a fix still ahead: the state is not reached yet
    "Every acceptance criterion will be met after fixing the pagination bug.",
    "Ready after fixing the pagination bug.",
    "Passes after the pagination bug is fixed.",
    "Every acceptance criterion met after fixing the pagination bug, once the index lands.",
    # an obligation not declared non-blocking, or one tied to the merge
    "Export works end to end. A small README clarification needed.",
    "A README clarification needed before merge but not blocking otherwise.",
    "The migration must be reverted but not blocking.",
    "Export works. Docs fix needed but not blocking; rename the flag once the API lands.",
    # approvals only in name
    "Approved after fixing the pagination bug.",
    "Good, pending the security review.",
]


@pytest.mark.parametrize("blank", [False, True], ids=["paragraph", "below"])
@pytest.mark.parametrize("reason", GENUINE)
def test_a_genuine_status_reason_keeps_the_pass(reason: str, blank: bool) -> None:
    verdict = parse_verdict(_gate(reason, blank=blank))
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "bmad"


@pytest.mark.parametrize("blank", [False, True], ids=["paragraph", "below"])
@pytest.mark.parametrize("reason", HOSTILE)
def test_a_condition_in_the_status_reason_refuses_the_pass(reason: str, blank: bool) -> None:
    verdict = parse_verdict(_gate(reason, blank=blank))
    assert verdict.decision is not A, verdict.reasons


def test_a_multi_line_status_reason_is_read_whole() -> None:
    """A folded YAML value: its continuation lines are the same field."""
    text = _gate("x").replace(
        "status_reason: 'x'\n",
        "status_reason: >\n  Every acceptance criterion met after fixing the bug.\n"
        "  Merge once the nightly job passes.\n",
    )
    assert parse_verdict(text).decision is not A
    genuine = text.replace("  Merge once the nightly job passes.\n", "  Tests are thorough.\n")
    assert parse_verdict(genuine).decision is A, parse_verdict(genuine).reasons


@pytest.mark.parametrize(
    "comment", ["# merge once CI is green", "# pending the security review", "# must fix docs"]
)
def test_a_comment_after_the_status_reason_is_read_with_it(comment: str) -> None:
    """YAML drops the comment from the value, but whoever reads the file sees it."""
    text = _gate("Every acceptance criterion met.").replace(
        "criterion met.'\n", f"criterion met.'  {comment}\n"
    )
    assert comment in text
    assert parse_verdict(text).decision is not A
