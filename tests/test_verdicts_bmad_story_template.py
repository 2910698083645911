"""A BMAD story file read from BMAD-METHOD's own template definitions (`_bmad_story`): the
story template's sections (v4 `story-tmpl.yaml`, v6 `create-story/template.md`), v4's QA
Results round (`review-story`) and v6's `Senior Developer Review (AI)` (`code-review`).

Documents are generated from the inventory (`STORY_PARTS`, `REVIEW_PARTS`), not copied from
real stories: a describing section with any prose keeps an approving story approving, and
every deciding field set to a value that does not approve refuses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._templates._bmad_story import (
    REVIEW_PARTS,
    STORY_PARTS,
    Role,
    inventory_rows,
)

A = Decision.APPROVE
_TITLES = {
    "tasks subtasks": "Tasks / Subtasks",
    "dev agent record": "Dev Agent Record",
    "acceptance criteria": "Acceptance Criteria",
}
# The story's own describing sections as the template nests them (level, heading).
_DESCRIBING = (
    (2, "Story"),
    (2, "Acceptance Criteria"),
    (2, "Dev Notes"),
    (3, "Testing"),
    (3, "Project Structure Notes"),
    (3, "References"),
    (2, "Change Log"),
    (2, "Dev Agent Record"),
    (3, "Agent Model Used"),
    (3, "Debug Log References"),
    (3, "Completion Notes List"),
    (3, "File List"),
)

_V6_REVIEW = """## Senior Developer Review (AI)

**Reviewer:** Alex
**Date:** 2026-03-02
**Outcome:** Approve

### Summary

Every acceptance criterion is implemented and every completed task was verified.

### Key Findings

**HIGH severity:** None.

**MEDIUM severity:** None.

**LOW severity:**
- The error message copy could be friendlier.

### Acceptance Criteria Coverage

| AC# | Description | Status | Evidence |
|-----|-------------|--------|----------|
| 1 | Email format is validated | IMPLEMENTED | src/auth.ts:12 |
| 2 | A wrong password shows an error | IMPLEMENTED | src/auth.ts:40 |

**Summary:** 2 of 2 acceptance criteria fully implemented.

### Task Completion Validation

| Task | Marked As | Verified As | Evidence |
|------|-----------|-------------|----------|
| Build the login form | [x] | VERIFIED COMPLETE | src/login.tsx:1 |

**Summary:** 1 of 1 completed tasks verified, 0 questionable, 0 falsely marked complete.

### Test Coverage and Gaps

Unit tests cover both criteria.

### Architectural Alignment

Follows the tech spec.

### Security Notes

No security findings.

### Best-Practices and References

- OWASP Authentication Cheat Sheet

### Action Items

**Code Changes Required:**
- [x] [Med] Add a unit test for an invalid email [file: tests/auth.test.ts]

**Advisory Notes:**
- Note: Consider rate limiting before production
"""

_V4_REVIEW = """## QA Results

### Review Date: 2026-03-02

### Reviewed By: Quinn (Test Architect)

### Code Quality Assessment

The implementation is clean and well structured.

### Refactoring Performed

- **File**: src/auth.ts
  - **Change**: extracted the validator
  - **Why**: it was duplicated

### Compliance Check

- Coding Standards: ✓
- Project Structure: ✓
- Testing Strategy: ✓
- All ACs Met: ✓

### Security Review

No security concerns found.

### Performance Considerations

No performance issues found.

### Files Modified During Review

- src/auth.ts

### Gate Status

Gate: PASS → docs/qa/gates/1.2-user-login.yml

### Recommended Status

✓ Ready for Done
"""

_TASKS = """- [x] Build the login form (AC: 1)
  - [x] Add email validation
- [ ] Add rate limiting later (AC: 3)
"""


def _story(
    review: str,
    *,
    status: str = "done",
    prose: dict[str, str] | None = None,
    tasks: str = _TASKS,
    v6_status_line: bool = False,
) -> str:
    """A story with every section of the template, `prose` in the describing ones."""
    prose = prose or {}
    head = f"# Story 1.2: User login\n\nStatus: {status}\n\n" if v6_status_line else ""
    parts = [head or "# Story 1.2: User login\n\n"]
    if not v6_status_line:
        parts.append(f"## Status\n\n{status}\n\n")
    for level, title in _DESCRIBING:
        body = prose.get(title, "Written by the team.")
        parts.append(f"{'#' * level} {title}\n\n{body}\n\n")
        if title == "Acceptance Criteria":
            parts.append(f"## Tasks / Subtasks\n\n{tasks}\n")
    parts.append(review)
    return "".join(parts)


@pytest.mark.parametrize("review", [_V6_REVIEW, _V4_REVIEW], ids=["v6", "v4"])
@pytest.mark.parametrize("v6_status_line", [False, True])
def test_an_approving_story_approves(review: str, v6_status_line: bool) -> None:
    verdict = parse_verdict(_story(review, v6_status_line=v6_status_line))
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "bmad"


# Prose a scrum master or dev agent may write: words that elsewhere would read as a verdict,
# a problem or an open item, in sentences and list items.
_WORDS = st.sampled_from(
    [
        "the",
        "tests",
        "fail",
        "FAIL",
        "do not merge",
        "blocked",
        "TODO",
        "critical",
        "must",
        "fix",
        "before",
        "release",
        "changes requested",
        "REJECTED",
        "bug",
        "broken",
        "error",
        "high severity",
        "approved",
        "once",
        "CI",
        "is",
        "green",
        "missing",
        "[ ]",
        "not implemented",
        "until",
        "needs",
        "review",
        "- [ ]",
        "1.",
        "**Note:**",
        "`src/auth.ts`",
    ]
)
_LINE = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join)
_LEAD = st.sampled_from(["", "- ", "* ", "1. ", "- [ ] ", "- [x] ", "> "])
_PROSE = st.lists(st.tuples(_LEAD, _LINE).map("".join), min_size=1, max_size=5).map("\n".join)


@settings(max_examples=60, deadline=None)
@given(
    review=st.sampled_from([_V6_REVIEW, _V4_REVIEW]),
    prose=st.dictionaries(st.sampled_from([t for _, t in _DESCRIBING]), _PROSE, min_size=1),
)
def test_describing_sections_with_any_prose_keep_an_approval(
    review: str, prose: dict[str, str]
) -> None:
    """A story's Dev Notes, Change Log, Completion Notes, File List … are the story's own
    text, written before or beside the review: the reviewer's record decides."""
    verdict = parse_verdict(_story(review, prose=prose))
    assert verdict.decision is A, verdict.reasons


@settings(max_examples=40, deadline=None)
@given(review=st.sampled_from([_V6_REVIEW, _V4_REVIEW]), tasks=_PROSE)
def test_task_checkboxes_keep_an_approval(review: str, tasks: str) -> None:
    """Tasks / Subtasks is the dev agent's plan: an unticked task is not a review item."""
    verdict = parse_verdict(_story(review, tasks=tasks.replace("[AI-Review]", "")))
    assert verdict.decision is A, verdict.reasons


# Every deciding field of the inventory set to a value that does not approve.
_V6_REFUSALS = {
    "outcome changes requested": ("**Outcome:** Approve", "**Outcome:** Changes Requested"),
    "outcome blocked": ("**Outcome:** Approve", "**Outcome:** Blocked"),
    "outcome conditioned": ("**Outcome:** Approve", "**Outcome:** Approve once CI is green"),
    "open action item": (
        "- [x] [Med] Add a unit test",
        "- [ ] [Med] Add a unit test",
    ),
    "high finding": ("**HIGH severity:** None.", "**HIGH severity:**\n- The password is logged"),
    "medium finding": ("**MEDIUM severity:** None.", "**MEDIUM severity:** token not rotated"),
    "tagged finding": ("- The error message copy", "- [High] The error message copy"),
    "partial criterion": ("| IMPLEMENTED | src/auth.ts:40", "| PARTIAL | src/auth.ts:40"),
    "missing criterion": ("| IMPLEMENTED | src/auth.ts:40", "| MISSING | src/auth.ts:40"),
    "coverage summary": ("2 of 2 acceptance", "1 of 2 acceptance"),
    "task not verified": ("| VERIFIED COMPLETE |", "| NOT DONE |"),
    "false completion": ("0 falsely marked", "1 falsely marked"),
    "questionable task": ("0 questionable", "2 questionable"),
}
_V4_REFUSALS = {
    "gate concerns": ("Gate: PASS", "Gate: CONCERNS"),
    "gate fail": ("Gate: PASS", "Gate: FAIL"),
    "compliance not met": ("- All ACs Met: ✓", "- All ACs Met: ✗ AC3 missing"),
    "changes required": ("✓ Ready for Done", "✗ Changes Required - See unchecked items above"),
}


@pytest.mark.parametrize(
    ("review", "old", "new"),
    [(_V6_REVIEW, *pair) for pair in _V6_REFUSALS.values()]
    + [(_V4_REVIEW, *pair) for pair in _V4_REFUSALS.values()],
    ids=[*_V6_REFUSALS, *_V4_REFUSALS],
)
def test_a_deciding_field_that_does_not_approve_refuses(review: str, old: str, new: str) -> None:
    assert old in review
    verdict = parse_verdict(_story(review.replace(old, new, 1)))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("review", [_V6_REVIEW, _V4_REVIEW], ids=["v6", "v4"])
@pytest.mark.parametrize(
    "status", ["in-progress", "Draft", "ready-for-dev", "Blocked", "Changes Requested"]
)
@pytest.mark.parametrize("v6_status_line", [False, True])
def test_a_status_that_contradicts_refuses(review: str, status: str, v6_status_line: bool) -> None:
    verdict = parse_verdict(_story(review, status=status, v6_status_line=v6_status_line))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "item",
    [
        "- [ ] [AI-Review][High] Validate the email on the server (AC #1)",
        "- [ ] [Review][Patch] Escape the error message [src/auth.ts:40]",
        "- [ ] [Review][Decision] Keep the lockout? — two readings of AC 3",
    ],
)
def test_an_open_review_follow_up_under_tasks_refuses(item: str) -> None:
    """v6's code review files its action items as follow-ups under Tasks / Subtasks; the
    dev agent ticks each when it is resolved."""
    verdict = parse_verdict(_story(_V6_REVIEW, tasks=_TASKS + item + "\n"))
    assert verdict.decision is not A, verdict.reasons
    ticked = item.replace("- [ ]", "- [x]", 1)
    assert parse_verdict(_story(_V6_REVIEW, tasks=_TASKS + ticked + "\n")).decision is A


def test_a_deferred_review_finding_keeps_an_approval() -> None:
    """A `[Review][Defer]` finding is pre-existing work the review does not hold the
    story for."""
    item = "- [ ] [Review][Defer] Old logger leaks the stack [src/log.ts:3] — deferred\n"
    verdict = parse_verdict(_story(_V6_REVIEW, tasks=_TASKS + item))
    assert verdict.decision is A, verdict.reasons


def test_the_last_review_round_decides_but_earlier_action_items_still_count() -> None:
    """Rounds are appended: an earlier Changes Requested is replaced by the later Approve,
    and its action items, once ticked, are done; an unticked one still blocks."""
    first = (
        _V6_REVIEW.replace("**Outcome:** Approve", "**Outcome:** Changes Requested")
        .replace("**HIGH severity:** None.", "**HIGH severity:**\n- The password is logged")
        .replace("- [x] [Med]", "- [x] [High]")
    )
    assert parse_verdict(_story(first + "\n" + _V6_REVIEW)).decision is A
    still_open = first.replace("- [x] [High]", "- [ ] [High]")
    assert parse_verdict(_story(still_open + "\n" + _V6_REVIEW)).decision is not A


def test_the_reviewer_describing_a_problem_refuses() -> None:
    review = _V6_REVIEW.replace("Follows the tech spec.", "The build is broken on main.")
    assert parse_verdict(_story(review)).decision is not A


def test_the_inventory_names_every_part_once_with_its_role() -> None:
    rows = list(inventory_rows())
    titles = [row[0] for row in rows]
    assert len(titles) == len(set(titles))
    assert {p.role for p in STORY_PARTS} <= set(Role)
    assert all(p.rule for p in (*STORY_PARTS, *REVIEW_PARTS) if p.role is Role.DECIDES)
    assert {"outcome", "action items", "key findings"} <= set(titles)


_FINDINGS = "### Key Findings\n\n**HIGH severity:** None.\n\n**MEDIUM severity:** None.\n\n"


@pytest.mark.parametrize(
    "findings",
    [
        # severities as headings under the part, the part's heading qualified
        "### Key Findings (by severity)\n\n#### HIGH Severity\n\n- Password logged\n\n",
        "### Key Findings\n\n#### MEDIUM Severity Issues\n\n- Token not rotated\n\n",
        # an item under HIGH whose first word is another grade is still under HIGH
        _FINDINGS.replace("**HIGH severity:** None.", "**HIGH severity:**\n- Low coverage"),
        # an item's own tag, bold or not
        _FINDINGS + "- **[HIGH]** The password is logged\n\n",
        _FINDINGS + "- [Med] The token is not rotated\n\n",
    ],
)
def test_an_open_finding_above_low_refuses_in_any_template_form(findings: str) -> None:
    review = _V6_REVIEW.replace(_FINDINGS, findings, 1)
    assert findings in review
    assert parse_verdict(_story(review)).decision is not A


@pytest.mark.parametrize(
    "findings",
    [
        "### Key Findings (by severity)\n\n#### HIGH Severity\n\nNone.\n\n#### LOW Severity\n\n"
        "- Copy could be friendlier\n\n",
        _FINDINGS + "- [Low] The copy could be friendlier\n\n",
        _FINDINGS.replace("**HIGH severity:** None.", "**HIGH severity:**\n- ✅ Fixed: logging"),
    ],
)
def test_findings_that_are_none_low_or_resolved_keep_an_approval(findings: str) -> None:
    review = _V6_REVIEW.replace(_FINDINGS, findings, 1)
    verdict = parse_verdict(_story(review))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    "outcome",
    [
        "Approve - All ACs implemented, all tasks verified, no significant issues.",
        "✅ APPROVED",
        "Approve (all 5 ACs implemented and verified)",
    ],
)
def test_an_approve_outcome_with_its_justification_approves(outcome: str) -> None:
    review = _V6_REVIEW.replace("**Outcome:** Approve", f"**Outcome:** {outcome}", 1)
    verdict = parse_verdict(_story(review))
    assert verdict.decision is A, verdict.reasons


def test_a_v4_gate_that_does_not_pass_beside_an_approving_v6_review_refuses() -> None:
    both = _V4_REVIEW.replace("Gate: PASS", "Gate: CONCERNS") + "\n" + _V6_REVIEW
    assert parse_verdict(_story(both)).decision is not A


@pytest.mark.parametrize(
    "review",
    [
        # the reviewer's record nested under a story section: the section ends there
        "### Senior Developer Review (AI)\n\n**Outcome:** Approve\n\n### Key Findings\n\n"
        "- TODO: fix the SQL injection before release\n",
        # a story heading inside the reviewer's record is the reviewer's
        "## Senior Developer Review (AI)\n\n**Outcome:** Approve\n\n### Dev Notes\n\n"
        "- TODO: fix the SQL injection before release\n",
        # a review nested in another is read as its own round
        "## Senior Developer Review (AI)\n\n**Outcome:** Changes Requested\n\n"
        "### Senior Developer Review (AI)\n\n**Outcome:** Approve\n\n#### Key Findings\n\n"
        "- TODO: fix the SQL injection before release\n",
    ],
)
def test_the_story_sections_never_account_for_the_reviewers_text(review: str) -> None:
    """The open item is left to the generic reader, which refuses it: no story section
    may account for it."""
    verdict = parse_verdict(_story(review))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("- Note: Consider rate limiting", "- Note: Do not merge until the migration is reviewed"),
        ("| src/auth.ts:40 |", "| but the tests fail on CI |"),
        ("Follows the tech spec.", "Blocker: the token leaks into the logs."),
        ("No security findings.", "Do not merge: the token leaks."),
    ],
)
def test_the_reviewers_prose_stating_a_problem_refuses(old: str, new: str) -> None:
    assert old in _V6_REVIEW
    verdict = parse_verdict(_story(_V6_REVIEW.replace(old, new, 1)))
    assert verdict.decision is not A, verdict.reasons


_V4_RE_REVIEW = """
### Re-Review Date: 2026-03-03

### Compliance Check - RE-REVIEW

- Coding Standards: ✓
- Testing Strategy: ✓

### Gate Status - RE-REVIEW

Gate: PASS → docs/qa/gates/1.2-user-login.yml
"""


def test_a_v4_re_review_in_the_same_qa_results_replaces_the_earlier_compliance_check() -> None:
    """The QA agent re-reviews in the same `## QA Results` section and writes its parts
    again ('### Compliance Check - RE-REVIEW'): the later check replaces the earlier one, in
    both directions."""
    failed_first = _V4_REVIEW.replace("- Testing Strategy: ✓", "- Testing Strategy: ✗ no tests")
    assert parse_verdict(_story(failed_first + _V4_RE_REVIEW)).decision is A
    failed_again = _V4_RE_REVIEW.replace("- Testing Strategy: ✓", "- Testing Strategy: ✗ none")
    assert parse_verdict(_story(_V4_REVIEW + failed_again)).decision is not A
    assert parse_verdict(_story(failed_first)).decision is not A
