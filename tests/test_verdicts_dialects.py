"""Table tests: one table per dialect. Each row is (text, expected decision)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import DIALECTS, parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED

SUPERPOWERS = [
    ("### Assessment\n\n**Ready to merge? Yes**\n\n**Reasoning:** fine.\n", A),
    ("**Ready to merge?** Yes\n", A),
    ("Ready to merge: yes\n", A),
    ("**Ready to merge?**\n\nYes\n", A),
    ("## Ready to merge?\nNo\n", R),
    ("**Ready to merge? No**\n", R),
    ("**Ready to merge? With fixes**\n", F),
    ("**Ready to merge: With fixes**\n\nAPPROVED WITH MINOR SUGGESTIONS.\n", F),
    ("**Ready to merge?** **No** — with fixes.\n", R),
    ("**Ready to merge?** Yes — after the warning above is addressed.\n", F),
]
VERDICT_LINE = [
    ("Verdict: APPROVE\n", A),
    ("**Verdict:** REQUEST_CHANGES\n", F),
    ("Verdict: reject_for_revision\n", R),
    ("## Verdict: PASS\n", A),
    ("## Verdict\n\n`APPROVE`. The plan can enter implementation.\n", A),
    ("**Verdict:** BLOCK\n\nBlocking findings follow.\n", R),
    ("**Verdict: overall NOT GO.** Self-test PASS is not GO.\n", R),
    ("**Verdict:** Merge\n\nLong reasoning.\n", A),
    ("Verdict: NO-GO\n", R),
    ("**Verdict:** Conditional NACK — gaps remain.\n", F),
    ("Decision: **APPROVED - PROCEED TO NEXT PHASE**\n", A),
    ("**Overall conclusion:** Request changes before merge.\n", F),
]
STATUS_LINE = [
    ("**Status:** ✅ APPROVED - solid implementation\n", A),
    ("**Status:** issues_found\n", F),
    ("**Result: FAIL**\n", R),
    ("**Date:** 2026-03-28 | **Result: ZERO FINDINGS**\n", A),
    ("Status: completed\n", M),
    ("Status: resolved\n", M),
    ("**Gate status:** ✅ 144 tests pass · ✅ ruff clean\n", M),
    ("Result: `36 passed, 1 warning`\n", M),
]
FRONTMATTER = [
    ("---\nstatus: clean\nfindings:\n  critical: 0\n---\n# Review\n", A),
    ("---\nstatus: passed\ncritical: 2\n---\n# Review\n", F),
    ("---\nstatus: issues_found\n---\nbody\n", F),
    ("---\nstatus: completed\ngates:\n  build: pass\n---\nbody\n", M),
]
MEGAZORD = [
    ("## REVIEW COMPLETE\n\n**Task:** 3-1 Task 2\n**Status:** passed\n**Critical:** 0\n", A),
    ("## REVIEW COMPLETE\n\n**Task:** 3-1 Task 2\n**Status:** passed\n**Critical:** 1\n", F),
    ("## REVIEW COMPLETE\n\n**Status:** issues_found\n**Critical:** 2\n", F),
]
JSON_VERDICTS = [
    ('{"summary": {"overall_assessment": "approve_with_nits"}}\n', A),
    ('{"approved": false, "reason": "tests fail"}\n', R),
    ('{"review_id": "r-1", "verdict": "request_changes"}\n', F),
    # One contract (issue 9 class 6): a trailer without review_id fails `handoff check`, so it
    # is no trailer here either (it used to count).
    ('{"verdict": "approve"}\n', M),
    ('[{"file": "a.py", "status": "pass"}]\n', M),
]
BMAD = [
    ("gate: PASS\nstatus_reason: all good\n", A),
    ("gate: CONCERNS\nstatus_reason: coverage low\n", F),
    ("gate: FAIL\n", R),
    ("gate: WAIVED\n", F),
    ("gate: CONCERNS\nnfr:\n  security:\n    status: PASS\n", F),
]
LGTM = [
    ("LGTM\n", A),
    ("LGTM with notes. Ship it.\n", A),
    ("NACK -- the symlink escape must be fixed first.\n", R),
    ("Ack.\n", A),
]
CLI_FLAG = [
    ("Body.\n\nssf review --report r.md --verdict pass\n", A),
    ("**Ready to merge?** No\n\nssf review --verdict fail\n", R),
]
I18N = [
    ("## Verdict\n\n**merge-ready（M0 / 本地）：是**\n", A),
    ("**Status:** 评审完成，待修复 P0 后可合并\n", F),
    ("判定: **CI greenを条件とするGO**\n", F),
    ("结论：通过\n", A),
    ("结论：不通过\n", R),
    ("结论：需修改\n", F),
    ("判定: 承認\n", A),
    ("判定: 却下\n", R),
    ("判定: マージ可\n", A),
    ("판정: 승인\n", A),
    ("판정: 거절\n", R),
    ("병합 가능: 예\n", A),
    ("Veredicto: aprobado\n", A),
    ("Veredicto: rechazado\n", R),
    ("Veredicto: aprobado después de corregir los tests\n", F),
    ("Veredito: aprovado\n", A),
    ("Veredito: reprovado\n", R),
    ("Veredito: aprovado após os ajustes\n", F),
    ("Décision : approuvé\n", A),
    ("Décision : rejeté\n", R),
    ("Décision : approuvé après correction\n", F),
]

TABLES = {
    "superpowers": SUPERPOWERS,
    "verdict-line": VERDICT_LINE,
    "status-line": STATUS_LINE,
    "frontmatter": FRONTMATTER,
    "megazord": MEGAZORD,
    "json": JSON_VERDICTS,
    "bmad": BMAD,
    "lgtm": LGTM,
    "cli-flag": CLI_FLAG,
    "i18n": I18N,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(t, e, id=f"{name}-{i}")
        for name, rows in TABLES.items()
        for i, (t, e) in enumerate(rows)
    ],
)
def test_dialect_table(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, (verdict.reasons, verdict.warnings)


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        ("superpowers", "**Ready to merge? Yes**\n"),
        ("verdict-line", "Verdict: APPROVE\n"),
        ("status-line", "**Status:** APPROVED\n"),
        ("frontmatter", "---\nverdict: approve\nfindings:\n  critical: 0\n---\nbody\n"),
        ("gsd", "---\nstatus: clean\nfindings:\n  critical: 0\n---\nbody\n"),
        ("megazord", "## REVIEW COMPLETE\n\n**Status:** passed\n**Critical:** 0\n"),
        ("json", '{"review_id": "r-1", "verdict": "approve"}'),
        ("bmad", "gate: PASS\n"),
        ("lgtm", "LGTM\n"),
        ("cli-flag", "tool --verdict pass\n"),
        ("verdict-section", "## Verdict\n\nRound 3 is **passed**.\n"),
    ],
)
def test_each_dialect_is_named_and_restrictable(dialect: str, text: str) -> None:
    assert dialect in DIALECTS
    verdict = parse_verdict(text, dialect=dialect)
    assert verdict.decision is A
    assert verdict.dialect == dialect
    others = [d for d in DIALECTS if d != dialect]
    assert all(not parse_verdict(text, dialect=d).approved or d == dialect for d in others[:1])


def test_restricting_the_dialect_hides_other_grammars() -> None:
    text = "**Ready to merge? Yes**\n"
    assert parse_verdict(text, dialect="bmad").decision is M
    assert parse_verdict(text, dialect="superpowers").decision is A


def test_unknown_dialect_is_a_usage_error() -> None:
    from mergegate.errors import UsageError

    with pytest.raises(UsageError):
        parse_verdict("LGTM", dialect="nope")


def test_trailer_finding_ids_are_kept_as_bounded_refs_not_identity() -> None:
    long_id = "x" * 500
    text = (
        "Ready to merge? With fixes\n\n```json\n"
        '{"review_id": "r-1", "verdict": "request_changes", "findings": ['
        '{"id": "missing-test", "severity": "important", "title": "Missing test"},'
        f'{{"id": "{long_id}", "severity": "minor", "title": "Nit"}},'
        '{"severity": "minor", "title": "No id"}]}\n```\n'
    )
    findings = parse_verdict(text).findings
    assert [f.ref for f in findings] == ["missing-test", "x" * 64, None]
    assert all(f.id.startswith("F-") for f in findings)


@pytest.mark.parametrize("line", [0, -3])
def test_a_trailer_line_below_one_is_invalid_in_parse_and_handoff_alike(line: int) -> None:
    """One contract, one strictness (issue 9 class 6, issue 10 item 5): the trailer used to
    take `line: 0` as 'no line' while `handoff check --schema review-verdict` refused it. Lines
    are 1-based or null; the local model's grammar can no longer write 0."""
    from mergegate.handoff import extract

    body = (
        '{"review_id": "r-1", "verdict": "request_changes", "findings": ['
        f'{{"severity": "important", "title": "A", "file": "a.py", "line": {line}}}]}}'
    )
    text = f"Ready to merge? With fixes\n\n```json\n{body}\n```\n"
    assert parse_verdict(text, review_id="r-1").findings == ()  # the trailer is not read
    approving = text.replace("With fixes", "Yes").replace("request_changes", "approve")
    approving = approving.replace("important", "minor")
    verdict = parse_verdict(approving, review_id="r-1")
    assert verdict.decision is M
    assert any("line" in r for r in verdict.reasons)
    assert not extract(text, "review-verdict").ok
    fine = text.replace(f'"line": {line}', '"line": 7')
    assert [f.line for f in parse_verdict(fine, review_id="r-1").findings] == [7]
    assert extract(fine, "review-verdict").ok
