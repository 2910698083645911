"""Issue 23, the s10 held-out real reviews: classes of false refusal, as tables.

The strings are new examples of each class, not the held-out texts. A row is (text, expected
decision); each relaxation has hostile rows beside it (the same structure carrying a no).
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

# D. A frontmatter key that is not a verdict field: a status-like key whose value is outside
# the verdict vocabulary is the document's lifecycle or name, not its verdict.
FRONTMATTER_KEYS = [
    ("---\nstatus: current\nkind: review\n---\n\n**Verdict: LGTM**\n", A),
    ("---\nreview: PAY-7-ledger-export\nverdict: APPROVED\n---\n\n# Review\n\nAll good.\n", A),
    ("---\nresult: archived\n---\n\n## Verdict\n\nAPPROVE\n", A),
    # hostile: the same keys carrying a verdict word, or a verdict key with an unknown value
    ("---\nstatus: rejected\n---\n\n**Verdict: LGTM**\n", R),
    ("---\nstatus: needs_fixes\n---\n\n**Verdict: LGTM**\n", F),
    ("---\nverdict: maybe-later\n---\n\n**Verdict: LGTM**\n", M),
    ("---\nverdict: current\n---\n\n**Verdict: LGTM**\n", M),
    ("---\nstatus: passed  # pending sign-off\n---\n\n**Verdict: LGTM**\n", M),
    ("---\nstatus: current\n---\n\nThe change reads well.\n", M),
    ("---\nstatus: yes? not sure\n---\n\n**Verdict: LGTM**\n", M),
    # a GSD report's status is its verdict, whatever else the frontmatter holds
    ("---\nphase: 03-api\nstatus: gaps_found\n---\n\n**Verdict: LGTM**\n", F),
    ("---\nphase: 03-api\nstatus: human_needed\n---\n\n**Status:** passed\n", F),
    ("---\nstatus: someday\ngaps: []\n---\n\n**Verdict: LGTM**\n", M),
]


@pytest.mark.parametrize(("text", "expected"), FRONTMATTER_KEYS)
def test_frontmatter_keys_that_are_not_verdict_fields(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# A. Rows of a per-reviewer table are local verdicts; words inside inline code in a note cell
# are code, not conditions. A row's no, and a no of a table of checks, still block.
_REVIEWERS = (
    "| Reviewer | Verdict |\n|---|---|\n| Security | {} |\n| Tests | Lead pass, see log |\n"
)
_CHECKS = "| Check | Result | Evidence |\n|---|---|---|\n| Build | PASS | ok |\n| Tests | {} |\n"
TABLES = [
    (_REVIEWERS.format("Lead pass") + "\n**Ready to merge?** Yes\n", A),
    (_REVIEWERS.format("approve") + "\n**Verdict:** APPROVE\n", A),
    (_CHECKS.format("PASS | ran `exec-once = make test`") + "\n**Verdict:** APPROVE\n", A),
    (_CHECKS.format("PASS | `with_retry_until_ready()` covers it") + "\n**Verdict:** APPROVE\n", A),
    # hostile: a reviewer's no, a qualified pass, a table alone, checks that fail
    (_REVIEWERS.format("REJECT") + "\n**Ready to merge?** Yes\n", R),
    (_REVIEWERS.format("Needs fixes") + "\n**Ready to merge?** Yes\n", F),
    (_REVIEWERS.format("pass once CI is green") + "\n**Ready to merge?** Yes\n", F),
    (_REVIEWERS.format("Lead pass"), M),
    (_CHECKS.format("FAIL | 3 failing") + "\n**Verdict:** APPROVE\n", F),
    (_CHECKS.format("PASS | `do not merge` yet") + "\n**Verdict:** APPROVE\n", F),
    (_CHECKS.format("PASS | once the lockfile is regenerated") + "\n**Verdict:** APPROVE\n", F),
    (_CHECKS.format("PASS | `FAIL`") + "\n**Verdict:** APPROVE\n", F),
    (_CHECKS.format("PASS | merge once `make ci` is green") + "\n**Verdict:** APPROVE\n", F),
    ("**Verdict:** `REJECT`\n", R),
    ("**Verdict:** APPROVE `once CI is green`\n", F),
]


@pytest.mark.parametrize(("text", "expected"), TABLES)
def test_reviewer_tables_and_code_in_note_cells(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# B/C. A heading that numbers the reviews ('Review 2', 'Iteration 002 — VERDICT: APPROVED',
# 'Initial verdict' … 'Final verdict') opens a new round: the last one decides. A no of the
# same round always stands; a first or a lone 'Final verdict' heading supersedes nothing.
ROUNDS = [
    (
        "## Iteration 1 — 2026-01-02 — VERDICT: REJECTED\n\n- Critical: the cache leaks\n\n"
        "## Iteration 2 — 2026-01-03 — VERDICT: APPROVED\n\nThe leak is fixed.\n\n"
        "**Verdict:** APPROVED\n",
        A,
    ),
    (
        "## Initial verdict: CHANGES_REQUESTED\n\nThese must be fixed before merge:\n\n"
        "- the migration drops a column\n\n## Final verdict: APPROVE\n",
        A,
    ),
    (
        "### Revisão 1: 2026-01-02 (CONCERNS)\n\nGate: CONCERNS\n\n"
        "### Revisão 2: 2026-01-03 (PASS)\n\nGate: PASS\n",
        A,
    ),
    # hostile: a no of the same round, a lone 'Final verdict', a first review, a section
    (
        "## Findings\n\n- **Critical**: SQL injection in the search handler\n\n"
        "## Final verdict: APPROVE\n",
        F,
    ),
    (
        "## Initial verdict: APPROVE\n\n## Final verdict: APPROVE\n\n"
        "Must fix before merge: the SQL injection in the search handler.\n",
        F,
    ),
    ("## Review 1\n\nVerdict: REJECT\n\n## Review 2\n\nVerdict: APPROVE\n\nVerdict: REJECT\n", R),
    (
        "Must fix before merge: the SQL injection.\n\n## Review 1: 2026-01-02\n\n"
        "**Verdict:** APPROVE\n",
        F,
    ),
    (
        "## Review 1\n\nVerdict: REJECT\n\n## Review 2 notes\n\nThe author replied.\n\n"
        "**Verdict:** APPROVE\n",
        R,
    ),
    ("## Final verdict: APPROVE\n\n## Review 2\n\nVerdict: REJECT\n", R),
]


@pytest.mark.parametrize(("text", "expected"), ROUNDS)
def test_numbered_reviews_are_rounds(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# C. A re-review's verdict written as '<a verdict field> verdict' ('Final spec-compliance
# verdict: …'): the field's own name composes with 'verdict'; nothing else does.
_FIRST = (
    "**Spec compliance:** Needs fixes — the parser drops a field.\n\n### Re-review — 48ff1b9\n\n"
)
COMPOSED_LABELS = [
    (_FIRST + "- **Final spec-compliance verdict: ✅ Spec compliant.** The field is kept.\n", A),
    # hostile: the composed label saying no, in the same round or alone
    (_FIRST + "- **Final spec-compliance verdict: Needs fixes.** Still drops it.\n", F),
    (
        _FIRST + "- **Final spec-compliance verdict: Spec compliant.**\n"
        "- **Final review verdict: REJECT.**\n",
        R,
    ),
    ("- **Final spec-compliance verdict: Spec compliant.**\n\nCritical: 1\n", F),
    ("- **Their spec-compliance verdict: Spec compliant.**\n", M),
]


@pytest.mark.parametrize(("text", "expected"), COMPOSED_LABELS)
def test_a_verdict_field_composed_with_verdict(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


def _decides(text: str, expected: Decision | None) -> None:
    """`text` decides `expected`; None: anything but an approval."""
    verdict = parse_verdict(text)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


# An evidence column ('| # | Truth | Status | Evidence |', GSD's verification table) says
# what was verified and how: its descriptive 'when', 'prior to', 'needs' are not conditions on
# the row's pass. A condition tied to the merge, or blocking content, there still is; a
# column named otherwise ('Notes') still qualifies the pass as before.
_TRUTHS = "| # | Check | Verdict | Evidence |\n|---|---|---|---|\n| 1 | Login | PASS | ok |\n"
_NOTES = "| # | Check | Verdict | Notes |\n|---|---|---|---|\n| 1 | Login | PASS | ok |\n"
EVIDENCE = [
    (_TRUTHS + "| 2 | 401 | PASS | returns 401 when the token is missing |\n", A),
    (_TRUTHS + "| 2 | Keys | PASS | neither key existed prior to this change |\n", A),
    (_TRUTHS + "| 2 | Props | PASS | the banner is static and needs no props |\n", A),
    # hostile: a condition tied to the merge, or blocking content, in the evidence
    (_TRUTHS + "| 2 | Auth | PASS | passes once the key is rotated before merge |\n", F),
    (_TRUTHS + "| 2 | Auth | PASS | must be fixed before merge: the key leaks |\n", F),
    (_TRUTHS + "| 2 | Auth | PASS | merge only after the key is rotated |\n", F),
    # the same words in a notes column still qualify the pass
    (_NOTES + "| 2 | 401 | PASS | only when the token is missing |\n", F),
]


@pytest.mark.parametrize(("text", "expected"), EVIDENCE)
def test_evidence_columns_describe_what_was_verified(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text + "\n**Verdict:** APPROVE\n")
    if expected is A:
        assert verdict.decision is A, verdict.reasons
    else:  # refused: as fixes, or as malformed by the accounting
        assert verdict.decision in (F, M), verdict.reasons


# A tally whose count is zero says nothing is pending or blocked; a tally with a count, or
# a pending item in words, still conditions the approval.
TALLIES = [
    ("**Verdict:** APPROVE\n\n## Summary\n\npassed: 2\npending: 0\nblocked: 0\n", A),
    ("**Verdict:** APPROVE\n\n- **Pending:** none\n- **Blocked:** 0\n", A),
    # hostile
    ("**Verdict:** APPROVE\n\n## Summary\n\npassed: 2\npending: 1\n", None),
    ("**Verdict:** APPROVE\n\npending: 0 — the sign-off is still pending\n", None),
    ("**Verdict:** APPROVE\n\nPending the security sign-off.\n", None),
]
# 后续 (a follow-up) names later work, it does not make the approval wait for it.
FOLLOW_UPS = [
    ("## 结论\n\n**APPROVE** — 可以合并，观察项留给后续 PR。\n", A),
    ("## 结论\n\n**APPROVE** — 修复后合并。\n", F),
]


@pytest.mark.parametrize(("text", "expected"), TALLIES + FOLLOW_UPS)
def test_zero_tallies_and_follow_ups_are_not_conditions(
    text: str, expected: Decision | None
) -> None:
    _decides(text, expected)


# BMAD's gate, written as Markdown, lists what must be fixed before production under
# 'Immediate (Must fix before production)': a blocking section, empty when it says none.
_GATE_MD = (
    "## Gate Status: PASS\n\n## Recommendations\n\n### Immediate (Must fix before production)\n"
)
IMMEDIATE = [
    (_GATE_MD + "- None - all critical issues have been resolved\n\n### Future\n- More tests\n", A),
    (_GATE_MD + "None.\n", A),
    # hostile: an item in it
    (_GATE_MD + "- Add the authorization check to DELETE /projects\n", None),
    ("gate: PASS\nrecommendations:\n  immediate:\n    - action: 'Rotate the leaked DSN'\n", None),
]


@pytest.mark.parametrize(("text", "expected"), IMMEDIATE)
def test_an_immediate_section_is_blocking_and_may_be_empty(
    text: str, expected: Decision | None
) -> None:
    _decides(text, expected)


# A 'Readiness' section answers 'ready to merge?': its answer is the verdict.
READINESS = [
    ("# Final review\n\n## Readiness\n\n**READY.** No Critical or Important finding remains.\n", A),
    ("## Merge readiness\n\nReady.\n\n## Critical\n\nNone.\n", A),
    ("## Readiness\n\n**NOT READY.** The migration drops a column.\n", None),
    ("## Readiness\n\nReady once CI is green.\n", None),
]


@pytest.mark.parametrize(("text", "expected"), READINESS)
def test_a_readiness_section_holds_the_verdict(text: str, expected: Decision | None) -> None:
    _decides(text, expected)


# The change closing a blocking finding, said in the present, reports it done.
CLOSES = [
    ("## Ready to merge?\n\n**Yes.** The fix closes the only merge-blocking finding.\n", A),
    ("## Ready to merge?\n\n**Yes.** This resolves the blocking race in the cache.\n", A),
    ("## Ready to merge?\n\n**Yes.** One merge-blocking finding remains open.\n", None),
    ("## Ready to merge?\n\n**Yes.** The blocking race must be fixed before merge.\n", None),
]


@pytest.mark.parametrize(("text", "expected"), CLOSES)
def test_a_blocking_finding_the_change_closes_is_done(text: str, expected: Decision | None) -> None:
    _decides(text, expected)


# An obligation with a negated object asks for nothing ('needs no external data').
NEGATED_OBJECTS = [
    (
        "| Check | Verdict | Notes |\n|---|---|---|\n| Props | PASS | needs no external data |\n"
        "| Export | PASS | ok |\n\n**Verdict:** APPROVE\n",
        A,
    ),
    ("**Verdict:** APPROVE, requires nothing else.\n", A),
    (
        "| Check | Verdict | Notes |\n|---|---|---|\n| Props | PASS | needs a null check |\n"
        "| Export | PASS | ok |\n\n**Verdict:** APPROVE\n",
        None,
    ),
    ("**Verdict:** APPROVE, requires no-op stubs to be removed first.\n", None),
]


@pytest.mark.parametrize(("text", "expected"), NEGATED_OBJECTS)
def test_an_obligation_with_a_negated_object_asks_for_nothing(
    text: str, expected: Decision | None
) -> None:
    _decides(text, expected)
