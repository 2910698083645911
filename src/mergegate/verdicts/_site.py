"""A verdict site — one place where a document states a verdict — and the line helpers the
grammars share (`_grammar` for labelled lines, questions and tables; `_bare` for lines that
are themselves a verdict)."""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.verdicts._answer import Answer
from mergegate.verdicts._lines import Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind, clean_value

__all__ = [
    "LIST_MARK",
    "Site",
    "drop_parens",
    "make_site",
    "strip_label",
    "without_list_mark",
]

LIST_MARK = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]")


@dataclass(frozen=True, slots=True)
class Site:
    """One place where the document states a verdict, and what it answers there."""

    index: int
    decision: Decision
    dialect: str
    reason: str
    kind: LabelKind | None = None
    local: bool = False
    """About something other than the change (an alternative, an option, a finding)."""
    part: bool = False
    """About one part of the change (a file, a track, a dimension): a no counts, a yes alone
    does not."""
    lookalike: bool = False
    frontmatter: bool = False
    clean: bool = False
    """Approves with 'clean': only where finding counts confirm it."""
    capped: bool = False
    answer_below: bool = False
    """The site is a label or question standing alone; its answer is on the next line."""
    label: str = ""
    """The field's label as read ('status', '状态'), for a `label: value` site; '' otherwise."""


def make_site(
    index: int,
    line: Line,
    answer: Answer,
    *,
    dialect: str,
    where: str,
    kind: LabelKind | None,
    label: str = "",
) -> Site:
    reason = f"{where} says '{answer.phrase}'" if answer.phrase else f"{where} has no answer"
    if answer.why:
        reason += f" ({answer.why})"
    return Site(
        index=index,
        decision=answer.decision,
        dialect=dialect,
        reason=reason,
        kind=kind,
        local=line.local,
        part=line.part,
        lookalike=has_lookalike(line.raw),
        clean=answer.clean,
        capped=line.capped,
        label=label,
    )


def without_list_mark(text: str) -> str:
    mark = LIST_MARK.match(text)
    return text[mark.end() :] if mark is not None else text


def strip_label(text: str) -> str:
    """Drop leading list markers, numbering, emoji and punctuation: '- ✅ 1. verdict'."""
    i = 0
    while i < len(text) and not text[i].isalpha():
        i += 1
    return clean_value(text[i:]).strip()


def drop_parens(text: str) -> str:
    """'merge-ready (m0 / debug)' → 'merge-ready'. Bounded: one pass, no nesting."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return " ".join("".join(out).split())
