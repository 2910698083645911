"""Issue 23, session 20: the adverbs of 'still' / 'not yet' in the other read languages tell
something expected and not done after an approval, as English 'not … yet' does. Fresh
wording (not the red-team texts), with genuine twins in the same languages.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

STILL = [
    "**Veredicto:** Aprobado\n\nEl índice de `pedidos` aún está sin crear en producción.\n",
    "**Verdict :** APPROUVÉ\n\nLa revue de sécurité n'est pas encore terminée.\n",
    "**Veredito:** Aprovado\n\nOs testes de carga ainda estão rodando.\n",
    "**Verdetto:** Approvato\n\nLa migrazione inversa manca ancora.\n",
    "**Вердикт:** Одобрено\n\nМиграция ещё не проверена на копии продакшена.\n",
    "**结论：** 通过\n\n回滚脚本尚未提交。\n",
]
TWINS = [
    "**Veredicto:** Aprobado\n\nEl índice de `pedidos` está creado y cubierto por pruebas.\n",
    "**Verdict :** APPROUVÉ\n\nLes tests couvrent tous les cas limites.\n",
]


@pytest.mark.parametrize("text", STILL)
def test_still_to_come_in_another_language_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", TWINS)
def test_a_statement_in_another_language_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
