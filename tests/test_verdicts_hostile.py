"""A broad hostile suite: new variants of every false-approval class of issue 9 (1–7), in
several languages, formats and positions, and the near-miss approvals that must keep
approving.

Each table row is `(text, expected)`; `expected` is a decision, or `NOT_A` where only the
promise matters ("anything but approve"). Every row is also run with a `review_id`:

* a hostile row gets an *approving* trailer carrying that id — at its `{T}` mark when it has
  one (inside the construct that must not count), else appended — and must still not approve
  (a valid trailer does not launder a withdrawn, conditioned or blocked approval);
* a near-miss approval gets the approving trailer appended and must approve.

Rows of class 6 carry their own trailers (`{RID}` is the nonce) and are run as written.
"""

from __future__ import annotations

import json

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._text import MAX_INPUT_LINES

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED
NOT_A = None
RID = "mg-h0stile"
_BIG = 1_000_000  # the parser's input window (`_text.MAX_INPUT_CHARS`)


def trailer(verdict: str = "approve", findings: list[dict[str, object]] | None = None) -> str:
    body = {"review_id": RID, "verdict": verdict, "findings": findings or []}
    return "\n```json\n" + json.dumps(body) + "\n```\n"


_FILLER = "".join(
    f"- Reviewed `src/module_{i}.py`: the handler validates input and the tests cover it.\n"
    for i in range(150)
)

# 1. A verdict question without an affirmative answer.
CLASS_1 = [
    ("**Ready to merge?** Not quite — the migration is missing.\n", NOT_A),
    ("Ready to merge?\n\n- [x] No\n- [ ] Yes\n", R),
    ("### Ready to merge?\n\n_TBD_\n", M),
    ("**Ready to merge?** 🤔\n", M),
    ("Ready to merge? Yes?\n", M),
    ("Ready to merge? Maybe.\n", NOT_A),
    ("¿Listo para merge? Todavía no.\n", F),
    ("Prêt à fusionner ? Pas encore.\n", F),
    ("Bereit zum Mergen? Noch nicht.\n", F),
    ("可以合并吗？还不行，测试没过。\n", NOT_A),
    ("マージ可否：保留\n", NOT_A),
    ("병합 가능 여부: 아직 아님\n", NOT_A),
    ("Ready to merge?\n\n> Yes\n", M),
    ("Ready to merge? Absolutely not!!! 🚫\n", R),
    ("Ready to merge? — see the findings below\n\n## Findings\n- the cache is unbounded\n", M),
    ("**Ready to merge?**\n\n- [X] With fixes\n- [ ] Yes\n", F),
    ("Ready to merge? Y/N\n", M),
    ("Is this ready to merge? I'd say not yet.\n", NOT_A),
    ("Ready to merge?\r\nNo\r\n", R),
    ("\ufeff**Ready to merge?**\n\nUnclear.\n", M),
    ("READY TO MERGE? NOT YET.\n", F),
    ("| Ready to merge? | |\n|---|---|\n", M),
    ("**Ready to merge?**\n\n" + _FILLER + "\nYes\n", M),
    ("Ready to merge? Not before the migration lands.\n", NOT_A),
]

# 2. Approval followed by its withdrawal: later retractions, bare contrary answers, Update
#    sections, later status lines — anywhere after it, in any language.
CLASS_2 = [
    ("Verdict: APPROVE\n\nThe code is fine.\n\n**No, wait — the tests fail.**\n", NOT_A),
    ("Ready to merge? Yes\n\nActually, no. The cache key collides across tenants.\n", NOT_A),
    ("LGTM\n\nHmm, no — I missed the migration.\n", NOT_A),
    ("Verdict: APPROVE\n\nNope. The lock is never released on the error path.\n", NOT_A),
    ("✅ Approved\n\n---\n\n**EDIT:** retracting my approval — found a data race.\n", R),
    ("Verdict: APPROVE\n\n## Nachtrag\n\nUrteil: abgelehnt\n", R),
    (
        "Veredicto: aprobado\n\nActualización: retiro mi aprobación, hay un fallo en la "
        "migración.\n",
        R,
    ),
    ("Verdict : approuvé\n\nEn fait non, je retire mon approbation.\n", R),
    ("结论：通过\n\n更新：撤回批准，发现数据竞争。\n", R),
    ("判定: 承認\n\n追記：やはり差し戻します。\n", NOT_A),
    ("판정: 승인\n\n수정: 승인 철회합니다.\n", R),
    ("Ready to merge? Yes\n\n(Correction: the tests fail on CI, so no.)\n", NOT_A),
    (
        "**Verdict:** APPROVE\n\n| Part | Verdict |\n|---|---|\n| API | APPROVE |\n"
        "| DB | REJECT |\n",
        R,
    ),
    ("Ready to merge? Yes\r\n\r\nPlease don't merge yet — the release is frozen.\r\n", R),
    ("Verdict: APPROVE\n\n" + _FILLER + "\nOn second thought, do not merge this.\n", R),
    ("Verdict: APPROVE\n\n- Status: ~~Approved~~ **Rejected**\n", NOT_A),
    ("Ready to merge? Yes\n\nI'm revoking my approval.\n", R),
    ("Verdict: APPROVE\n\nWait. No. The tests fail.\n", NOT_A),
    ("Approved ✅\n\nUPDATE: Not approved — the benchmark regressed 40%.\n", NOT_A),
    ("Ready to merge? Yes\n\nMy final answer: No.\n", R),
    ("Veredito: aprovado\n\nNão, espera: os testes falham.\n", NOT_A),
    ("结论：通过\n\n不，等一下——测试没有通过。\n", NOT_A),
    ("**判定:** 承認\n\nいいえ、やはりテストが失敗しています。\n", NOT_A),
    ("Urteil: genehmigt\n\nNein, doch nicht — die Tests schlagen fehl.\n", NOT_A),
]

# 3. Conditional approvals in any language, on the line, beside it or in a field of its block.
CLASS_3 = [
    ("Verdict: APPROVE (conditional on the load test)\n", F),
    ("**Ready to merge?** Yes — provided the flag defaults to off.\n", F),
    ("LGTM assuming the benchmarks hold.\n", F),
    ("¿Listo para merge? Sí, siempre que se agregue la prueba.\n", F),
    ("Veredicto: aprobado, una vez que pase la CI.\n", F),
    ("Veredito: aprovado, desde que os testes passem.\n", F),
    ("Pronto para merge? Sim, depois de corrigir o teste.\n", F),
    ("Décision : approuvé, à condition de corriger le test.\n", F),
    ("Verdict : approuvé une fois la CI au vert.\n", F),
    ("Urteil: genehmigt, wenn die Tests grün sind.\n", F),
    ("Urteil: freigegeben, vorausgesetzt die Migration läuft.\n", F),
    ("判定：承認（修正後にマージ）\n", F),
    ("判定: 承認。ただしテストを追加すること。\n", F),
    ("结论：通过，待补充单元测试后合并\n", F),
    ("结论：同意合并，前提是补齐文档\n", F),
    ("판정: 승인 (테스트 수정 후)\n", F),
    ("판정: 승인, 단 테스트 추가 필요\n", F),
    ("Вердикт: одобрено после исправления тестов\n", F),
    ("Verdetto: approvato, purché i test passino\n", F),
    ("Ready to merge? ✅ Yes*\n\n\\* once the nightly run is green\n", F),
    ("**Verdict:** APPROVE\n**Condition:** merge only after the DBA signs off.\n", F),
    ("APPROVED — contingent on legal review\n", F),
    ("Status: APPROVED\r\nMerge once QA signs off.\r\n", F),
    ("Verdict: APPROVE if CI passes 🙏\n", F),
    ("Verdict: **APPROVE** _(after rebasing onto main)_\n", F),
    ("**Verdict:** APPROVE\n**Notes:** good to go when the feature flag ships.\n", F),
]

# 4. Blocking content beside an approval: gate reasons, sections, counts, tagged items,
#    failing tests — before or after the verdict.
CLASS_4 = [
    ("gate: PASS\nreason: pending fix of the SQL injection in login.py\n", F),
    (
        "schema: 1\nstory: '2.1'\ngate: PASS\nstatus_reason: 'All ACs met; pending fix for the "
        "XSS in the profile page.'\nreviewer: Quinn\n",
        F,
    ),
    ("gate: PASS\nstatus_reason: 'Waiting on a fix for the token refresh race.'\n", F),
    ("gate: PASS\nnotes: blocked by the flaky integration test\n", F),
    ("Verdict: APPROVE\n\n### 🔴 Critical\n1. Secrets are logged in `auth.py:40`\n", F),
    ("Verdict: APPROVE\n\n**Blockers**\n- The migration is irreversible\n", F),
    ("Verdict: APPROVE\n\n| Severity | Count |\n|---|---|\n| Critical | 1 |\n", F),
    ("Ready to merge? Yes\n\n- [ ] **BLOCKER:** the rollback script is missing\n", F),
    ("Ready to merge? Yes\n\nThis must be addressed before release: the API key is in git.\n", F),
    ("结论：通过\n\n### 严重问题\n- SQL 注入\n", F),
    ("判定: 承認\n\n### ブロッカー\n- トークンがログに出力される\n", F),
    ("Veredicto: aprobado\n\n### Bloqueantes\n- La migración borra datos\n", F),
    ("Verdict: APPROVE\n\nThe tests fail on CI (3 failures in `test_auth.py`).\n", F),
    ("Verdict: APPROVE\n\nCI is red: `test_login` fails.\n", F),
    ("LGTM\n\nP0: data loss when the queue restarts.\n", F),
    ("**Status:** APPROVED\n**Open issues:** 2 critical\n", F),
    (
        "gate: PASS\ntop_issues:\n  - id: SEC-001\n    severity: critical\n"
        "    finding: 'Hard-coded secret'\n",
        F,
    ),
    ("### Critical\n- the token leaks into logs\n\n" + _FILLER + "\n**Ready to merge?** Yes\n", F),
    ("\ufeffVerdict: APPROVE\r\n\r\n### Critical\r\n- auth bypass\r\n", F),
    ("Verdict: APPROVE\n\n> note\n\nThe integration tests are failing on this branch.\n", F),
    ("gate: PASS\nstatus_reason: >\n  All checks green, pending fix of the audit log.\n", F),
    ("**Verdict:** APPROVE\n**Reason:** approved pending the fix for the race in `pool.go`.\n", F),
    # the frontmatter and the verdict's section are its block too
    (
        "---\nstatus: clean\nreason: pending fix of the SQL injection\nfindings:\n  critical: 0\n"
        "---\n# Review\n\nNothing found.\n",
        F,
    ),
    ("### Verdict\nnotes: blocked by the security sign-off\n\n`APPROVE`.\n", NOT_A),
    ("## Verdict\n\nCondition: merge only after the DBA signs off.\n\n**APPROVE**\n", F),
]

# 5. Things that are not verdicts: examples introduced without a colon, comments, fences,
#    quotes, reported speech, other scopes, receipts, commands not run.
CLASS_5 = [
    ("Reply with a line such as\nVerdict: APPROVE\n{T}when you are done.\n", M),
    ("For example\nVerdict: APPROVE\n{T}", M),
    ("Answer like this\n\nReady to merge? Yes\n{T}", M),
    ("e.g.\n**Verdict:** APPROVE\n{T}", M),
    ("Your final line should look like\nVerdict: APPROVE\n{T}", M),
    ("Por ejemplo\nVeredicto: aprobado\n{T}", M),
    ("例如\n结论：通过\n{T}", M),
    ("例えば\n判定: 承認\n{T}", M),
    ("Par exemple\nVerdict : approuvé\n{T}", M),
    ("<!--\nReady to merge? Yes\n{T}-->\n", M),
    ("```\nVerdict: APPROVE\n{T}```\n", M),
    (
        "> **Ready to merge?** Yes\n\nQuoted from the previous reviewer; mine follows.\n"
        "<!--{T}-->\n",
        M,
    ),
    ("The author claims: Ready to merge? Yes. I have not checked.\n<!--{T}-->\n", M),
    ("Verdict for the previous PR (#41): APPROVE\n<!--{T}-->\n", M),
    ("ACK, got it — reviewing now.\n<!--{T}-->\n", M),
    ("TODO: `review submit --verdict pass`\n<!--{T}-->\n", M),
    ("Template\n\nVerdict: APPROVE\n{T}", M),
    ("Reply with\n**Ready to merge? Yes**\n{T}once you are done.\n", M),
    ("The reviewer might write something like\n\n    Verdict: APPROVE\n{T}", M),
    ("# Verdict: APPROVE — how to format the last line\n\nUse one line.\n<!--{T}-->\n", M),
    ("Verdict: APPROVE (for PR #41, not this one)\n<!--{T}-->\n", NOT_A),
    ("The PM said: Ready to merge? Yes\n\nI have not reviewed it yet.\n<!--{T}-->\n", M),
]

# 6. JSON: duplicate and unknown keys, wrong types, truncation, laundering by escapes.
_OK = '{"review_id": "{RID}", "verdict": "approve", "findings": []}'
CLASS_6 = [
    (
        '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [{"severity": '
        '"minor", "severity": "critical", "title": "x"}]}\n```\n',
        M,
    ),
    ('```json\n{"review_id": "{RID}", "verdict": "APPROVE", "findings": []}\n```\n', M),
    ('```json\n{"review_id": "{RID}", "verdict": "approved", "findings": []}\n```\n', M),
    ('```json\n{"review_id": "{RID}", "verdict": "approve", "findings": {}}\n```\n', M),
    ('```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [],}\n```\n', M),
    (
        '```jsonc\n{"review_id": "{RID}", // nonce\n "verdict": "approve", "findings": []}\n```\n',
        M,
    ),
    ("```json\n{'review_id': '{RID}', 'verdict': 'approve', 'findings': []}\n```\n", M),
    ('```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [{"sev', M),
    (
        'Verdict: APPROVE\n\n{"review_id": "{RID}", "verdict": "approve", "findings": '
        '[{"severity": "crit',
        M,
    ),
    (
        "```json\n"
        + _OK
        + "\n```\n\n```json\n"
        + _OK.replace("approve", "request_changes")
        + "\n```\n",
        NOT_A,
    ),
    ("Ready to merge? No\n\n```json\n" + _OK + "\n```\n", M),
    (
        '```json\n{"review_id": "{RID}", "verdict": "reject", "verd\\u0069ct": "approve", '
        '"findings": []}\n```\n',
        M,
    ),
    (
        '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [], "findings": '
        '[{"severity": "critical", "title": "leak"}]}\n```\n',
        M,
    ),
    (
        '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [{"severity": '
        '"minor", "title": "t", "line": 1e400}]}\n```\n',
        M,
    ),
    ('{"approved": true, "blocking_issues": "see the auth section"}\n', F),
    ('{"approved": true, "issues": [{"severity": "CRITICAL", "title": "leak"}]}\n', F),
    (
        "```json\n"
        + _OK
        + '\n```\n\n```json\n{"verdict": "reject", "deep": '
        + "[" * 5000
        + "]" * 5000
        + "}\n```\n",
        NOT_A,
    ),
    (
        '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [{"severity": '
        '"important", "title": "race in pool"}]}\n```\n',
        F,
    ),
    ("<!--\n```json\n" + _OK + "\n```\n-->\n", M),
    ("```json\n" + _OK + "\n```\n\nOn second thought the verdict is reject.\n", NOT_A),
]

# 7. The input window: cut inputs, fences opened before the cut, capped lines, unclosed
#    fences — an approval seen only in a cut or unfinished input never approves.
CLASS_7 = [
    ("x\n" * (_BIG // 2 + 10) + "Ready to merge? Yes\n", M),
    ("Ready to merge? No\n\n```\n" + "x\n" * (_BIG // 2) + "Ready to merge? Yes\n```\n", NOT_A),
    ("Ready to merge? No\n\n```text\n" + "y" * (_BIG + 5) + "\n```\nReady to merge? Yes\n", NOT_A),
    ("ab\r\n" * (_BIG // 4 + 10) + "Verdict: APPROVE\r\n", M),
    ("\ufeff" + "z\n" * (_BIG // 2 + 10) + "LGTM\n", M),
    (("```json\n" + _OK.replace("{RID}", RID) + "\n```\n") * (_BIG // 60), NOT_A),
    ("Verdict: APPROVE\n" * (_BIG // 17 + 10), M),
    ("审查结论：不通过\n\n" + "说明。\n" * (_BIG // 4 + 10) + "结论：通过\n", M),
    ("Ready to merge? Yes " + "a" * 3000 + " once CI is green\n", M),
    ("Verdict: APPROVE " + "b" * 2500 + "\n", M),
    ("Verdict: APPROVE\n\n```python\ndef f():\n    return 1\n", M),
    ("Ready to merge? Yes\n\n~~~\n" + "code\n" * 20, M),
    ("<!--\n" + "c\n" * (_BIG // 2 + 10) + "-->\nReady to merge? Yes\n", M),
    ("x" * (_BIG + 1) + "\nReady to merge? Yes\n", M),
]

# A second round, written after the mechanisms above were in place and run once before any
# further change (3 of its 40 first rows approved then; see docs/verdicts.md): new wording
# of every class. Expected: anything but approve.
ROUND_2 = [
    "**Ready to merge?** Soon.\n",
    "Ready to merge?\n\nAlmost — one test left.\n",
    "**Ready to merge?** ~~Yes~~ No\n",
    "Ready to merge? (yes)\n\nJust kidding, the build is broken.\n",
    "Ready to merge? Y e s\n",
    "¿Está listo para fusionar? Casi.\n",
    "Verdict: APPROVE\n\nActually — scratch that, the migration is wrong.\n",
    "LGTM 🚀\n\n---\n\nP.S. Not approving after all; the lock leaks.\n",
    "Ready to merge? Yes\n\nHmm. Nope, CI is red.\n",
    "**Verdict:** APPROVED\n\n> quote\n\nNo. I found a data race in `pool.go`.\n",
    "Veredicto: aprobado\n\nNo, espera: falta la migración.\n",
    "判定: 承認\n\nいや、テストが落ちています。\n",
    "결론: 승인\n\n아니요, 테스트가 실패합니다.\n",
    "Verdict : approuvé\n\nNon — les tests échouent.\n",
    "Verdict: APPROVE — assuming the flaky test is quarantined.\n",
    "LGTM, modulo the rename.\n",
    "Ready to merge? Yes, as long as the feature flag stays off.\n",
    "Verdict: approve. Merge after the freeze lifts on Monday.\n",
    "Veredicto: aprobado siempre y cuando se actualice la documentación.\n",
    "Urteil: genehmigt, falls die Migration rückwärtskompatibel ist.\n",
    "结论：通过，只要补充回滚脚本即可合并。\n",
    "판정: 승인, 단 마이그레이션 확인 후 병합\n",
    "gate: PASS\nstatus_reason: 'Blocked on the security sign-off.'\n",
    "gate: PASS\nrationale: the XSS must be fixed prior to release\n",
    "Verdict: APPROVE\n\n**Must-fix before merge:** the token is logged.\n",
    "Verdict: APPROVE\n\n| ID | Severity | Status |\n|---|---|---|\n| F1 | Blocker | open |\n",
    "Verdict: APPROVE\n\nTwo tests still fail on Windows.\n",
    "Ready to merge? Yes\n\n### Showstoppers\n- data loss on restart\n",
    "结论：通过\n\n阻塞问题：\n- 数据丢失\n",
    "Please answer using something like\n\nReady to merge? Yes\n{T}",
    "An approving review would read, for instance\nVerdict: APPROVE\n{T}",
    "Typical output:\n\nVerdict: APPROVE\n{T}",
    "As shown below\n\n**Ready to merge?** Yes\n{T}",
    "Bob wrote: Verdict: APPROVE\n<!--{T}-->\n",
    "Verdict (last week's PR): APPROVE\n<!--{T}-->\n",
    "ACK.\n\nWill review this afternoon.\n",
    '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [], '
    '"review_id": "r"}\n```\n',
    '```json\n{"review_id": "{RID}", "verdict": "approve", "findings": [{"severity": '
    '"blocker", "title": "x"}]}\n```\n',
    'Summary: {"approved": true, "blockers": ["token leak"]}\n',
    "```\n" + "y\n" * 600_000 + "```\nReady to merge? Yes\n",
    # Found while writing the above: an approving trailer that is not the verdict (followed
    # by more text) still reports its critical finding.
    'Ready to merge? Yes\n\n```json\n{"review_id": "r", "verdict": "approve", "findings": '
    '[{"severity": "critical", "title": "token leak"}]}\n```\n\nThanks!\n',
]

# Classes that real reviews from unseen repositories showed (written anew here: third-party
# text is never committed). Each row is (text, expected decision).
REAL_CLASSES = [
    ("Verdict：Approve（发布门禁除外）\n", F),
    ("判定: 承認（性能試験を除き）\n", F),
    ('gate: "CONCERNS" # PASS|CONCERNS|FAIL|WAIVED\nstatus_reason: "one low issue"\n', F),
    ("gate: PASS # once the nightly run is green\n", F),
    ("Veredicto: BLOQUEAR el release v0.2.0.\n", R),
    ("**Verdict:** Solid work overall. But it needs a cleanup sprint first.\n", F),
    ("**Verdict** : 🟡 Prometteur mais nécessite du travail immédiat\n", F),
    ("| Check | Status |\n|---|---|\n| lint | PASS |\n| types | FAIL |\n", F),
    ("---\nstatus: has-findings\nfindings:\n  critical: 2\n---\n# Review\n", F),
    ("Verdict: APPROVE\n\nOpen issues: 2 critical, 3 minor.\n", F),
    (
        "Verdict: APPROVE\n\n### Follow-ups (Advisory, Non-Blocking)\n"
        "- The token leak must be fixed before release.\n",
        F,
    ),
]

# Near misses: these are approvals and must stay approvals.
NEAR_MISSES = [
    "APPROVED with 3 issues (0 blocking)\n\n#### Minor\n- a typo in README\n- rename `x`\n"
    "- add a docstring\n",
    "Verdict: APPROVE\n\nNo issues found.\n",
    "Verdict: APPROVE\n\nNo blocking findings.\n",
    "Verdict: APPROVE\n\nNo changes needed.\n",
    "Ready to merge? Yes. I had concerns before, but the second commit resolved all of them.\n",
    "\ufeffVerdict: APPROVE\r\n",
    "Verdict: APPROVE — 0 blocking, 2 nits\n",
    "## Round 1\n\nReady to merge? No — the lock leaks.\n\n## Round 2 (re-review)\n\n"
    "Ready to merge? Yes — the lock is released in `finally`.\n",
    "Ready to merge? No\n\n## Re-review after fixes\n\n**Ready to merge?** Yes\n",
    "Verdict: APPROVE\n\n### Critical\n- ~~Token logged~~ fixed in abc123\n",
    "Verdict: APPROVE\n\n### Critical\nNone.\n\n### Important\nNone.\n\n### Minor\n- rename `x`\n",
    "**Verdict:** ✅ APPROVE 🎉\n",
    "判定: 承認（指摘なし）\n",
    "结论：通过（无阻塞问题）\n",
    "Veredicto: aprobado — sin problemas bloqueantes.\n",
    "Verdict : approuvé — aucun problème bloquant.\n",
    "Urteil: genehmigt — keine blockierenden Punkte.\n",
    "Ready to merge? Yes\n\nThe new test fails without the fix and passes with it.\n",
    "Ready to merge? Yes\n\n**Breaking changes?**\nNo.\n",
    "gate: PASS\nstatus_reason: 'All acceptance criteria met; no issues found.'\n",
    "gate: PASS\nstatus_reason: All ACs met after the fix in round 2 was verified.\n",
    "Verdict: APPROVE\n\nI previously requested changes; all of them were addressed.\n",
    "**Ready to merge?** Yes\n\n| Severity | Count |\n|---|---|\n| Critical | 0 |\n"
    "| Important | 0 |\n| Minor | 3 |\n",
    "Status: ✅ APPROVED\n\n> Round 1 note: do not merge until X. (X is now done.)\n",
    "Ready to merge? Yes\n\nFor example, `parse('')` now returns an empty list.\n",
    "**Ready to merge?** Yes\n\nNo regressions; no new warnings.\n",
    # Just inside both windows: the characters' (`MAX_INPUT_CHARS`) and the lines'
    # (`MAX_INPUT_LINES`).
    ("x" * (_BIG // MAX_INPUT_LINES - 1) + "\n") * (MAX_INPUT_LINES - 200) + "LGTM\n",
    "x\n" * (MAX_INPUT_LINES - 200) + "LGTM\n",
    "LGTM 👍\n\nNothing else to add.\n",
    # round 2
    "Verdict: APPROVE\n\nNo further comments.\n",
    "Ready to merge? Yes\n\n**Any security concerns?**\nNo.\n",
    "Verdict: APPROVE\n\nNo regressions, no blockers, no changes requested.\n",
    "LGTM\n\n### Follow-ups (non-blocking)\n- we should rename `x` later\n",
    "Verdict: APPROVE\n\nThe regression test fails on the old code and passes now.\n",
    "gate: PASS\nstatus_reason: 'All ACs met; issues from round 1 were fixed.'\n",
    "判定: 承認\n\n指摘事項はありません。\n",
    "结论：通过\n\n无阻塞问题，无需修改。\n",
    "Veredicto: aprobado\n\nSin comentarios adicionales.\n",
    "**Ready to merge?** Yes\n\nFor example, `f('')` returns `[]` now, which is what we want.\n",
    '## Re-review\n\nThe earlier "No" is superseded.\n\n**Ready to merge?** Yes\n',
    "Verdict: APPROVE\n\nNote: tests were failing before the rebase; all green now.\n",
    # real classes
    "gate: PASS # final\n",
    "Verdict: APPROVE\n\n- No blocking issues or requested changes\n",
    "gate: PASS\nrisk_summary:\n  recommendations:\n    must_fix: []\n    monitor:\n"
    "      - 'Watch the cache hit rate'\n",
    "Verdict: APPROVE\n\n### Follow-ups (Advisory, Non-Blocking)\n"
    "- Phase 2 must fix this before wiring the validators into HTTP dispatch.\n",
    "---\nstatus: passed\nscore: 3/3\n---\n# Verification\n\nAll 9 critical files exist on disk.\n",
    "APPROVED — 0 blocking\n",
]

TABLES = {
    "1-question": CLASS_1,
    "2-withdrawn": CLASS_2,
    "3-conditional": CLASS_3,
    "4-blocking": CLASS_4,
    "5-not-verdicts": CLASS_5,
    "6-json": CLASS_6,
    "7-window": CLASS_7,
    "round-2": [(text, NOT_A) for text in ROUND_2],
    "real-classes": REAL_CLASSES,
}


def plain(text: str) -> str:
    """The row as written (no trailer; `{RID}` is the nonce)."""
    return text.replace("{T}", "").replace("{RID}", RID)


def with_trailer(name: str, text: str) -> str:
    """The row with an approving trailer carrying the nonce, where the table says."""
    if name == "6-json" or (name == "round-2" and "```json" in text):
        return plain(text)
    if "{T}" in text:
        return text.replace("{T}", trailer()).replace("{RID}", RID)
    return plain(text).rstrip("\n") + "\n" + trailer()


HOSTILE = [
    pytest.param(name, text, expected, id=f"{name}-{i}")
    for name, rows in TABLES.items()
    for i, (text, expected) in enumerate(rows)
]


@pytest.mark.parametrize(("name", "text", "expected"), HOSTILE)
def test_hostile_variant(name: str, text: str, expected: Decision | None) -> None:
    verdict = parse_verdict(plain(text))
    if expected is None:
        assert verdict.decision is not A, (verdict.reasons, verdict.warnings)
    else:
        assert verdict.decision is expected, (verdict.reasons, verdict.warnings)


@pytest.mark.parametrize(("name", "text", "expected"), HOSTILE)
def test_hostile_variant_with_a_review_id(name: str, text: str, expected: Decision | None) -> None:
    del expected
    verdict = parse_verdict(with_trailer(name, text), review_id=RID)
    assert verdict.decision is not A, (verdict.reasons, verdict.warnings)


@pytest.mark.parametrize("text", NEAR_MISSES, ids=[f"near-{i}" for i in range(len(NEAR_MISSES))])
def test_near_miss_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, (verdict.reasons, verdict.warnings)
    with_nonce = parse_verdict(text.rstrip("\n") + "\n" + trailer(), review_id=RID)
    assert with_nonce.decision is A, (with_nonce.reasons, with_nonce.warnings)


def test_every_class_has_at_least_twelve_new_variants() -> None:
    for name, rows in TABLES.items():
        assert len(rows) >= 12 or name == "real-classes", name
    assert len(NEAR_MISSES) >= 12
