"""Issue 23, deliverable 3 ("recognised template sections" are accounted for): the check
tables of GSD's verifier report (`_templates/_checks.py`) and its "None —" human section.

The class main got wrong: a passing verifier report refused because a check's *claim* or its
*evidence* was read as the reviewer's verdict — a claim that describes wanted behaviour with a
negation ('sync does not accept --all', 'no command exports the helper'), evidence that names
a flag or a state ('returns 401 when the token is missing'). The status cell is the row's field;
a table is accounted for only when every row passes and no other cell ties a condition to the
merge, names blocking work, states a defect now or answers with another verdict. Each hostile
table beside its genuine twin.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _report(table: str, human: str = "None.") -> str:
    return (
        "---\nphase: 07-cleanup\nverified: 2026-05-02T10:00:00Z\nstatus: passed\n"
        "score: 3/3 must-haves verified\n---\n\n# Phase 7: Cleanup Verification Report\n\n"
        "## Goal Achievement\n\n### Observable Truths\n\n" + table + "\n"
        "### Human Verification Required\n\n" + human + "\n\n"
        "### Gaps Summary\n\nNo gaps found.\n\n_Verifier: Claude (gsd-verifier)_\n"
    )


_HEAD = "| # | Truth | Status | Evidence |\n|---|-------|--------|----------|\n"


def _rows(*rows: tuple[str, str, str]) -> str:
    return _HEAD + "".join(f"| {i} | {t} | {s} | {e} |\n" for i, (t, s, e) in enumerate(rows, 1))


_GOOD = (
    "`legacy_sync` no longer exists in src/",
    "✓ VERIFIED",
    "`grep -rn legacy_sync` finds none",
)

CLAIMS = [
    # Claims that describe wanted behaviour with a negation: what had to be true, not a no.
    (_rows(_GOOD, ("sync does not accept --all", "✓ VERIFIED", "`sync --help` lists no --all")), A),
    (_rows(_GOOD, ("No command accepts --account", "VERIFIED", "unknown option error")), A),
    (_rows(_GOOD, ("Login rejects an expired token", "✓ VERIFIED", "test_expired passes")), A),
    (_rows(_GOOD, ("The old cache is not imported anywhere", "✓", "grep finds none")), A),
    # Evidence that opens with a negation and goes on: a claim, not a 'no'.
    (
        _rows(
            _GOOD, ("Old guards removed", "VERIFIED", "No `if (!session)` check remains in src/")
        ),
        A,
    ),
    (_rows(_GOOD, ("Token refresh", "VERIFIED", "conditional on the provider; URL built")), A),
    # Evidence that describes the code with a condition not tied to the merge.
    (_rows(_GOOD, ("Sheet opens", "✓ FLOWING", "Passed only when the slot is mine")), A),
]

HOSTILE = [
    # A failing status anywhere leaves the table to the generic reader, which asks for fixes.
    (_rows(_GOOD, ("Export works", "✗ FAILED", "returns 500")), F),
    (_rows(_GOOD, ("Export is wired", "⚠️ PARTIAL", "only the CSV path")), F),
    # A pass word with a failure mark beside it is not a pass.
    (_rows(_GOOD, ("Export works", "✓ ✗", "see notes")), F),
    # Evidence beside a pass that names blocking work, ties a condition to the merge, states
    # a defect now or answers with another verdict.
    (_rows(_GOOD, ("Auth is wired", "✓ VERIFIED", "must be fixed before merge: no CSRF")), F),
    (_rows(_GOOD, ("Auth is wired", "✓ VERIFIED", "merge only after the key is rotated")), F),
    (_rows(_GOOD, ("Build passes", "✓ VERIFIED", "the build is broken on CI")), F),
    (_rows(_GOOD, ("Release notes — do not merge", "✓ VERIFIED", "n/a")), R),
]


@pytest.mark.parametrize(("table", "expected"), CLAIMS + HOSTILE)
def test_a_check_table_is_decided_by_its_status_cells(table: str, expected: Decision) -> None:
    verdict = parse_verdict(_report(table))
    if expected is A:
        assert verdict.decision is A, verdict.reasons
    else:
        assert verdict.decision is not A, verdict.reasons


def test_a_status_outside_the_vocabulary_leaves_the_table_to_the_generic_reader() -> None:
    # 'Done-ish' is no value of the template's: the rows are read as prose, as before.
    table = _rows(_GOOD, ("Sync is gone", "done-ish", "does not accept --all; do not merge"))
    assert parse_verdict(_report(table)).decision is not A


HUMAN = [
    ("None — all verification completed programmatically.", A),
    (
        "None. All checks are automated.\n\n- Unit tests: 6/6 passing\n"
        "- Walk-up tested on nested dirs",
        A,
    ),
    ("None — all automated.\n\n- Check the login page by hand before merging", F),
    # a check for a person under `passed` is the template's note, not a condition
    ("None — but a person must still try the export on Safari.", A),
    ("1. Open the page and check the header renders", A),
    # a line there that says no or blocks the merge is read like any evidence cell
    ("1. Do not merge: the export corrupts every second row.", R),
]


@pytest.mark.parametrize(("human", "expected"), HUMAN)
def test_a_human_section_that_says_none_may_explain_why(human: str, expected: Decision) -> None:
    verdict = parse_verdict(_report(_rows(_GOOD), human))
    if expected is A:
        assert verdict.decision is A, verdict.reasons
    else:
        assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("number", ["1.", "1)", "#1:", "2."])
def test_checks_written_as_headings_of_the_human_sections_level_are_its_own(number: str) -> None:
    """gsd-verifier sometimes writes each human check as a heading of the section's own
    level ('### Human Verification Required' then '### 1. Visual rendering'): those headings
    are the section's checks, so a problem stated under one is read as the section's."""
    human = (
        f"### {number} Visual rendering\n\n**Test:** Open the dashboard and press t.\n"
        "**Why human:** colours cannot be checked by a program."
    )
    verdict = parse_verdict(
        _report(_rows(_GOOD), "").replace("\n\n\n### Gaps", f"\n{human}\n\n### Gaps")
    )
    assert verdict.decision is A, verdict.reasons
    blocked = human + "\n**Expected:** it crashes; do not merge."
    verdict = parse_verdict(
        _report(_rows(_GOOD), "").replace("\n\n\n### Gaps", f"\n{blocked}\n\n### Gaps")
    )
    assert verdict.decision is not A, verdict.reasons
    assert verdict.evidence is not None
    assert "do not merge" in verdict.evidence.text


def test_a_numbered_heading_after_a_human_section_with_content_is_its_own_section() -> None:
    text = _report(_rows(_GOOD), "None.").replace(
        "### Gaps Summary", "### 1. Notes on the build\n\nBuilt on Go 1.22.\n\n### Gaps Summary"
    )
    assert parse_verdict(text).decision is A


def _code_review(finding: str) -> str:
    return (
        "---\nphase: 04-optimiser\nreviewer: claude (gsd-code-reviewer)\nstatus: clean\n"
        "findings_count:\n  critical: 0\n  warning: 0\n  info: 1\n  total: 1\n---\n\n"
        "## Summary\n\nThe optimiser is implemented as planned. One info item.\n\n"
        "## Findings\n\n" + finding + "\n_Reviewed: 2026-04-11_\n"
    )


_INFO = (
    "### IN-01: substring matching can produce false positives\n\n"
    "**File:** `src/optimiser.py:126-135`\n**Severity:** Info\n"
    "**Issue:** The scrub does `tok in lowered` for every banned token.\n\n"
    "**Fix hint:** Optional — consider word-boundary matching for the short tokens.\n"
)
INFO_FINDINGS = [
    (_INFO, True),
    # The same block with a grade above info, blocking work or a defect now in it.
    (_INFO.replace("**Severity:** Info", "**Severity:** Critical"), False),
    (_INFO + "\nThis must be fixed before merge.\n", False),
    (_INFO + "\nThe build is broken on CI.\n", False),
]


@pytest.mark.parametrize(("finding", "approves"), INFO_FINDINGS)
def test_a_code_reviews_info_finding_is_graded_by_the_template(
    finding: str, approves: bool
) -> None:
    verdict = parse_verdict(_code_review(finding))
    assert (verdict.decision is A) is approves, verdict.reasons
