"""Work asked for first, a merge held, or a condition, written in the other read languages
after an approval (issue 23): 'Approvato. Prima però va corretta la migrazione.', 'Одобрено.
Сначала исправьте миграцию.', '通过。\\n\\n暂缓合并：…', '承認。マージは保留してください。'.
The clause grammar is English, so these are read by their words; the same words in a
description ('retorna antes de tentar ler', 'prima della chiamata') are not a hold."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HOLDS = [
    "Prima però va corretta la migrazione.",
    "Eso sí, antes hay que arreglar la migración.",
    "Antes disso, corrijam a migração.",
    "Vorher bitte die Migration reparieren.",
    "Il faut d'abord corriger la migration.",
    "Maar eerst moet de migratie worden teruggedraaid.",
    "Сначала исправьте миграцию.",
    "暂缓合并：迁移脚本会删除 `users.email` 列。",
    "マージは保留してください（移行スクリプトに問題あり）。",
    "단, 마이그레이션 수정 전까지 머지 보류.",
    "다만 먼저 마이그레이션을 되돌려야 합니다.",
    "Approvato, a condizione che la migrazione venga annullata.",
]


@pytest.mark.parametrize("hold", _HOLDS)
def test_a_hold_on_the_verdicts_line_refuses(hold: str) -> None:
    verdict = parse_verdict(f"## Verdict\n\n**APPROVED.** {hold}\n")
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("hold", _HOLDS)
def test_a_hold_below_the_verdict_refuses(hold: str) -> None:
    verdict = parse_verdict(f"## Verdict\n\nApproved.\n\n{hold}\n")
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "reason",
    [
        "A reentrega terminal retorna antes de tentar ler o payload já apagado.",
        "Il controllo avviene prima della chiamata al database.",
        "Der Cache wird zuerst geleert, dann neu geladen.",
        "首先，测试全部通过；其次，文档已对齐。",
    ],
)
def test_the_same_words_in_a_description_leave_the_approval(reason: str) -> None:
    verdict = parse_verdict(f"## Verdict\n\nApproved.\n\n{reason}\n")
    assert verdict.decision is Decision.APPROVE, verdict.reasons
