"""Issue 23, deliverable 2: template recognisers, and the genuine approvals they stop refusing.

Each table is one class, written from the class (several variants), each hostile or
non-approving text beside a genuine twin where that makes sense. A row is (text, decision,
dialect) — the dialect names the recogniser that decided.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import Severity, parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _superpowers(critical: str, important: str, answer: str, minor: str = "None.") -> str:
    return (
        "### Strengths\n\n- Small, focused change.\n\n### Issues\n\n"
        f"#### Critical (Must Fix)\n\n{critical}\n\n"
        f"#### Important (Should Fix)\n\n{important}\n\n"
        f"#### Minor (Nice to Have)\n\n{minor}\n\n"
        f"### Assessment\n\n**Ready to merge?** {answer}\n\n**Reasoning:** Focused and tested.\n"
    )


# superpowers' code-reviewer template: a section holding only "nothing here" is empty.
EMPTY_SECTIONS = [
    (_superpowers("None", "None.", "Yes"), A),
    (_superpowers("- None found", "- None.", "Yes"), A),
    (_superpowers("N/A", "- None found in the scoped fix diff.", "Yes"), A),
    (_superpowers("无", "无。", "Yes"), A),
    (_superpowers("なし", "特になし", "Yes"), A),
    (_superpowers("Ninguno.", "Ninguna", "Yes"), A),
    (_superpowers("Keine", "- Keine.", "Yes"), A),
    (_superpowers("**None**", "(none)", "Yes", minor="- Rename `x` to `count`."), A),
    (_superpowers("- None identified within this bounded review.", "None.", "Yes"), A),
    # A verdict line above the sections: the empty '(Must Fix)' heading is not blocking prose.
    ("- Verdict: `pass`\n\n" + _superpowers("None.", "None.", "Yes"), A),
    # The same documents with fixes or a no keep their answer.
    (_superpowers("None", "None.", "With fixes"), F),
    (_superpowers("None", "None.", "No"), R),
    (_superpowers("- None found", "- Missing test for `load()`.", "With fixes"), F),
    # Not empty: a "none" with more to say, or a real item.
    (_superpowers("- SQL injection in `login()`; use bound parameters.", "None.", "Yes"), F),
    (_superpowers("None. But the migration must be reverted first.", "None.", "Yes"), F),
    (_superpowers("None found in the code except one leak that must be fixed", "None.", "Yes"), F),
    ("- Verdict: `pass`\n\n" + _superpowers("- Data loss on retry.", "None.", "Yes"), F),
]


@pytest.mark.parametrize(("text", "expected"), EMPTY_SECTIONS)
def test_superpowers_empty_sections_are_not_blocking(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == "superpowers"


def test_superpowers_none_items_are_not_findings() -> None:
    verdict = parse_verdict(_superpowers("- None found", "- None found in this diff.", "Yes"))
    assert verdict.findings == ()


def _finding(n: int, title: str, severity: str, *, extra: str = "") -> str:
    return (
        f"### Finding {n}: {title}\n\n- **Severity:** {severity}\n"
        "- **Location:** `src/app/auth.py:42`\n"
        f"{extra}- **Suggestion:** Use a bound parameter.\n\n"
    )


# Megazord finding blocks: the severity field is the finding's, the suggestion is not one.
MEGAZORD = [
    ("# Review\n\n" + _finding(1, "SQL injection", "Critical") + "## Verdict\n\nAPPROVE\n", F),
    ("# Review\n\n" + _finding(1, "Race on retry", "High") + "## Summary\n\nVerdict: PASS\n", F),
    (
        "# Review\n\n" + _finding(1, "Naming", "Low") + _finding(2, "Leak", "Critical"),
        M,
    ),
    ("# Review\n\n" + _finding(1, "Naming", "Low") + "## Verdict\n\n**Verdict:** APPROVE\n", A),
    ("# Review\n\n" + _finding(1, "Leak", "Critical") + "## Verdict\n\n**Verdict:** REJECT\n", R),
]


@pytest.mark.parametrize(("text", "expected"), MEGAZORD)
def test_megazord_finding_blocks(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == "megazord"


def test_megazord_records_the_critical_finding_not_the_suggestion() -> None:
    text = "# Review\n\n" + _finding(1, "SQL injection", "Critical") + _finding(2, "Naming", "Low")
    findings = parse_verdict(text).findings
    assert [(f.severity, f.title) for f in findings] == [
        (Severity.CRITICAL, "Finding 1: SQL injection"),
        (Severity.MINOR, "Finding 2: Naming"),
    ]
    assert findings[0].file == "src/app/auth.py"
    assert findings[0].line == 42
    assert not any("bound parameter" in f.title for f in findings)


# BMAD QA gate, Gerrit votes, GitHub review states: the format's own field decides.
FORMAT_FIELDS = [
    ("gate: PASS\nstatus_reason: All criteria met.\n", A, "bmad"),
    ("### Gate Status\n\nGate: PASS → docs/qa/gates/2.1-login.yml\n", A, "bmad"),
    ("gate: CONCERNS\nstatus_reason: Missing tests.\n", F, "bmad"),
    ('gate: "FAIL"\nstatus_reason: Broken build.\n', R, "bmad"),
    ("gate: WAIVED\nwaiver:\n  active: true\n", F, "bmad"),
    ("Gate: CONCERNS → docs/qa/gates/1.2a-file-model.yml\n", F, "bmad"),
    ("Code-Review+2\n\nThanks, nice cleanup.\n", A, "gerrit"),
    ("- **Code-Review+2**\n", A, "gerrit"),
    ("Code-Review+1\n", M, "gerrit"),
    ("Code-Review+1\n\nSomeone who owns the module should approve.\n", M, "gerrit"),
    ("Code-Review-1\n\nPlease close the file handle.\n", F, "gerrit"),
    ("Code-Review-2\n\nThis breaks the public API.\n", R, "gerrit"),
    ("Code-Review+2\n\nCode-Review-1\n", F, "gerrit"),
    # A negative vote on any other label keeps the change from being submitted.
    ("Patch Set 4: Code-Review+2\n\nSecurity-Review-1\n\n(Tokens travel in clear.)\n", F, "gerrit"),
    ("Code-Review+2\n\nVerified-1\n", F, "gerrit"),
    ("Code-Review+2\n\nVerified-2\n", R, "gerrit"),
    ("Code-Review+2\n\nVerified+1\n\nThanks, nice cleanup.\n", A, "gerrit"),
    ("state: APPROVED\n\nNice work.\n", A, "github"),
    ("Review state: APPROVED\n", A, "github"),
    ('"reviewDecision": "APPROVED"\n', A, "github"),
    ("state: CHANGES_REQUESTED\n\nPlease add tests.\n", F, "github"),
    ("state: COMMENTED\n\nA question on line 3.\n", M, "github"),
    ("state: DISMISSED\n", M, "github"),
    ("state: APPROVED\n\nDo not merge until the migration lands.\n", R, "github"),
    # What GitHub says beside the review decision: it would not merge the pull request.
    ("reviewDecision: APPROVED\nmergeStateStatus: BLOCKED\n", F, "github"),
    ("reviewDecision: APPROVED\nmergeable: CONFLICTING\n", F, "github"),
    ("reviewDecision: APPROVED\nstatusCheckRollup: e2e FAILURE, unit SUCCESS\n", F, "github"),
    (
        "reviewDecision: APPROVED\nmergeStateStatus: CLEAN\nstatusCheckRollup: unit SUCCESS\n",
        A,
        "github",
    ),
]


@pytest.mark.parametrize(("text", "expected", "dialect"), FORMAT_FIELDS)
def test_format_fields(text: str, expected: Decision, dialect: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == dialect


# Megazord's closing `## REVIEW COMPLETE` block: the document is Megazord's whatever line
# carries the verdict, and its counts are blocking content beside `passed`.
MEGAZORD_COMPLETE = [
    ("## REVIEW COMPLETE\n\n**Task:** 3-1 Task 2\n**Status:** passed\n**Critical:** 0\n", A),
    ("## ✅ REVIEW COMPLETE\n\n**Task:** 3-1\n**Status:** passed\n", A),
    ("## REVIEW COMPLETE\n\n**Task:** 3-1\n**Verdict:** APPROVE\n", A),
    ("## Review complete\n\n**Task:** 2-4\n**Ready to merge?** Yes\n", A),
    ("## REVIEW COMPLETE\n\n**Task:** 3-1\n**Verdict:** REQUEST CHANGES\n", F),
    ("## REVIEW COMPLETE\n\n**Status:** passed\n**Critical:** 1\n", F),
    ("## REVIEW COMPLETE\n\n**Status:** issues_found\n**High:** 2\n", F),
    (
        "### Finding 1: Naming\n- **Severity:** Low\n\n"
        "## REVIEW COMPLETE\n\n**Status:** passed\n**Critical:** 0\n",
        A,
    ),
    (
        "### Finding 1: SQL injection\n- **Severity:** Critical\n\n"
        "## REVIEW COMPLETE\n\n**Verdict:** APPROVE\n",
        F,
    ),
]


@pytest.mark.parametrize(("text", "expected"), MEGAZORD_COMPLETE)
def test_megazord_review_complete_block(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == "megazord"


@pytest.mark.parametrize(
    "text", [t for t, expected in MEGAZORD_COMPLETE if expected is A and "Finding" not in t]
)
def test_megazord_restriction_reads_the_whole_block(text: str) -> None:
    """Restricted to `megazord`, the block's own verdict line decides (it is Megazord's)."""
    assert parse_verdict(text, dialect="megazord").decision is A


# BMAD: a PASS beside a listed top issue of medium severity or above is inconsistent with the
# gate's own rule (medium → CONCERNS, high → FAIL): it fails closed to fixes. Low issues and an
# empty list leave the PASS standing; so does the template's comment listing the gate values.
BMAD_GATES = [
    ("gate: PASS\ntop_issues:\n  - id: SEC-001\n    severity: high\n    finding: Secret\n", F),
    ("gate: PASS\ntop_issues:\n  - id: PERF-1\n    severity: medium\n    finding: Slow\n", F),
    ("gate: PASS\ntop_issues:\n  - { id: A, severity: high, finding: Leak }\n", F),
    ("gate: PASS\ntop_issues: [{id: A, severity: 'HIGH'}]\n", F),
    ('gate: "PASS"\ntop_issues:\n  - id: A\n    severity: "high"\nstatus_reason: ok\n', F),
    ("gate: PASS\ntop_issues:\n  - id: A\n    severity: low\n  - id: B\n    severity: high\n", F),
    ("top_issues:\n  - id: A\n    severity: high\n    finding: Leak\ngate: PASS\n", F),
    ("gate: PASS\ntop_issues:\n  - id: A\n    severity: someday\n", F),
    ("gate: PASS\ntop_issues:\n  - id: A\n    severity: low\n    finding: Naming\n", A),
    ("gate: PASS\ntop_issues: []\nstatus_reason: All criteria met.\n", A),
    ("gate: PASS\ntop_issues:\n  - id: A\n    severity: low\nnotes:\n  severity: high\n", A),
    ("gate: CONCERNS\ntop_issues:\n  - id: A\n    severity: high\n", F),
    ("gate: FAIL\ntop_issues:\n  - id: A\n    severity: high\n", R),
    ("gate: PASS # PASS|CONCERNS|FAIL|WAIVED\nstatus_reason: All criteria met.\n", A),
    ("gate: PASS  # once CI is green\n", F),
    ("gate: CONCERNS # PASS|CONCERNS|FAIL|WAIVED\n", F),
]


@pytest.mark.parametrize(("text", "expected"), BMAD_GATES)
def test_bmad_gate_top_issues_and_comments(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == "bmad"


# A log of reviews and re-reviews: per reviewer, the last entry decides.
REVIEW_LOGS = [
    (
        "- Spec review: PASS\n- Quality review: CHANGES_REQUESTED (missing test)\n"
        "- Fix: added the test\n- Quality re-review: APPROVED\n",
        A,
    ),
    (
        "## Reviews\n\n- Spec compliance review: APPROVED.\n"
        "- Code quality review: initially CHANGES_REQUESTED for a leak.\n"
        "- Code quality re-review after fixes: CHANGES_REQUESTED: the test is too loose.\n"
        "- Final code quality re-review: APPROVED.\n",
        A,
    ),
    (
        "- Spec reviewer: Ada.\n  - First result: FAIL because the flag is misnamed.\n"
        "  - Fix: renamed it.\n  - Re-review: PASS.\n"
        "- Quality reviewer: Bo.\n  - First result: CHANGES_REQUESTED, a mutation leak.\n"
        "  - Re-review: APPROVED.\n",
        A,
    ),
    # The last one fails: not an approval.
    (
        "- Spec review: PASS\n- Quality review: APPROVED\n"
        "- Quality re-review: CHANGES_REQUESTED (regression)\n",
        F,
    ),
    (
        "- Spec reviewer: Ada.\n  - First result: PASS.\n  - Re-review: FAIL, the fix broke x.\n",
        R,
    ),
    # The last one passes with a condition: not an approval.
    (
        "- Review: CHANGES_REQUESTED\n- Re-review: APPROVED, pending the CI run on main.\n",
        F,
    ),
]


@pytest.mark.parametrize(("text", "expected"), REVIEW_LOGS)
def test_review_log_last_entry_decides(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons
    assert verdict.dialect == "review-log"


# A clean verdict explained with a negation is not a "no".
NEGATION_EXPLAINS = [
    ("APPROVED — no blockers, no major issues.\n", A),
    ("APPROVED — no BLOCKER and no MAJOR findings.\n", A),
    ("Approve (no critical or high findings).\n", A),
    ("No blocking issues; approve.\n", A),
    ("## Verdict\n\nNo blocking issues found. Approve.\n", A),
    ("Zero critical issues, no open findings: LGTM.\n", A),
    # The same shapes with a condition, a contrast or a no.
    ("No blocking issues; approve once CI passes.\n", None),
    ("No blocking issues; do not approve.\n", None),
    ("No blocking issues. Not approved.\n", R),
    ("No blockers; REJECT.\n", R),
    ("APPROVED — no blockers, but the migration must be reverted.\n", F),
    ("APPROVED — no blockers; fix the typo before merge.\n", None),
    ("No blocking issues found, approve after rebasing.\n", None),
]


@pytest.mark.parametrize(("text", "expected"), NEGATION_EXPLAINS)
def test_negation_explaining_a_clean_verdict(text: str, expected: Decision | None) -> None:
    verdict = parse_verdict(text)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


# Names from the changed code are not this review's verdict.
CODE_NAMES = [
    (
        "**Verdict:** APPROVE\n\nThe change renames `reject_handler.py` and adds "
        "`test_verdict_reject_empty`; both are fine.\n",
        A,
    ),
    ("Verdict: APPROVE\n\nNote: the new `REJECTED` enum value and `DO_NOT_MERGE` label work.\n", A),
    (
        "Verdict: PASS\n\nThe REJECTED path of src/gate/reject.py is tested by test_gate_reject.\n",
        A,
    ),
    ("Ready to merge? Yes\n\nIt wires `Decision.REJECT` into `do_not_merge_guard()`.\n", A),
    # Words, not names, still count.
    ("Verdict: APPROVE\n\nActually, `do not merge` yet.\n", None),
    ("Verdict: APPROVE\n\nDo not merge: `reject_handler.py` leaks a handle.\n", None),
    ("Verdict: APPROVE\n\nREJECTED.\n", None),
    ("Verdict: APPROVE\n\nOn second thought, reject: `test_reject` fails.\n", None),
]


@pytest.mark.parametrize(("text", "expected"), CODE_NAMES)
def test_code_names_are_not_the_verdict(text: str, expected: Decision | None) -> None:
    verdict = parse_verdict(text)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


def test_a_test_run_log_is_not_a_review_log() -> None:
    text = "## Test run\n\n- Result: FAIL\n- Fix: raised the timeout\n- Result: PASS\n"
    assert parse_verdict(text).decision is not A


# Status tables with one ✅ PASS per stage (regression guards: today's reader already
# decides these; the recognisers must not change that).
STAGE_TABLES = [
    (
        "| Stage | Result |\n|---|---|\n| Build | ✅ PASS |\n| Spec review | ✅ PASS |\n"
        "| Quality review | ✅ PASS |\n\n**Overall verdict:** ✅ APPROVED\n",
        A,
    ),
    (
        "| # | Stage | Verdict |\n|---|---|---|\n| 1 | Spec compliance | ✅ PASS |\n"
        "| 2 | Code quality | ✅ PASS |\n\n**Final verdict: PASS**\n",
        A,
    ),
    (
        "| Stage | Verdict |\n|---|---|\n| Spec compliance | ✅ PASS |\n"
        "| Code quality | ❌ FAIL |\n\n**Final verdict: PASS**\n",
        None,
    ),
    (
        "| Stage | Status |\n|---|---|\n| Lint | ✅ PASS |\n| Tests | ❌ FAIL |\n\n"
        "**Overall:** ✅ PASS\n",
        None,
    ),
]


@pytest.mark.parametrize(("text", "expected"), STAGE_TABLES)
def test_stage_tables(text: str, expected: Decision | None) -> None:
    verdict = parse_verdict(text)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


@pytest.mark.parametrize(
    "label", ["**Summary:** one issue", "**Reasoning:**", "**Verdict**", "**Assessment:**"]
)
def test_a_label_inside_a_critical_section_does_not_end_it(label: str) -> None:
    """A bold label the template uses later (`**Reasoning:**`, `**Verdict**`) standing inside
    Critical (Must Fix) introduces what it lists; only `**Ready to merge?**` ends the section."""
    critical = f"{label}\n1. `tokens.py:88` — refresh tokens never expire."
    verdict = parse_verdict(_superpowers(critical, "None.", "Yes"))
    assert verdict.decision is F, verdict.reasons


@pytest.mark.parametrize("critical", ["**Summary:** none", "**Blockers**: None found."])
def test_a_labelled_none_in_a_critical_section_is_empty(critical: str) -> None:
    verdict = parse_verdict(_superpowers(critical, "None.", "Yes"))
    assert verdict.decision is A, verdict.reasons


def _joined(title: str, body: str) -> str:
    return (
        "## 结论\n\n- **总体结论**：通过\n\n"
        f"### {title}\n\n{body}\n\n### Minor\n\n- `a.py:3`: a name could be clearer.\n"
    )


# One section for the two blocking severities ('### Critical／Important') is a blocking
# section: empty when it says "nothing here", in any of the languages reviewers write.
JOINED_SECTIONS = [
    (_joined("Critical／Important", "未发现问题。"), A),
    (_joined("Critical / Important", "None found."), A),
    (_joined("Critical & Important", "没有发现问题"), A),
    (_joined("Critical and Important", "- 无问题"), A),
    (_superpowers("未发现问题。", "未发现。", "Yes"), A),
    (_joined("Critical／Important", "- `auth.py:12`：令牌以明文写入日志。"), F),
    (_joined("Critical / Important", "未发现问题，但迁移必须先回滚。"), F),
    (_joined("Critical and Important", "None found.\n\n- `db.py:40`: the retry loses data."), F),
]


@pytest.mark.parametrize(("text", "expected"), JOINED_SECTIONS)
def test_a_joined_blocking_section_is_read_like_critical(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    if expected is A:
        assert verdict.decision is A, verdict.reasons
    else:
        assert verdict.decision is not A, verdict.reasons
