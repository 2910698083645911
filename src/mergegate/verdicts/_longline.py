"""Reading a line longer than the line cap whole, in bounded pieces.

Every reader works on the first `MAX_LINE_CHARS` characters of a line, which keeps the parse
linear. A real review writes longer lines — a table row of test results, a paragraph of
explanation — and an approval must not stand on a line whose end nobody read. Such a line is
cut into pieces where a reader would pause (sentence ends, table cells); each piece must be
no longer than the cap (a longer one stays unread: fails closed) and say nothing a verdict
could hang on: no verdict word opening it other than a yes, no sentence that withdraws,
contradicts, conditions or blocks an approval (`_answer.sentence_problem`, read as strictly
as text after an approval, wherever the line stands), no blocking content
(`_blocking.text_blocking`), no hidden characters. Linear: each character is in one piece.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._answer import sentence_problem, strip_decor
from mergegate.verdicts._blocking import text_blocking
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import MAX_LINE_CHARS, hidden_characters, norm
from mergegate.verdicts._vocab import clean_value, first_hit

__all__ = ["unread_piece"]

_PAUSE = compile_lazily(r"(?<=[.!?。！？;；])\s+|\|")


def unread_piece(whole: str) -> str | None:
    """Why the long line `whole` cannot be read whole (the first piece that refuses, and
    why), or None when every piece is read and none of them can carry a decision."""
    for piece in _PAUSE.split(whole):
        if len(piece) > MAX_LINE_CHARS:
            return f"a piece of {len(piece):,} characters without a sentence end or cell"
        if not piece.strip():
            continue
        problem = _problem(piece)
        if problem is not None:
            return f"'{piece.strip()[:60]}': {problem}"
    return None


def _problem(piece: str) -> str | None:
    hidden = hidden_characters(piece)
    if hidden:
        return f"hides characters ({', '.join(hidden[:2])})"
    text = clean_value(norm(piece))
    hit = first_hit(strip_decor(text), at_start=True)
    if hit is not None and hit.decision is not None and hit.decision is not Decision.APPROVE:
        return f"says '{hit.phrase}'"
    said = sentence_problem(text)
    if said is not None:
        return said[1]
    return text_blocking(piece)
