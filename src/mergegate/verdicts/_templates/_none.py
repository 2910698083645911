"""An item that says "nothing here": the content of an empty template section.

An allow-list, read whole: a none-word in one of the languages reviewers write ("None.",
"N/A", "- None found", "无", "なし", "Ninguno", "Keine" …), optionally followed by a closed
qualifier ("found", "identified", "remaining") and a closed scope ("in the scoped fix diff",
"within this re-review", "for Phase 1"). Anything else in the item — a reason, a "but", a
finding — makes the section non-empty.
"""

from __future__ import annotations

import re

from mergegate.verdicts._patterns import compile_lazily

__all__ = ["says_none"]

_NONE_WORD = (
    r"(?:none|n/a|na|nil|nothing|no (?:issues?|findings?|problems?|concerns?)|"
    r"nenhum|nenhuma|ninguno|ninguna|nada|aucun|aucune|rien|keine|keiner|nichts|нет|"
    r"无|无|没有|无问题|未发现|未发现问题|没有发现问题|なし|特になし|없음|-|—)"
)
_QUALIFIER = r"(?:found|identified|reported|remaining|noted|observed|detected|spotted)"
_SCOPE_WORD = (
    r"(?:this|these|the|scoped|scope|fix|fixes|diff|change|changes|review|re-review|round|pr|"
    r"patch|bounded|task|slice|commit|branch|pass|phase|plan|milestone|sprint|story|"
    # the unit's number ('for Phase 1', 'in plan 02-03')
    r"\d{1,4}(?:[.-]\d{1,4}){0,2})"
)
# A bold label before the none ('**Summary:** none', '**Blockers**: None found.').
_LABEL = r"(?:(?:\*\*|__)[^*_\n]{1,30}?(?:[:：](?:\*\*|__)|(?:\*\*|__)[:：])[ \t]*)"
_NONE_ITEM = compile_lazily(
    rf"(?:(?:[-*+]|\d{{1,3}}[.)])[ \t]+)?{_LABEL}?[*_`( \t]*{_NONE_WORD}[*_`) \t]*"
    rf"(?:[ \t]+{_QUALIFIER})?"
    rf"(?:[ \t]+(?:in|within|for|at)(?:[ \t]+{_SCOPE_WORD}){{1,5}})?"
    r"[ \t]*[.。!]?[*_`) \t]*",
    re.IGNORECASE,
)


def says_none(text: str) -> bool:
    """True when `text` (one line, any case) is only a "nothing here" item."""
    return len(text) <= 120 and _NONE_ITEM.fullmatch(text.strip()) is not None
