"""Issue 23, session 11: classes of false refusal and of false approval, as tables.

Genuine approvals written the way real agents write them, each class with hostile twins (the
same shape carrying a condition, a partial scope, a no, a retraction or a finding), which
must still be refused. The strings are new examples of each class, not held-out texts.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._text import MAX_LINE_CHARS

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _refused(decision: Decision) -> bool:
    return decision is not A


# Gerrit prints a vote as the first line of its message: 'Patch Set 3: Code-Review+2'.
GERRIT = [
    ("Patch Set 3: Code-Review+2\n\nLooks good to me, approved.\n", A),
    ("Patch Set 12: Code-Review+2\n", A),
    # hostile: the same prefix with a negative vote, and prose that approves beside it
    ("Patch Set 3: Code-Review-1\n\nLooks good to me otherwise.\n", F),
    ("Patch Set 3: Code-Review-2\n\nLGTM apart from that.\n", R),
    ("Patch Set 3: Code-Review+1\n", M),
]


@pytest.mark.parametrize(("text", "expected"), GERRIT)
def test_gerrit_vote_after_its_patch_set(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# GitHub's review state written as a bold label: '**Review state:** APPROVED'.
GITHUB = [
    ("**Review state:** APPROVED\n\nNice work on the retry logic.\n", A),
    ("- **State:** `APPROVED`\n", A),
    # hostile
    ("**Review state:** CHANGES_REQUESTED\n\nNice work on the retry logic.\n", F),
    ("**Review state:** COMMENTED\n", M),
    ("**Review state:** APPROVED\n\nActually, no: the migration drops a column.\n", R),
]


@pytest.mark.parametrize(("text", "expected"), GITHUB)
def test_github_state_as_bold_label(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# A Chinese condition in the answer's own clause: '通过（修复测试后）' is "pass (after the tests
# are fixed)": 后 ends a clause that says when, whatever stands between the verb and it.
_ZH = "# 代码评审\n\n## 问题\n无\n\n## 结论\n{}\n"
CJK_AFTER = [
    (_ZH.format("通过"), A),
    (_ZH.format("通过（修复测试后）"), F),
    (_ZH.format("通过，补充文档后合入"), F),
    (_ZH.format("批准（更新迁移脚本后）"), F),
]


@pytest.mark.parametrize(("text", "expected"), CJK_AFTER)
def test_chinese_after_clause_conditions_the_answer(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# A GSD verifier report that says 'passed' while its 'Human Verification Required' section
# lists items: the labelling rule reads `passed` with no open gap as an approval; the checks
# are the template's notes for a person (`human_needed` is the status that makes them
# conditions). A body status that disagrees still wins (the non-passing record).
_GSD = (
    "---\nphase: 02-api\nverified: 2026-05-02T12:00:00Z\nstatus: passed\n"
    "score: 5/5 must-haves verified\n---\n\n# Phase 2: API Verification Report\n\n"
    "**Status:** passed\n\n### Anti-Patterns Found\nNone.\n\n"
    "### Human Verification Required\n{}\n\n---\n\n_Verifier: Claude (gsd-verifier)_\n"
)
GSD_HUMAN = [
    (_GSD.format("None."), A),
    (_GSD.format("_None._"), A),
    (_GSD.format("1. Check the UI renders the page list"), A),
    (_GSD.format("- **Test:** open /users in a browser\n  **Expected:** a list"), A),
    (_GSD.format("1. Check the UI").replace("Required\n", "Required (1 item)\n"), A),
    (_GSD.format("1. Check the UI").replace("**Status:** passed", "**Status:** human_needed"), F),
    (_GSD.format("1. Check the UI").replace("status: passed", "status: human_needed"), F),
]


@pytest.mark.parametrize(("text", "expected"), GSD_HUMAN)
def test_gsd_passed_with_human_items_follows_the_status(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# Lines longer than the cap: a long table row or paragraph of the review's body is read in
# pieces (sentences, cells), each bounded; a piece that says no, conditions, blocks or is
# itself longer than the cap still refuses the approval.
_ROW = "| Retry | " + "The retry loop backs off exponentially and caps at five attempts; " * 40
_PARA = "The change is small and well contained. " * 70
_VERDICT = "\n\n## Verdict\nAPPROVED\n"
LONG_LINES = [
    ("# Review\n\n## Details\n| Area | Notes |\n|---|---|\n" + _ROW + "|" + _VERDICT, A),
    ("# Review\n\n## Summary\n" + _PARA + _VERDICT, A),
    ("# Review\n\n## Verdict\nAPPROVED\n\n## Notes\n" + _PARA + "\n", A),
    # hostile: the no, condition or block sits past the cap, and a piece that is too long
    ("# Review\n\n## Summary\n" + _PARA + "Do not merge this yet." + _VERDICT, R),
    ("# Review\n\n## Verdict\nAPPROVED\n\n## Notes\n" + _PARA + "Merge once CI passes.\n", F),
    ("# Review\n\n## Verdict\nAPPROVED\n\n## Notes\n" + _PARA + " The tests fail.\n", F),
    ("# Review\n\n## Summary\n" + _PARA + "Critical: 2 open issues." + _VERDICT, F),
    ("# Review\n\n## Summary\n" + _PARA + " must be fixed before merge." + _VERDICT, F),
    ("# Review\n\n## Summary\n" + "word " * MAX_LINE_CHARS + _VERDICT, M),
    ("# Review\n\n" + "**Verdict:** APPROVED " + "and fine " * 300 + "\n", M),
    (
        "# Review\n\n## Details\n| Area | Notes |\n|---|---|\n" + _ROW + "| REJECT |" + _VERDICT,
        R,
    ),
]


@pytest.mark.parametrize(("text", "expected"), LONG_LINES)
def test_long_lines_are_read_in_bounded_pieces(text: str, expected: Decision) -> None:
    decision = parse_verdict(text).decision
    if expected is A:
        assert decision is A, text[-200:]
    else:
        assert _refused(decision), text[-200:]


# Short prose above a verdict that stands outside any section and cannot carry a decision: a
# thank-you, an appraisal that is only praise, a one-line account of what was reviewed.
PREAMBLE = [
    ("Looks good.\n\n**Ready to merge?** Yes\n", A),
    ("Looks great to me!\n\n**Verdict:** APPROVE\n", A),
    ("Thanks for the clean PR!\n\n**Verdict:** APPROVE\n", A),
    ("Thank you for the quick turnaround.\n\nVerdict: LGTM\n", A),
    ("Reviewed the retry change in `http/client.py`.\n\nVerdict: LGTM\n", A),
    ("I reviewed all 4 commits of this PR.\n\n**Verdict:** APPROVED\n", A),
    ("Nice work.\n\n**Ready to merge?** Yes\n", A),
    # hostile: the same shapes with a condition, a no, a scope or a doubt
    ("Looks good once the tests pass.\n\n**Ready to merge?** Yes\n", F),
    ("Looks good, but rename the flag.\n\n**Ready to merge?** Yes\n", F),
    ("Looks good so far.\n\n**Ready to merge?** Yes\n", M),
    ("Thanks, but the migration must be reverted first.\n\n**Verdict:** APPROVE\n", F),
    ("Thanks for the PR; do not merge it yet.\n\n**Verdict:** APPROVE\n", R),
    ("Thanks for the PR, holding it for now.\n\n**Verdict:** APPROVE\n", M),
    ("Reviewed the retry change; it must not ship before the fix.\n\nVerdict: LGTM\n", F),
    ("Reviewed only the backend.\n\nVerdict: LGTM\n", M),
    ("Reviewed the first two commits.\n\nVerdict: LGTM\n", M),
    ("I have not reviewed the tests.\n\nVerdict: LGTM\n", M),
    ("Reviewed the change. Hold off.\n\nVerdict: LGTM\n", M),
    ("Hold off on this.\n\n**Verdict:** APPROVE\n", M),
    ("Merge only once the migration is reverted.\n\n**Verdict:** APPROVED\n", F),
    ("Nice work, except the migration.\n\n**Ready to merge?** Yes\n", F),
    ("Reviewed the change and found a race.\n\nVerdict: LGTM\n", M),
    ("Reviewed the change, which drops the users table.\n\nVerdict: LGTM\n", M),
    ("Looks good to merge after a rebase.\n\n**Ready to merge?** Yes\n", F),
    ("Thanks! Reverting this.\n\n**Verdict:** APPROVE\n", M),
    ("Looks good, see the race in `a.py`.\n\n**Verdict:** APPROVE\n", M),
    ("Nice work — the tests fail.\n\n**Verdict:** APPROVE\n", F),
    ("Thanks for the PR 不要合并\n\n**Verdict:** APPROVE\n", M),
    ("Nice try.\n\n**Verdict:** APPROVE\n", M),
    ("Looks good, mostly.\n\n**Verdict:** APPROVE\n", M),
    ("Looks fine to merge after the rebase.\n\n**Verdict:** APPROVE\n", F),
]


@pytest.mark.parametrize(("text", "expected"), PREAMBLE)
def test_short_prose_above_the_verdict(text: str, expected: Decision) -> None:
    decision = parse_verdict(text).decision
    if expected is A:
        assert decision is A, text
    else:
        assert _refused(decision), text


# A verdict token standing as its own line: 'PLAN_REVIEW_PASS', 'CODE_REVIEW_APPROVED'.
_BODY = "# Plan review\n\n## Checks\n- All tasks have acceptance criteria\n\n{}\n"
TOKENS = [
    (_BODY.format("PLAN_REVIEW_PASS"), A),
    (_BODY.format("**CODE_REVIEW_APPROVED**"), A),
    (_BODY.format("`REVIEW_PASS`"), M),  # a code span is code, not the verdict
    # hostile
    (_BODY.format("PLAN_REVIEW_FAIL"), R),
    (_BODY.format("PLAN_REVIEW_PASS_WITH_FIXES"), F),
    (_BODY.format("PLAN_REVIEW_PASS\n\nThe tests fail on CI."), F),
    (_BODY.format("PLAN_REVIEW_PASS\n\n## Critical\n- SQL injection in `users.py:40`"), F),
    (_BODY.format("DEPLOY_PASS"), M),
    (_BODY.format("TEST_PASS"), M),
]


@pytest.mark.parametrize(("text", "expected"), TOKENS)
def test_verdict_token_as_its_own_line(text: str, expected: Decision) -> None:
    decision = parse_verdict(text).decision
    if expected is A:
        assert decision is A, text
    else:
        assert _refused(decision), text


# A finding tagged blocking after its location ('`Foo.java:12` — **Critical:** NPE …', as
# DevoxxGenie-style reviews list location, why and fix) blocks an approval beside it.
_FINDING = "## Code review\n\n1. {}\n\n**Verdict:** LGTM\n"
LOCATED_TAGS = [
    (_FINDING.format("`Foo.java:12` — minor naming."), A),
    (_FINDING.format("`Foo.java:12` — critical path covered by tests."), A),
    # hostile
    (_FINDING.format("`Foo.java:12` — **Critical:** NPE on null input."), F),
    (_FINDING.format("src/a.py:40 - [BLOCKER]: race on shutdown"), F),
    (_FINDING.format("**a.py:3** — Critical — the handle leaks"), F),
]


@pytest.mark.parametrize(("text", "expected"), LOCATED_TAGS)
def test_blocking_tag_after_a_location(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


# A colon inside a parenthesis after the verdict is not the separator of a label: the
# verdict word is the answer and the parenthesis its extra.
PARENTHESES = [
    ("## Verdict\n**APPROVE** (confidence: high)\n", A),
    ("## Verdict\nAPPROVED (reviewer: claude)\n", A),
    # hostile
    ("## Verdict\n**APPROVE** (confidence: low)\n", M),
    ("## Verdict\n**APPROVE** (condition: CI must pass)\n", F),
    ("## Verdict\n**APPROVE** (scope: frontend only)\n", M),
    ("## Verdict\n**REJECT** (confidence: high)\n", R),
]


@pytest.mark.parametrize(("text", "expected"), PARENTHESES)
def test_colon_inside_a_parenthesis(text: str, expected: Decision) -> None:
    decision = parse_verdict(text).decision
    if expected is A or expected is R:
        assert decision is expected, text
    else:
        assert _refused(decision), text


# Verdict labels in other languages, as a label line: each names the review's verdict
# field; the same line with a condition in its language, or a no, is still refused.
_LABELS = [
    ("Gesamturteil", "Freigegeben", "Freigegeben, sobald die Tests grün sind", "Abgelehnt"),
    ("Gesamtbewertung", "Freigegeben", "Freigegeben, aber erst nach dem Rebase", "Abgelehnt"),
    ("Endergebnis", "APPROVED", "APPROVED nachdem die CI grün ist", "REJECTED"),
    ("Evaluación final", "Aprobado", "Aprobado cuando pase la CI", "Rechazado"),
    ("Veredicto final", "Aprobado", "Aprobado, pero hay que corregir los tests", "Rechazado"),
    ("Avaliação final", "Aprovado", "Aprovado desde que os testes passem", "Reprovado"),
    ("Avis final", "Approuvé", "Approuvé dès que la CI passe", "Rejeté"),
    ("Verdetto finale", "Approvato", "Approvato dopo il rebase", "Respinto"),
    ("Итоговая оценка", "Одобрено", "Одобрено после исправления тестов", "Отклонено"),
    ("总体评价", "通过", "通过（修复测试后）", "不通过"),
    ("判定結果", "承認", "承認（ただしテスト修正後）", "却下"),
    ("종합 의견", "승인", "승인 (테스트 수정 후)", "반려"),
    ("Prüfergebnis", "APPROVED", "APPROVED pending QA", "REJECTED"),
]
OTHER_LABELS = [
    (f"# Review\n\n## Findings\nNone.\n\n{form.format(label, value)}\n", expected)
    for label, yes, conditioned, no in _LABELS
    for form in ("{}: {}", "**{}:** {}")
    for value, expected in ((yes, A), (conditioned, F), (no, R))
]


@pytest.mark.parametrize(("text", "expected"), OTHER_LABELS)
def test_verdict_labels_in_other_languages(text: str, expected: Decision) -> None:
    decision = parse_verdict(text).decision
    if expected is A:
        assert decision is A, text
    else:
        assert _refused(decision), text


# Evidence after the verdict: code spans, file names and test names hold words a condition
# reader would take ('IF NOT EXISTS', 'when', 'unless', 'pending'); a test named by its
# identifier that fails now is still a failing check.
_EVIDENCE = "## Verdict\nAPPROVED\n\n## Evidence\n{}\n"
EVIDENCE = [
    (_EVIDENCE.format("- `CREATE INDEX IF NOT EXISTS idx_users` is idempotent"), A),
    (_EVIDENCE.format("- `docs/when-to-merge.md`\n- `src/unless_ready.py`"), A),
    (_EVIDENCE.format("- earlier `test_retry` failed when the clock was mocked; fixed"), A),
    # hostile
    (_EVIDENCE.format("- `test_retry` fails."), F),
    (_EVIDENCE.format("- tests/test_api.py::test_page fails on CI."), F),
    (_EVIDENCE.format("- `CREATE INDEX IF NOT EXISTS` — merge only once it runs on prod"), F),
]


@pytest.mark.parametrize(("text", "expected"), EVIDENCE)
def test_evidence_after_the_verdict(text: str, expected: Decision) -> None:
    assert parse_verdict(text).decision is expected, text


@pytest.mark.parametrize(
    ("explained", "expected"),
    [
        ("None. All artifacts are types and constants, checked by the compiler.", Decision.APPROVE),
        # a check after the contrast does not block under `passed`; what the line says
        # besides is read like the body's prose: an obligation is no reason, a no is a no
        ("None. But check the download dialog by hand.", Decision.APPROVE),
        ("None. However, the dialog must be opened by hand in a browser.", Decision.MALFORMED),
        ("None. But the download dialog crashes; do not merge.", Decision.REJECT),
    ],
)
def test_gsd_human_verification_none_explained(explained: str, expected: Decision) -> None:
    """'None.' with an explanation after it lists no check; a check after it does not block
    under `passed`; the rest of the line is read like the body's prose."""
    text = (
        "---\nphase: 01-foundation\nstatus: passed\nscore: 4/4\n---\n\n"
        "# Phase 1: Verification Report\n\n**Status:** passed\n\n"
        f"### Human Verification Required\n\n{explained}\n\n### Gaps Summary\n\nNo gaps found.\n"
    )
    assert parse_verdict(text).decision is expected
