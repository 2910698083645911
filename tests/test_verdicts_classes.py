"""Issue 9: every false-approval class and every 'does not generalise' class, as tables.

The strings are new examples of each class, not the held-out texts. Each table names the
class it covers; a row is (text, expected decision) or, where only the promise matters,
(text, None) meaning "anything but approve".
"""

from __future__ import annotations

import json

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED
NOT_A = None

# 1. A verdict question without an affirmative answer.
QUESTION_WITHOUT_YES = [
    ("**Ready to merge?**\n", M),
    ("**Ready to merge?**\n\nThe change is small and reads well.\n", M),
    ("## Ready to merge?\n\nI looked at every file.\n", M),
    ("Ready to merge? Not yet\n", F),
    ("Ready to merge? Not yet — two tests are missing.\n", F),
    ("Ready to merge? Absolutely not\n", R),
    ("Ready to merge? Definitely not.\n", R),
    ("Ready to merge? Not until the migration is reverted.\n", F),
    ("**Ready to merge?**\n- [ ] Yes\n- [ ] No\n- [x] With fixes\n", F),
    ("**Ready to merge?**\n- [ ] Yes\n- [x] No\n", R),
    ("**Ready to merge?**\n- [ ] Yes\n- [ ] No\n- [ ] With fixes\n", M),
    ("**Ready to merge?**\n- [x] Yes\n- [x] No\n", M),
    ("Ready to merge? Yes? I am not sure\n", M),
    ("Ready to merge? Yes, I think\n", M),
    ("Ready to merge? Probably yes.\n", NOT_A),
    ("Is it safe to merge? That depends on the load test.\n", M),
    ('The PM asked "is it ready to merge?" and I cannot say yet.\n', NOT_A),
]

# 2. Approval followed by its withdrawal (also not at line start), or a later status no.
WITHDRAWN = [
    ("Ready to merge? Yes\n\nI retract my approval.\n", R),
    ("Ready to merge? Yes\n\nThanks for the fix. Having rerun it, I retract my approval.\n", R),
    ("Verdict: APPROVE\n\nPlease do not merge: the release is frozen.\n", R),
    ("Verdict: APPROVE\n\n## Update\n\nAfter another look, Verdict: REJECT\n", R),
    ("Verdict: APPROVE\n\n**Edit:** on reflection, changes requested.\n", NOT_A),
    ("LGTM\n\nEdit: I withdraw my approval until the flaky test is fixed.\n", R),
    ("**Security:** Rejected\n**Quality:** Approved\n", R),
    ("**Quality:** Approved\n**Security:** Rejected\n", R),
    ("Verdict: PASS\n\n- Build: FAIL (unit tests crash)\n", NOT_A),
    ("Ready to merge? Yes\n\nLater I found the race again; my verdict is now NO.\n", NOT_A),
    ("Ready to merge? Yes\n\nUpdate: hold off on merging until Monday.\n", NOT_A),
]

# 3. Conditional approvals in any language.
CONDITIONAL = [
    ("Ship it when CI is green.\n", F),
    ("Ready to merge? Yes, as soon as the docs land.\n", F),
    ("Ready to merge? Yes, once CI is green.\n", F),
    ("Verdict: APPROVE after the rename\n", F),
    ("Verdict: APPROVE, but bump the version first\n", F),
    ("Verdict: approve, though rename the flag first\n", F),
    ("Status: APPROVED pending the security review\n", F),
    ("Verdict: APPROVED before merge the changelog needs an entry\n", F),
    ("Ready to merge? Yes if the tests pass\n", F),
    ("Verdict: APPROVE.\n\nMerge once the nightly job passes.\n", F),
    ("Ready to merge? Oui, dès que la CI passe.\n", F),
    ("Verdict : approuvé, mais il faut corriger le test.\n", F),
    ("Veredicto: aprobado, pero falta un test.\n", F),
    ("Veredito: aprovado, mas falta um teste.\n", F),
    ("Ready to merge? Ja, sobald die CI grün ist.\n", F),
    ("Ready to merge? Ja, aber erst die Tests fixen.\n", F),
    ("Ready to merge? Ja, nachdem die Tests laufen.\n", F),
    ("判定: 承認（テストが通れば）\n", F),
    ("结论：通过，但需要补充测试\n", F),
    ("结论：通过，合并之后再补文档\n", F),
    ("结论：通过（修复后）\n", F),
]

# 4. Blocking content beside an approval.
BLOCKING = [
    ("Ready to merge? Yes\n\n### Critical\n- SQL injection in `api.py:12`\n", F),
    ("Ready to merge? Yes\n\nBlocking: the migration drops a column.\n", F),
    ("Ready to merge? Yes\n\nThe race in `cache.py` must be fixed before merge.\n", F),
    ("Ready to merge? Yes\n\n### Minor\n- MUST FIX: the token is logged\n", F),
    ("**Critical:** 2\n\nVerdict: APPROVE\n", F),
    ("Verdict: APPROVE\n\n**0 Blocking / 3 Important**\n**2 Blocking**\n", F),
    (
        '{"review_id": "r", "verdict": "approve", "findings": [{"severity": "critical", '
        '"title": "leak"}]}\n',
        F,
    ),
    ('{"approved": true, "blocking_issues": ["the token is logged"]}\n', F),
    ("Gate: PASS — pending fix of the flaky test\n", F),
    ("Verdict: APPROVE\n\n**Critical (Must Fix):**\n- auth bypass in `login.py`\n", F),
    ("## Verdict: APPROVE\n\n### 阻塞性问题\n- 数据丢失\n", F),
]

# 5. Things that are not verdicts.
NOT_VERDICTS = [
    ("# Ready to merge? Yes — a checklist\n\nStep one: run the tests.\n", M),
    ("<!-- Verdict: APPROVE -->\nNothing else here.\n", M),
    ('<!--\n```json\n{"review_id": "r", "verdict": "approve", "findings": []}\n```\n-->\n', M),
    ("Example lines\nVerdict: APPROVE\n", M),
    ("Sample output\n\nReady to merge? Yes\n", NOT_A),
    ("Verdict for PR #12: APPROVE\n", M),
    ("> Author: Ready to merge? Yes\n\nI disagree: there are still bugs.\n", M),
    ('The author wrote "Ready to merge? Yes" but I disagree.\n', M),
    ("ACK — received the patch, will review tomorrow.\n", M),
    ("I did not run `ssf review --verdict pass`; the sandbox blocked it.\n", M),
    ("## Option B\n\nVerdict: APPROVED\n", M),
]

# 6. JSON: duplicate keys, unknown keys, truncation (fenced, unfenced, whole output).
JSON_CASES = [
    (
        '```json\n{"review_id": "r", "verdict": "reject", "verdict": "approve", "findings": []}\n'
        "```\n",
        M,
    ),
    ('```json\n{"review_id": "r", "verdict": "approve", "findings": [], "note": "x"}\n```\n', M),
    (
        '```json\n{"review_id": "r", "verdict": "approve", "findings": [{"severity": "minor", '
        '"title": "t", "extra": 1}]}\n```\n',
        M,
    ),
    ('Result: {"verdict": "approve", "findings": [{"severity": "critical", "title": "x', M),
    ('Ready to merge? Yes\n\nResult: {"verdict": "approve", "findings": [{"severity": ', M),
    ('{"review_id": "r", "verdict": "approve", "findings": [', M),
    ('{"review_id": "r", "verdict": "approve", "findings": [], "score": 1e999}\n', M),
    ('{"review_id": "r", "verdict": "approve", "findings": [], "x": NaN}\n', M),
    ('Result: {"review_id": "r", "verdict": "approve", "findings": []} — looks fine.\n', M),
]

# And it does not generalise: the misses of issue 9, as classes.
GENERALISE = [
    ("结论：需要修复\n", F),
    ("## 总体结论：需要修复\n\n### 阻塞性\n- 数据丢失\n", F),
    ("审批建议：需修改\n", F),
    ("评审结果：通过\n", A),
    ("整体定级：不通过\n", R),
    ("**综合判定: PASS-WITH-WARNINGS (需修正后可进入实施)**\n", F),
    ("判定: 却下\n", R),
    ("Dictamen: aprobado\n", A),
    ("Dictamen: rechazado\n", R),
    ("**Verdict:** **Changes requested**\n", F),
    ("**Verdict:** **Approved**\n", A),
    ("Verdict: PASS-WITH-FOLLOWUPS\n", F),
    ("Status: needs-work\n", F),
    ("Verdict: accept_with_findings\n", F),
    ("Verdict: FIX-FIRST (soft) — two spec items unimplemented.\n", F),
    ("verdict=approve blockers=0 warnings=0\n", A),
    ("review_status=changes_requested\n", F),
    ("| Verdict | Changes requested |\n|---|---|\n", F),
    ("| **Verdict** | **APPROVED** |\n|---|---|\n", A),
    ("| Reviewer | Verdict |\n|---|---|\n| Alice | APPROVE |\n| Bob | REQUEST CHANGES |\n", F),
    ("Findings are listed above.\n\nNot approved.\n", R),
    ("Verdict: APPROVED with 14 issues (0 blocking)\n", A),
    ("Verdict: APPROVED with 14 issues\n", F),
    ("Status: issues\n", F),
    ("Status: issues_fixed\n", M),
    ("Status: clean\n", M),
    ("---\nstatus: clean\nfindings:\n  critical: 0\n  warning: 0\n---\n# Review\n", A),
    ("---\nstatus: clean\nfindings:\n  critical: 1\n---\n# Review\n", F),
    ("结论：无需修改\n", M),
    ("结论：通过，无需修改\n", A),
    ("## Final Verdict — DO NOT MERGE\n\n### Track A\nVerdict: PASS\n", R),
    ("## Final Verdict — DO NOT MERGE\n\n## Track B\n**Verdict:** PASS\n", R),
    ("Tests: 41 passed, no failures, no regressions\n", M),
    ("## Verdict\n\nNo regressions in the suite.\n", M),
    ("---\nstatus: passed\nscore: 5/5\n---\n\n**Status:** human_needed\n", F),
    (
        "---\nstatus: passed\nupdated: 2026-03-10\nhuman_uat_result: 7/7 PASS\n---\n\n"
        "**Status:** human_needed\n",
        A,
    ),
    ("---\nstatus: gaps_found\nscore: 3/4\n---\nbody\n", F),
    ("---\nstatus: human_needed\n---\n**Status:** human_needed\n", F),
    ("---\nstatus: passed\ngaps:\n  - truth: export works\n---\nbody\n", F),
    ("---\nstatus: passed\ngaps: []\n---\nbody\n", A),
]

# And the over-strict refusals to avoid.
STILL_APPROVES = [
    "Ready to merge? Yes. I had concerns before, but the second commit resolved all of them.\n",
    "\ufeffReady to merge? Yes\n",
    "Verdict: APPROVE — no blocking issues, no changes needed.\n",
    "Ready to merge? Yes — the follow-ups below don't block the merge.\n",
    "LGTM with notes. Ship it.\n",
    "**Overall Status:** ✅ **APPROVED WITH COMMENDATIONS**\n",
    "## Verdict\n\n**Ready with nits**\n",
    "### Critical\n- None.\n\n### Minor\n- typo in README\n\n**Ready to merge?** Yes\n",
    "## Round 1\nVerdict: BLOCKED\n\n## Round 2\nVerdict: PASS — all fixed.\n",
    "Verdict: APPROVE\n\nThe flaky test failed until the retry fix in round 2; it is green.\n",
    "**Estado:** ✅ **APROBADO CON MEJORAS MENORES OPCIONALES**\n",
    "结论：通过\n",
    "判定: マージ可\n",
    "판정: 승인\n",
]

TABLES = {
    "1-question": QUESTION_WITHOUT_YES,
    "2-withdrawn": WITHDRAWN,
    "3-conditional": CONDITIONAL,
    "4-blocking": BLOCKING,
    "5-not-verdicts": NOT_VERDICTS,
    "6-json": JSON_CASES,
    "generalise": GENERALISE,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(t, e, id=f"{name}-{i}")
        for name, rows in TABLES.items()
        for i, (t, e) in enumerate(rows)
    ],
)
def test_class(text: str, expected: Decision | None) -> None:
    verdict = parse_verdict(text)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, (verdict.reasons, verdict.warnings)
    # The path `mergegate review` uses: a nonce expected and no trailer carrying it.
    assert parse_verdict(text, review_id="nonce-1").decision is not A


@pytest.mark.parametrize("text", STILL_APPROVES)
def test_over_strict_refusals_are_avoided(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, (verdict.reasons, verdict.warnings)


def _trailer(verdict: str = "approve", **extra: object) -> str:
    body = {"review_id": "nonce-1", "verdict": verdict, "findings": [], **extra}
    return "\n```json\n" + json.dumps(body) + "\n```\n"


@pytest.mark.parametrize(
    "text",
    [
        # Class 6 with --review-id: the trailer carries the right nonce but is not valid.
        "Ready to merge? Yes\n" + _trailer(note="x"),
        "Ready to merge? Yes\n"
        + _trailer().replace('"findings"', '"verdict": "approve", "findings"'),
        "Ready to merge? Yes\n"
        + _trailer().replace('"nonce-1"', '"nonce-1", "review_id": "nonce-1"'),
        "Ready to merge? Yes\n" + _trailer()[: len(_trailer()) // 2],
        "## Example\n\nReady to merge? Yes\n" + _trailer(),
        "Use this format:\n" + _trailer() + "\nNothing else.\n",
        "Ready to merge? Yes\n" + _trailer() + "\nI retract my approval.\n",
        "Ready to merge? No\n" + _trailer(),
        "Ready to merge? Yes, once CI passes\n" + _trailer(),
        "Ready to merge? Yes\n" + _trailer() + "\n### Critical\n- the token leaks\n",
        "x\n" * 600_000 + "Ready to merge? Yes\n" + _trailer(),
    ],
)
def test_hostile_trailers_never_approve_with_a_review_id(text: str) -> None:
    assert parse_verdict(text, review_id="nonce-1").decision is not A
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "text",
    [
        "Ready to merge? Yes\n<!--" + _trailer() + "-->\n",
        "Ready to merge? Yes\n\n## Example\n" + _trailer(),
        "Ready to merge? Yes\n\nFor example:\n" + _trailer(),
    ],
)
def test_a_trailer_that_is_not_live_is_no_trailer(text: str) -> None:
    """Without a nonce the prose yes stands on its own; with one, a trailer in a comment or
    an example is no trailer, so nothing approves."""
    assert parse_verdict(text).decision is A
    assert parse_verdict(text, review_id="nonce-1").decision is M


def test_a_valid_trailer_with_the_nonce_still_approves() -> None:
    text = "Findings:\n\n" + _trailer() + "\nReady to merge? Yes\n"
    assert parse_verdict(text, review_id="nonce-1").decision is A


def test_replacement_character_on_the_verdict_line_never_approves() -> None:
    assert parse_verdict("Ready to merge? Yes \ufffd\n").decision is not A
    assert parse_verdict("Verdict: APPR\ufffdOVED\n").decision is not A
    assert parse_verdict("Verdict: APPROVED \ufffd\n").decision is not A


def test_a_bom_anywhere_but_the_start_is_still_a_lookalike() -> None:
    assert parse_verdict("Ready to merge? Y\ufeffes\n").decision is not A
    assert parse_verdict("\ufeffReady to merge? Yes\n").decision is A


def test_a_cut_line_never_approves() -> None:
    text = "Ready to merge? Yes " + "x" * 5000 + " once CI is green\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "text",
    [
        "Approved.\n\nActually, I need to take that back.\n",
        "Approved\n\nSeverity: Critical — token leaks into logs\n",
        "Approved\n\n| # | Severity | Finding |\n|---|---|---|\n| 1 | Critical | token leak |\n",
        "Ready to merge? Yes and no\n",
        "Verdict: APPROVE\n\nAfter re-running the suite I must change my verdict to REJECT.\n",
        "Verdict: APPROVE\n\n**P0** — data loss on retry\n",
        "Verdict: APPROVE\n\nThere is one blocker: the migration.\n",
        "For PR #12: Ready to merge? Yes\n",
        "Verdict (PR #12): APPROVE\n",
        "Next: `ssf review --verdict pass`\n",
        "Вердикт: одобрено, но нужно добавить тесты\n",
        "LGTM with notes. Ship it. — mais il faut corriger le test\n",
        "**Ready with nits** once CI is green\n",
        "## Verdict, once CI is green\n\n**Ready to ship**\n",
        "### Verdict when the nightly job passes\n\nAPPROVE.\n",
        "---\nstatus: Yes? I am not sure\n---\n\n**Status:** clean\n\nCritical: 0\n",
    ],
)
def test_more_shapes_of_the_classes_never_approve(text: str) -> None:
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "text",
    [
        "Approved\n\n| Severity | Count |\n|---|---|\n| Critical | 0 |\n| Minor | 2 |\n",
        "Approved\n\n| # | Severity | Finding |\n|---|---|---|\n| 1 | Critical | leak (fixed) |\n",
        "Verdict: APPROVE — no blockers, 0 blocking, no changes needed.\n",
        "Вердикт: одобрено\n",
        "## Verdict after fixes\n\n**Ready to ship**\n",
    ],
)
def test_and_their_harmless_neighbours_still_approve(text: str) -> None:
    assert parse_verdict(text).decision is A


def test_a_request_of_an_earlier_round_that_was_met_is_history_not_a_no() -> None:
    text = "Ready to merge? Yes\n\nRound 1 requested changes to the parser; all were addressed.\n"
    assert parse_verdict(text).decision is A
    edited = "Ready to merge? Yes\n\nEdit: changes requested — the earlier fix was not applied.\n"
    assert parse_verdict(edited).decision is F
