"""A record field above the verdict that says the work is not done (issue 23, white-box
round 21): `**Approvals:** 1/2 required`, `Ready: almost`, `CI: pending` in the summary a
closing verdict sums up. These refused only in the verdict's own section after it; above
it the same field sat in the body and the approval stood over work its own record calls
unfinished. Table rows and marked lines above the verdict are not read this way: there
they are often findings the review weighed.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_TOP = "# Review: retry backoff\n\n## Summary\n\nAdds backoff to the uploader; tests cover it.\n\n"
_VERDICT = "\n\n## Verdict\n\n**Verdict:** APPROVED\n"


@pytest.mark.parametrize(
    "field",
    [
        "**Approvals:** 1/2 required",
        "**Ready:** almost",
        "- Reviewed: 3 of 11 files",
        "**Score:** 3/10",
        "Test coverage: 12%",
        "CI: pending",
        "Tested: not yet",
        "**Outstanding work:** rollback script",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_an_unfinished_field_above_the_verdict_refuses(field: str, strict: bool) -> None:
    verdict = parse_verdict(_TOP + field + _VERDICT, strict=strict)
    assert not verdict.approved
    assert "above the approval" in verdict.reasons[0]


@pytest.mark.parametrize(
    "field",
    [
        "**Approvals:** 2/2",
        "**Ready:** yes",
        "- Reviewed: 11 of 11 files",
        "**Score:** 9/10",
        "CI: green",
        "Breaking changes: no",
        "**Outstanding work:** none",
        "| Check | Result |\n|---|---|\n| SMTP provider | ❌ not wired (Important) |",
        # A sentence under a label is the body's prose, which the verdict sums up.
        "Expected: on narrow widths the card should feel like part of the Phase 5/6 workspace.",
        "- **Constraints respected**: no modifications to `lib/` wrappers or `helpers.php`",
    ],
)
def test_a_done_field_or_a_table_row_above_the_verdict_approves(field: str) -> None:
    assert parse_verdict(_TOP + field + _VERDICT).approved


def test_a_field_of_a_superseded_round_does_not_refuse() -> None:
    text = (
        "# Review\n\n## Round 1\n\n**Ready:** no\n\nVerdict: CHANGES REQUESTED\n\n"
        "## Round 2\n\nThe retry cap is in; tests cover it." + _VERDICT
    )
    assert parse_verdict(text).approved


@given(top=st.integers(min_value=1, max_value=500), data=st.data())
def test_a_reviewed_count_above_the_verdict_approves_only_when_whole(
    top: int, data: st.DataObject
) -> None:
    done = data.draw(st.integers(min_value=0, max_value=top))
    approved = parse_verdict(_TOP + f"**Reviewed:** {done} of {top} files" + _VERDICT).approved
    assert approved is (done == top)
