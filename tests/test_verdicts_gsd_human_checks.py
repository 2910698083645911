"""GSD's human checks follow the report's status (issue 23, the labelling rule of the shared
corpus: "`passed` with no open gaps = approve, `human_needed` = fixes").

The verifier lists checks it cannot run (`human_verification:` in the frontmatter, a `Human
Verification Required` section) whatever it decides; `human_needed` is the status that makes them
conditions. Under `passed` they are the template's notes for a person: they do not block, in any
of the shapes gsd-verifier writes them, in the body or the frontmatter. What blocks: `human_needed`
in the frontmatter or the body (a body that disagrees with a `passed` frontmatter is the
non-passing record), an open gap, and what the section says besides its checks: its lines are
read like the rest of the report's body (an obligation told as prose after the status is no
reason, a no is a no), and a frontmatter check is read like such a line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(human: str, *, status: str = "passed", body: str = "passed", front: str = "") -> str:
    return (
        f"---\nphase: 03-export\nverified: 2026-07-01T10:00:00Z\nstatus: {status}\n"
        f"score: 4/4 must-haves verified\n{front}---\n\n# Phase 3: Export Verification Report\n\n"
        f"**Status:** {body}\n\n## Goal Achievement\n\n### Observable Truths\n\n"
        "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"
        "| 1 | Invoices export as CSV | ✓ VERIFIED | `export.py` writes each row |\n\n"
        f"### Human Verification Required\n\n{human}\n\n"
        "### Gaps Summary\n\nNo gaps found.\n\n---\n\n_Verified: 2026-07-01T10:00:00Z_\n"
        "_Verifier: Claude (gsd-verifier)_\n"
    )


# The shapes gsd-verifier writes its checks in, each with fresh wording.
CHECKS = [
    "#### 1. Spreadsheet import\n\n**Test:** Open the exported file in LibreOffice Calc.\n"
    "**Expected:** Every amount keeps two decimals.\n"
    "**Why human:** Rendering in a desktop application cannot be scripted here.",
    "### 1. Spreadsheet import\n\n**Test:** Open the exported file.\n"
    "**Why human:** Needs a desktop application.",
    "The following need a person with a browser:\n\n"
    "1. **Download prompt** — click Export and confirm the browser offers `invoices.csv`.\n"
    "2. **Large runs** — export a run of 10,000 invoices and watch memory stay flat.",
    "- Confirm the file opens in Numbers on macOS",
    "Human Verification Required: open the export on a phone and check the layout.",
]


@pytest.mark.parametrize("human", CHECKS)
def test_checks_for_a_person_under_passed_approve(human: str) -> None:
    verdict = parse_verdict(_report(human))
    assert verdict.decision is A, verdict.reasons


def test_checks_in_the_frontmatter_under_passed_approve() -> None:
    front = (
        "human_verification:\n  - test: Open the export in a spreadsheet\n"
        "    expected: two decimals per amount\n    why_human: desktop rendering\n"
    )
    verdict = parse_verdict(_report("See the frontmatter.", front=front))
    assert verdict.decision is A, verdict.reasons


def test_checks_in_the_frontmatter_a_newer_record_settled_approve() -> None:
    front = (
        "human_verification:\n  - test: Open the export in a spreadsheet\n"
        "    expected: two decimals per amount\n    why_human: desktop rendering\n"
        "human_uat_completed: 2026-07-02T09:00:00Z\nhuman_uat_result: 1/1 PASS\n"
    )
    verdict = parse_verdict(_report("See the frontmatter.", front=front))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("human", CHECKS)
def test_the_same_checks_under_human_needed_ask_for_fixes(human: str) -> None:
    for text in (
        _report(human, status="human_needed", body="human_needed"),
        _report(human, body="human_needed"),  # the body disagrees: the non-passing record
    ):
        verdict = parse_verdict(text)
        assert verdict.decision is Decision.FIXES, verdict.reasons


PROBLEMS = [
    "1. Do not merge: the export drops the header row.",
    "All automated checks pass. The encoding must still be checked by hand on Windows.",
    "None. But someone should try the export once on Safari.",
    "#### 1. Export\n\n**Test:** Export a run.\n**Expected:** It crashes; block the merge.",
    "- Merge only after a person has opened the file in Excel.",
]


@pytest.mark.parametrize("human", PROBLEMS)
def test_a_no_or_a_merge_condition_written_among_the_checks_refuses(human: str) -> None:
    verdict = parse_verdict(_report(human))
    assert verdict.decision is not A, verdict.reasons
    assert verdict.evidence is not None
    assert verdict.evidence.line > 12, verdict.evidence  # the section's line, not the status


def test_a_no_in_the_frontmatter_checks_refuses() -> None:
    front = "human_verification:\n  - Do not merge until the export is checked on Windows.\n"
    verdict = parse_verdict(_report("See the frontmatter.", front=front))
    assert verdict.decision is not A, verdict.reasons


_WORDS = st.sampled_from(
    [
        "open",
        "export",
        "check",
        "file",
        "the",
        "a",
        "browser",
        "totals",
        "layout",
        "confirm",
        "run",
        "phone",
        "page",
        "by",
        "hand",
        "spreadsheet",
        "two",
        "decimals",
        "rows",
        "header",
        "once",
        "each",
        "on",
        "with",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=12), min_size=1, max_size=6))
def test_human_needed_never_approves_whatever_the_section_holds(lines: list[list[str]]) -> None:
    human = "\n".join("- " + " ".join(words) for words in lines)
    for text in (
        _report(human, status="human_needed", body="human_needed"),
        _report(human, body="human_needed"),
        _report(human, status="human_needed", body="passed"),
    ):
        assert parse_verdict(text).decision is not A, text


# A check's fields as the template spells them (`**Test:**`, `**Expected:**`, `**Why
# human:**`), told with a modal of obligation: what should happen, why a person must look.
OBLIGED = [
    "#### 1. Invoice totals\n\n**Test:** Export March and open it in Numbers.\n"
    "**Expected:** The totals row should sum every amount and dates must read as local dates.\n"
    "**Why human:** Spreadsheet rendering has to be inspected by eye.",
    "#### 1. Mobile layout\n\n- **Test:** Open the export page on a phone.\n"
    "- **Expected:** The table needs to scroll sideways while the header stays put.\n"
    "- **Why human:** Touch scrolling must be exercised on a real device.",
    "#### 1. Unsaved filter\n\n**Test:** Edit a filter, then close the tab.\n**Expected:** The"
    ' browser should ask "Discard your filter? It is not saved." before closing.\n'
    "**Why human:** A native dialog should be seen in a real browser.",
    # a check named at the section's own level, as some reports number them
    "### 1. Partner import\n\n**Test:** Upload the export to the partner portal.\n"
    "**Expected:** The portal should accept every row.\n"
    "**Why human:** The portal has to be checked by a person with an account.",
    # a field's value wrapped onto the next line
    "#### 1. Print preview\n\n**Test:** Print the March export from the browser.\n"
    "**Expected:** Each page should repeat the header row and the totals\n"
    "must sit on the last page.\n**Why human:** Print layout needs a printer.",
    # told as prose: the section's own line before its checks
    "Both checks below should be confirmed by hand in a desktop browser.\n\n"
    "#### 1. Print preview\n\n**Test:** Print the March export.\n"
    "**Expected:** Every page repeats the header row.",
]


@pytest.mark.parametrize("human", OBLIGED)
def test_obligations_in_a_checks_fields_under_passed_approve(human: str) -> None:
    verdict = parse_verdict(_report(human))
    assert verdict.decision is A, verdict.reasons
    assert parse_verdict(_report(human), strict=True).decision is A


def test_an_obligation_in_a_settled_frontmatter_check_under_passed_approves() -> None:
    front = (
        "human_verification:\n  - test: Open the export in a spreadsheet\n"
        "    expected: Every amount should keep two decimals\n"
        "human_uat_completed: 2026-07-02T09:00:00Z\n"
    )
    verdict = parse_verdict(_report("See the frontmatter.", front=front))
    assert verdict.decision is A, verdict.reasons


# The same fields holding work on the change, a defect, a wait or a verdict instead of a check.
NOT_CHECKS = [
    "**Expected:** The rounding bug should be fixed in `totals.py`.",
    "**Expected:** Someone should rewrite the CSV writer.",
    "**Expected:** Amounts should keep two decimals, but today they do not.",
    "**Expected:** Dates should read as local dates; currently they read as UTC.",
    "**Why human:** The header row still needs to be restored.",
    "**Why human:** The writer should be reverted to the old encoder.",
    "**Expected:** The export must be checked by QA before it ships.",
    "**Expected:** Amounts should keep two decimals. Do not merge.",
    "**Expected:** The totals row should appear once the fix lands.",
    "**Expected:** The file should open; please wait for Ana's sign-off.",
    "**Expected:** Amounts should keep two decimals\nBlocking: the rounding in `totals.py`",
    "**Expected:** Amounts should keep two decimals\nunless the rounding bug is still open.",
    "**Expected:** Amounts keep two decimals.\nThe author must add the missing migration.",
    "**Expected:** Amounts keep two decimals.\n\nThe rounding helper should be replaced.",
    "**Why human:** The operator must delete the stale cache by hand.",
]


@pytest.mark.parametrize("field", NOT_CHECKS)
def test_fields_that_say_more_than_a_check_still_refuse(field: str) -> None:
    human = f"#### 1. Export\n\n**Test:** Export a run.\n{field}"
    verdict = parse_verdict(_report(human))
    assert verdict.decision is not A, verdict.reasons
