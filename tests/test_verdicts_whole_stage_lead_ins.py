"""A status line that names the review's stages as a whole before its answer (issue 23: a
stage/status line whose approving word is not the line's first word was `malformed`):

* a quantifier of the whole and the stages' noun — 'All stages ✅ APPROVED', 'both reviews
  passed — APPROVED';
* every stage by name, each checked, then a dash — 'Spec ✅ / Quality ✅ — APPROVED'.

The lead-in says which parts the answer covers: all of them. A stage not checked, a
quantifier of part, and a condition or a no after the answer still refuse."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(status: str) -> str:
    return (
        "# Task 3 review\n\n## Spec review\n\nAll requirements met.\n\n"
        f"## Code quality\n\nNo issues.\n\n{status}\n"
    )


@pytest.mark.parametrize(
    "status",
    [
        "**Status:** All stages ✅ APPROVED",
        "**Status:** Both stages ✅ Approved",
        "**Final status:** all two stages — APPROVED",
        "**Result:** both reviews passed — APPROVED",
        "Status: Spec ✅ / Quality ✅ — APPROVED",
        "**Status:** Spec compliance ✅, Code quality ✅ — APPROVED",
        "**Verdict:** spec ✔ + quality ✔: PASS",
    ],
)
def test_an_answer_after_the_stages_named_as_a_whole_approves(status: str) -> None:
    verdict = parse_verdict(_review(status))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("**Status:** All stages ✅ APPROVED once CI is green", Decision.FIXES),
        ("**Status:** both reviews — REJECTED", Decision.REJECT),
        ("**Status:** All stages ✅ changes requested", Decision.FIXES),
    ],
)
def test_what_follows_the_lead_in_is_read_as_written(status: str, expected: Decision) -> None:
    assert parse_verdict(_review(status)).decision is expected


@pytest.mark.parametrize(
    "status",
    [
        "**Status:** Spec ✅ / Quality ❌ — APPROVED",
        "**Status:** Spec ✅ / Quality ⚠️ — APPROVED",
        "**Status:** some stages ✅ APPROVED",
        "**Status:** most reviews passed — APPROVED",
        "**Result:** both reviews failed — APPROVED",
    ],
)
def test_a_stage_left_unchecked_or_a_part_counted_is_no_lead_in(status: str) -> None:
    verdict = parse_verdict(_review(status))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


_STAGE = st.sampled_from(["spec", "quality", "security", "tests", "docs"])
_MARK = st.sampled_from(["✅", "✔", "❌", "⚠️", "⏳", "🔁"])


@given(stages=st.lists(st.tuples(_STAGE, _MARK), min_size=2, max_size=4))
def test_a_checked_stage_list_approves_only_when_every_stage_is_checked(
    stages: list[tuple[str, str]],
) -> None:
    listed = " / ".join(f"{name} {mark}" for name, mark in stages)
    verdict = parse_verdict(_review(f"**Status:** {listed} — APPROVED"))
    if verdict.decision is Decision.APPROVE:
        assert all(mark in ("✅", "✔") for _, mark in stages)
