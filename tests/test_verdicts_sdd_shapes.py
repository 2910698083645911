"""Issue 23: two shapes of genuine approvals a person reads at once, each beside a hostile
twin the same rule must still refuse.

* A stage verdict as a heading: `## Spec verdict: ✅` / `## Quality verdict: Approved` (the
  two-stage subagent review) names the stage's verdict field, like `Spec compliance:`.
* The list under an advisory label (`**Minor:**`, `Suggestions:`) holds graded findings, not
  prose after the verdict that must read as a statement; the list ends where it ends.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _stages(spec: str, quality: str, minor: str = "") -> str:
    return (
        "# Task 3 Review\n\n"
        f"## Spec verdict: {spec}\n\n- [x] `render_cards()` added as the brief says.\n\n"
        f"## Quality verdict: {quality}\n\n**Critical:** None.\n**Important:** None.\n"
        f"**Minor:**\n{minor or '- The helper could be named more plainly.'}\n"
    )


STAGES = [
    (_stages("✅", "Approved"), True),
    (_stages("✅ Compliant", "Approved"), True),
    (_stages("✅", "Needs changes"), False),
    (_stages("❌ Missing the CTA branch", "Approved"), False),
]

MINOR_LISTS = [
    # Polish items, worded like a person writes them: graded by their label.
    ("- Flagging only as a future polish item, not a defect.", True),
    ("- Consider renaming `x`.\n  It reads oddly next to `y`.", True),
    # Blocking content in a minor list still blocks; the list ends where it ends.
    ("- The token check must be fixed before merge.", False),
    ("- Rename `x`.\n\nRotate the leaked key before merging this.", False),
]


@pytest.mark.parametrize(("text", "approves"), STAGES)
def test_a_stage_verdict_heading_is_the_stage_field(text: str, approves: bool) -> None:
    verdict = parse_verdict(text)
    assert (verdict.decision is A) is approves, verdict.reasons


@pytest.mark.parametrize(("minor", "approves"), MINOR_LISTS)
def test_the_list_under_an_advisory_label_holds_graded_findings(minor: str, approves: bool) -> None:
    verdict = parse_verdict(_stages("✅", "Approved", minor))
    assert (verdict.decision is A) is approves, verdict.reasons
