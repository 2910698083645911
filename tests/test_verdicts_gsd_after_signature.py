"""GSD's verifier and code-reviewer templates end with a signature ('_Verified: …_',
'_Verifier: Claude (gsd-verifier)_'): it closes the template. Text after the signer's line —
a paragraph, a `## Notes` section, a list item, a quote, a table, in any language or wording —
is outside every section the template has, and a person reads it beside `status: passed`, so
the report is `malformed`, never `approve` (issue 23; `docs/verdicts.md`, GSD). Allowed after
the signer: the signature's own fields, the report's `Status:` field and one closing line
wholly in strong emphasis (its sentences are weighed by the sentence readers)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

VERIFICATION = """---
phase: 07-billing-export
verified: 2026-05-02T09:14:00Z
status: passed
score: 5/5 must-haves verified
re_verification: null
gaps: []
human_verification: []
---

# Phase 7: Billing Export Verification Report

**Phase Goal:** Operators can export an invoice run as CSV
**Verified:** 2026-05-02T09:14:00Z
**Status:** passed

## Goal Achievement

### Observable Truths

| # | Truth | Status | Evidence |
|---|-------|--------|----------|
| 1 | An invoice run exports as CSV | VERIFIED | `export_run` writes the rows |
| 2 | Totals match the ledger | VERIFIED | `test_totals_match` passes |

### Required Artifacts

| Artifact | Expected | Status | Details |
|----------|----------|--------|---------|
| `billing/export.py` | CSV writer | VERIFIED | 84 lines, wired into the CLI |

## Gaps Summary

No gaps. Every must-have is implemented, wired and covered by tests.

---

_Verified: 2026-05-02T09:14:00Z_
_Verifier: Claude (gsd-verifier)_
"""

REVIEW = """---
phase: 12-rate-limits
reviewed: 2026-05-03T11:00:00Z
depth: standard
files_reviewed: 3
findings:
  critical: 0
  warning: 0
  info: 0
  total: 0
status: clean
---

# Phase 12: Code Review Report

**Status:** clean

## Summary

All reviewed files meet quality standards. No issues found.

---

_Reviewed: 2026-05-03T11:00:00Z_
_Reviewer: Claude (gsd-code-reviewer)_
_Depth: standard_
"""

# Fresh wordings of each class a sentence after an approval can carry, none of them in the
# mutation script's lists: what they say must not matter, only where they stand.
SENTENCES = [
    "Ship it once Dana has run the failover drill.",  # condition
    "Invoices over 10k are rounded twice in the CSV.",  # defect
    "I only traced the CLI path; the cron job was not opened.",  # scope
    "Please treat the pass above as withdrawn for now.",  # retraction
    "Der Export rundet Beträge doppelt.",  # other language
    "The export now streams rows instead of buffering them.",  # neutral: still outside
]
SHAPES = [
    lambda s: f"\n{s}\n",
    lambda s: f"\n## Notes\n\n{s}\n",
    lambda s: f"\n- {s}\n",
    lambda s: f"\n> {s}\n",
    lambda s: f"\n| Note |\n|------|\n| {s} |\n",
    lambda s: f"\n### Addendum\n{s}\n",
]


@pytest.mark.parametrize("base", [VERIFICATION, REVIEW], ids=["verification", "review"])
def test_the_genuine_reports_approve(base: str) -> None:
    assert parse_verdict(base).decision is A


@pytest.mark.parametrize("base", [VERIFICATION, REVIEW], ids=["verification", "review"])
@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_text_after_the_signature_is_outside_the_template(
    base: str, sentence: str, shape: int
) -> None:
    """Never an approval: `malformed` by the template, or a no the sentence readers found."""
    verdict = parse_verdict(base + SHAPES[shape](sentence))
    assert verdict.decision is not A, verdict.reasons
    if sentence == SENTENCES[-1]:  # nothing but its place keeps the neutral one from approving
        assert verdict.decision is Decision.MALFORMED, verdict.reasons


@settings(max_examples=60, deadline=None)
@given(
    st.text(
        alphabet=st.characters(categories=["L", "N", "P", "Zs"], exclude_characters="\r\n"),
        min_size=1,
        max_size=80,
    ).filter(lambda s: any(c.isalnum() for c in s))
)
def test_any_visible_line_after_the_signature_keeps_the_report_from_approving(
    sentence: str,
) -> None:
    """Whatever the line says, it stands outside the template: never an approval."""
    text = VERIFICATION + f"\nNote — {sentence}\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "tail",
    [
        # the signature's own fields, in the forms GSD reports write them
        "_Depth: standard_\n",
        "**Re-verified:** 2026-05-04\n",
        # the report's status repeated after the signature: a verdict field, read as one
        "**Status:** PASSED — all five must-haves verified\n",
        # one closing line wholly in strong emphasis
        "\n**All must-haves achieved. Phase goal verified complete.**\n",
    ],
)
def test_the_signature_may_end_with_its_fields_or_a_closing_line(tail: str) -> None:
    assert parse_verdict(VERIFICATION + tail).decision is A


def test_the_signature_on_one_line_closes_the_template_too() -> None:
    text = VERIFICATION.replace(
        "_Verified: 2026-05-02T09:14:00Z_\n_Verifier: Claude (gsd-verifier)_\n",
        "_Verified: 2026-05-02_ _Verifier: Claude (gsd-verifier)_\n",
    )
    assert parse_verdict(text).decision is A
    assert parse_verdict(text + "\nThe rounding bug is still there.\n").decision is not A


def test_a_second_signature_does_not_carry_the_text_before_it_into_the_body() -> None:
    text = VERIFICATION + (
        "\nThe CSV export still double-counts refunds.\n\n---\n\n"
        "_Verified: 2026-05-03_\n_Verifier: Claude (gsd-verifier)_\n"
    )
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "signer",
    [
        "_Verifier: Claude (gsd-verifier) — park this until QA re-runs it_",
        "_Verifier: Claude (gsd-verifier)_, though the cron export was never run",
        "**Verifier:** Claude (gsd-verifier); Noor still has to look at the schema",
    ],
)
def test_the_signers_line_holds_only_its_fields(signer: str) -> None:
    """A sentence on the signer's own line is not the signature's."""
    text = VERIFICATION.replace("_Verifier: Claude (gsd-verifier)_", signer)
    assert parse_verdict(text).decision is not A


# Session 23: the signature block without the break before it, and the status field after
# the signature with words beside its value.
NO_BREAK = VERIFICATION.replace("\n---\n\n_Verified:", "\n_Verified:")


@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_signature_block_without_a_break_closes_the_template_too(sentence: str) -> None:
    """`_Verified: …_` right above the signer's line is the block's own shape: the break
    before it is not what makes it the signature."""
    assert parse_verdict(NO_BREAK).decision is A
    verdict = parse_verdict(NO_BREAK + f"\n{sentence}\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "beside",
    [
        "the refund export still double-counts credit notes",
        "provisional until the DBA signs off",
        "pending the March replay",
    ],
)
def test_a_status_after_the_signature_holds_its_value_and_an_appraisal_only(beside: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(VERIFICATION + f"**Status:** passed — {beside}\n", strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)


@pytest.mark.parametrize(
    "tail",
    [
        "**Status:** passed\n",
        "**Status:** PASSED — all 5 must-haves verified, zero gaps\n",
    ],
)
def test_a_status_after_the_signature_in_the_template_shape_still_approves(tail: str) -> None:
    assert parse_verdict(VERIFICATION + tail).decision is A
