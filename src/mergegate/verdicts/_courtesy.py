"""A courtesy line: short prose beside a verdict that cannot carry a decision.

Reviewers open with a thank-you (`Thanks for the clean PR!`), a word of praise (`Looks
good.`, `Nice work.`) or a one-line account of what they reviewed (`Reviewed the retry change
in http/client.py.`) and then give the verdict. Prose above a verdict outside any section is
otherwise unaccounted (`_accounting`): it stands where a qualification of the verdict stands.
A courtesy line is accounted only when it has one of those closed openings, is one short
clause, and says nothing any reader here takes for a decision: no negation, no condition,
contrast, obligation or hedge (read as strictly as the answer's own clause), no word that
limits what was reviewed (`only`, `so far`, `first`), no verdict other than a yes, and
nothing that withdraws, contradicts or blocks. Everything else stays unaccounted.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts import _signals as sig
from mergegate.verdicts._answer import sentence_problem, strip_decor
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import CODE_SPAN, norm
from mergegate.verdicts._vocab import clean_value, hits

__all__ = ["is_courtesy"]

_MAX_WORDS = 16
# Praise is the whole line ('Looks good to me!', 'Nice work.'): 'Nice try.' is not praise.
_PRAISE = compile_lazily(
    r"(?:looks? (?:good|great|fine|solid|clean)|nice(?: work| job)?|(?:great|good|solid) "
    r"(?:work|job)|well done)(?: to me)?(?: overall)?[ \t.!👍🎉✅🚀]*"
)
# A thank-you or an account of what was reviewed opens the line; the rest is read.
_OPENING = compile_lazily(
    r"(?:thanks|thank you|many thanks|thx|merci|danke|gracias|obrigad[oa]|grazie|"
    r"(?:i(?:'ve| have)? )?reviewed|谢谢|感谢|ありがとう|감사)(?![^\W\d_])"
)
# Negation, and words that limit what was reviewed or when: the review is partial, or a
# decision is still to come.
_LIMITS = compile_lazily(
    r"(?<![^\W\d_])(?:no|not|never|nothing|none|nor|without|cannot|only|just|partial|"
    r"partially|partly|some|half|part|parts|portion|first|so far|yet|for now|still|except|"
    r"apart|besides|other than|aside)(?![^\W\d_])|n't|不|没|未|ない|않|안 "
)
# One clause that reports nothing: after the opening, no second clause and no verb that
# tells what the reviewer found ('Reviewed the change and found a race', '…, which drops X').
_SECOND_CLAUSE = compile_lazily(
    r"[,;:—–()]| - |(?<![^\W\d_])(?:and|or|but|which|that|who|while|whereas|found|find|"
    r"noticed|saw|see|spotted|there|is|are|was|were|has|have|had|will|would)(?![^\W\d_])"
)
_SENTENCE_END = compile_lazily(r"[.!?。！？;；](?=\s+\S)")


def is_courtesy(text: str) -> bool:
    """True when `text` (one raw line) is a courtesy line (module docstring)."""
    value = strip_decor(clean_value(norm(CODE_SPAN.sub(" code ", text)))).strip()
    if _PRAISE.fullmatch(value):
        return True
    opening = _OPENING.match(value)
    if opening is None or len(value.split()) > _MAX_WORDS:
        return False
    if _SECOND_CLAUSE.search(value, opening.end()) or _SENTENCE_END.search(value):
        return False
    if _LIMITS.search(value):
        return False
    if any(h.decision not in (None, Decision.APPROVE) for h in hits(value)):
        return False
    return (
        sig.condition_in(value, answer_clause=True) is None
        and sig.doubt_in(value) is None
        and sentence_problem(value) is None
    )
