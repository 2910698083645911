"""When a heading says a section came after the fix ('post-fix', 'after the fix'), it opens a
new round only beside words about the review itself ('Post-fix review', 'Findings
(post-fix)', 'After the fix') or a part of the change (a scoped round). Beside the name of a
record it dates that record, a section of the same review: 'Checklist post-fix' under an
approval is the approval's checklist, not a newer review without a verdict (issue 23:
genuine approvals refused as `malformed`), and a yes under it does not replace a no above."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_RECORDS = ["Checklist", "Notes", "Test results", "Changed files", "Commands run", "Evidence"]
_WHEN = ["post-fix", "post fix", "(post-fix)", "after the fix", "after fixes"]


def _approval_then(heading: str, body: str) -> str:
    head = "# Code review\n\n**Verdict:** APPROVE\n\nEverything checks out.\n\n"
    return f"{head}## {heading}\n\n{body}"


def _no_then(heading: str) -> str:
    return (
        "# Code review\n\n**Verdict:** REQUEST CHANGES\n\nThe cache leaks file handles.\n\n"
        f"## {heading}\n\n**Verdict:** APPROVE\n"
    )


@pytest.mark.parametrize("record", _RECORDS)
@pytest.mark.parametrize("when", _WHEN)
def test_a_record_dated_after_the_fix_is_a_section_of_the_approving_review(
    record: str, when: str
) -> None:
    text = _approval_then(f"{record} {when}", "- [x] Tests pass\n- [x] Lint clean\n")
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("record", _RECORDS)
@pytest.mark.parametrize("when", _WHEN)
def test_a_yes_under_a_record_dated_after_the_fix_does_not_replace_a_no(
    record: str, when: str
) -> None:
    verdict = parse_verdict(_no_then(f"{record} {when}"))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("record", _RECORDS)
def test_open_work_in_a_record_dated_after_the_fix_still_refuses(record: str) -> None:
    verdict = parse_verdict(_approval_then(f"{record} post-fix", "- [ ] migration tested\n"))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "heading",
    ["Post-fix review", "After the fix", "Verdict after fixes", "Post-fix verdict", "Post-fix"],
)
def test_a_heading_about_the_review_after_the_fix_still_opens_a_round(heading: str) -> None:
    """The newer review decides: its yes replaces the no of the round above it."""
    verdict = parse_verdict(_no_then(heading))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@given(
    record=st.sampled_from([*_RECORDS, "Open questions", "Risks", "Follow-ups", "Deploy steps"]),
    when=st.sampled_from(_WHEN),
)
def test_no_record_heading_after_the_fix_lets_a_later_yes_outvote_a_no(
    record: str, when: str
) -> None:
    assert parse_verdict(_no_then(f"{record} {when}")).decision is not Decision.APPROVE
