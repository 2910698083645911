"""An approval narrowed with 'only' in the other languages reviewers write (issue 23,
partial scopes): 'APPROVED – nur die Dokumentation', '承認（フロントエンド部分のみ）',
'通过，仅限 API 部分', 'одобрено (только документация)' are not approvals of the whole change
(`malformed`), as 'APPROVED (docs only)' is not. 'Only' that counts what was found ('仅有一个
小建议', '軽微な指摘のみ', 'nur Kleinigkeiten') narrows nothing."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_BODY = "## Summary\n\nAdds retry with backoff to the webhook sender.\n\n"


@pytest.mark.parametrize(
    "verdict",
    [
        "**Verdict:** APPROVED – nur die Dokumentation",
        "**Verdict :** approuvé, uniquement pour la partie frontend",
        "**Veredicto:** aprobado, solo para la parte de documentación",
        "**Veredito:** aprovado, apenas para a parte de docs",
        "**Esito:** approvato, limitatamente alla parte di documentazione",
        "**Вердикт:** одобрено (только документация)",
        "**Решение:** Одобрено само за фронтенда.",
        "**Verdict:** APPROVED untuk bagian frontend saja.",
        "**判定:** 承認（フロントエンド部分のみ）",
        "**结论:** 通过，仅限 API 部分",
        "**结论:** 通过（仅审查了文档部分）",
        "**판정:** 승인 (문서 변경에 한함)",
    ],
)
def test_an_approval_narrowed_with_only_in_another_language_is_partial(verdict: str) -> None:
    result = parse_verdict(_BODY + verdict + "\n")
    assert result.decision is Decision.MALFORMED, result.reasons
    assert "part of the change" in result.reasons[0]


@pytest.mark.parametrize(
    "verdict",
    [
        "**结论:** 通过，仅有一个小建议，不阻塞合并。",
        "**判定:** 承認（軽微な指摘のみ）",
        "**Verdict:** APPROVED – nur Kleinigkeiten angemerkt.",
        "**Вердикт:** одобрено.",
    ],
)
def test_only_that_counts_what_was_found_narrows_nothing(verdict: str) -> None:
    result = parse_verdict(_BODY + verdict + "\n")
    assert result.decision is Decision.APPROVE, result.reasons


# 'Ready for Done' is BMAD's story status after QA (the whole story, not a part of it), and a
# spaced dash ends the scope as a comma does; a part named before the dash still narrows it.
@pytest.mark.parametrize(
    ("answer", "approves"),
    [
        ("Ready for Done - all acceptance criteria met", True),
        ("✓ Ready for Done", True),
        ("Approved for completion — nothing left open", True),
        ("Ready for Phase 2 - the API part", False),
        ("Approve for the docs part - the rest is pending", False),
        ("Ready for the frontend — backend later", False),
    ],
)
def test_a_whole_scope_before_a_spaced_dash(answer: str, approves: bool) -> None:
    verdict = parse_verdict(f"## Verdict\n\n{answer}\n")
    assert (verdict.decision is Decision.APPROVE) is approves, verdict.reasons
