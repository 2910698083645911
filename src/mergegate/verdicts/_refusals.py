"""Why an all-approving document still does not approve: the checks of rules (c) and (d)
and of reading the input whole, in the order `docs/verdicts.md` gives them. Each returns a
`Refusal` — the decision it becomes, the line to show, the reason — or None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.verdicts._answer import sentence_problem, strip_decor
from mergegate.verdicts._block import block_problem, condition_section
from mergegate.verdicts._blocking import find_blocking, other_unit_waits, own_unit, text_blocking
from mergegate.verdicts._frontmatter import VerdictFrontmatter
from mergegate.verdicts._jsonverdict import JsonVerdict
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._model import Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import BLOCKING_SECTION, heading_condition, withdrawal_in
from mergegate.verdicts._site import Site
from mergegate.verdicts._text import MAX_LINE_CHARS, hidden_characters, norm
from mergegate.verdicts._vocab import clean_value, first_hit, hits

__all__ = ["Facts", "Refusal", "first_refusal"]

_A, _F, _R, _M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED
Refusal = tuple[Decision, int | None, str]
"""(decision, line index to show or None, reason)."""


@dataclass(slots=True)
class Facts:
    """Everything read from one document."""

    doc: Doc
    front: VerdictFrontmatter
    sites: list[Site]
    """Document-level sites (prose, frontmatter, JSON), in document order."""
    broken: list[JsonVerdict]
    trailers: dict[int, JsonVerdict]
    """The JSON verdicts behind JSON sites, by line index."""
    warnings: list[str]
    covered: frozenset[int] = frozenset()
    """Lines inside JSON verdicts: read as JSON, never as prose."""


def first_refusal(
    facts: Facts,
    in_scope: list[Site],
    start: int,
    review_id: str | None,
    trailer: JsonVerdict | None,
) -> Refusal | None:
    """The first reason, in rule order, why an all-approving document still does not approve."""
    doc = facts.doc
    checks: tuple[Callable[[], Refusal | None], ...] = (
        lambda: _whole_input(doc, in_scope, start),
        lambda: _authority(facts, in_scope, review_id),
        lambda: _clean_confirmed(facts, in_scope, start),
        lambda: _trailer_blocking(trailer),
        lambda: _blocking(facts, in_scope, start),
        lambda: _qualified_from_above(doc, in_scope),
        lambda: block_problem(doc, in_scope, facts.covered),
        lambda: condition_section(doc, start, facts.covered),
        lambda: _after(doc, in_scope, start, facts.covered),
    )
    for check in checks:
        refusal = check()
        if refusal is not None:
            return refusal
    return None


def _whole_input(doc: Doc, in_scope: list[Site], start: int) -> Refusal | None:
    if doc.cut:
        return (
            _M,
            None,
            "the input was cut to the window: an approval in a cut input is never trusted",
        )
    if any(block.live and not block.closed for block in doc.blocks):
        return _M, None, "the output ends inside a code block: it was cut off"
    unseen = _not_as_rendered(doc)
    if unseen is not None:
        return unseen
    looks = [s for s in in_scope if s.lookalike]
    if looks:
        return (
            _M,
            looks[0].index,
            "the approving verdict uses look-alike, zero-width or damaged (U+FFFD) characters",
        )
    return _unread_long_line(doc, in_scope, start)


def _unread_long_line(doc: Doc, in_scope: list[Site], start: int) -> Refusal | None:
    """A verdict on a line over the cap, or a live line over the cap that cannot be read
    whole in bounded pieces (`_unread_piece`)."""
    if any(s.capped for s in in_scope):
        return _M, None, "the verdict's own line is longer than the line cap"
    for index in range(start, len(doc.lines)):
        line = doc.lines[index]
        unread = _unread_piece(doc.full[index]) if line.live and line.capped else None
        if unread is not None:
            why = f"a live line longer than the line cap could not be read whole: {unread}"
            return _M, index, why
    return None


# Every reader works on the first `MAX_LINE_CHARS` characters of a line, which keeps the parse
# linear. A real review writes longer lines (a table row of test results, a paragraph) and an
# approval must not stand on a line whose end nobody read. Such a line is cut where a reader
# pauses (sentence ends, table cells); each piece must be no longer than the cap (a longer one
# stays unread: fails closed) and say nothing a verdict could hang on: no verdict word opening
# it other than a yes, no sentence that withdraws, contradicts, conditions or blocks an
# approval (read as strictly as text after an approval), no blocking content, no hidden
# characters. Linear: each character is in one piece.
_PAUSE = compile_lazily(r"(?<=[.!?。！？;；])\s+|\|")


def _unread_piece(whole: str) -> str | None:
    """Why the long line `whole` cannot be read whole (the first piece that refuses, and
    why), or None when every piece is read and none of them can carry a decision."""
    for piece in _PAUSE.split(whole):
        if len(piece) > MAX_LINE_CHARS:
            return f"a piece of {len(piece):,} characters without a sentence end or cell"
        if not piece.strip():
            continue
        problem = _piece_problem(piece)
        if problem is not None:
            return f"'{piece.strip()[:60]}': {problem}"
    return None


def _piece_problem(piece: str) -> str | None:
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


def _not_as_rendered(doc: Doc) -> Refusal | None:
    """A document that could not be read as rendered is not approved: one with markup that is
    too long to render, or one that hides characters from its reader (bidi overrides,
    zero-width, braille blanks, stacked combining marks, look-alike letters) wherever they
    are — what renders is not what was written, so no reading of it can be trusted."""
    if doc.unrendered:
        return (
            _M,
            None,
            "the document has Markdown markup but is too long to read as rendered: "
            "an approval in it is never trusted",
        )
    for index, line in enumerate(doc.lines):
        found = hidden_characters(line.raw)
        if found:
            return (
                _M,
                index,
                f"line {line.number} hides characters from its reader: {', '.join(found[:4])}",
            )
        spelled = spaced_letters(line.raw) if line.shows else None
        if spelled is not None:
            return (
                _M,
                index,
                f"line {line.number} says '{spelled}' in spaced-out letters: a reader reads "
                "the words, no verdict reader does",
            )
    return None


# Three or more single letters of a cased script, each standing alone and one to three
# spaces apart ('N O T   R E A D Y'): words to a reader, letters to every word list.
_SPACED = compile_lazily(r"(?<!\S)[^\W\d_](?:[ \t\u00a0]{1,3}[^\W\d_](?!\S)){2,}")
_WORD_GAP = compile_lazily(r"[ \t\u00a0]{2,}")
_NO_WORD = compile_lazily(r"(?<![a-z])(?:no|not|never|dont|don't)(?![a-z])")


def spaced_letters(text: str) -> str | None:
    """The words a run of spaced-out letters in `text` spells, when they say a verdict or a
    no ('N O T   R E A D Y' is 'not ready'; 'no I L O U', a list of letters, says nothing),
    or None. Only letters of a script with case: a Han or Hangul syllable alone is a word."""
    for match in _SPACED.finditer(text):
        run = match.group(0)
        if any(ch.lower() == ch.upper() for ch in run.split()):
            continue
        words = " ".join(w.replace(" ", "").replace("\t", "") for w in _WORD_GAP.split(run))
        said = clean_value(norm(words))
        if hits(said) or _NO_WORD.search(said):
            return words[:40]
    return None


def _authority(facts: Facts, in_scope: list[Site], review_id: str | None) -> Refusal | None:
    if facts.broken:
        bad = facts.broken[-1]
        return _M, bad.index, f"a JSON verdict cannot be read: {bad.problem}"
    if all(s.part for s in in_scope):
        return _M, None, "only verdicts about parts of the change (a file, a track) were found"
    if review_id is not None and not any(
        s.index in facts.trailers and facts.trailers[s.index].trailer for s in in_scope
    ):
        return (
            _M,
            None,
            f"no JSON trailer carries review_id {review_id!r}; a prose approval alone is not "
            "accepted when a review_id is expected",
        )
    return None


def _clean_confirmed(facts: Facts, in_scope: list[Site], start: int) -> Refusal | None:
    """'clean' approves only where the finding counts say there is nothing (GSD reviews)."""
    clean = [s for s in in_scope if s.clean and not s.part]
    if not clean:
        return None
    counts = [c for _, _, c in facts.front.counts]
    counts.extend(_body_counts(facts.doc, start))
    if counts:
        return None
    # Without a blocking grade's count, a `findings:` tally of other grades confirms only
    # when it is all zero (`{high: 0, medium: 0, low: 0}`): a non-zero grade it cannot weigh.
    tallied = facts.front.tallied
    if tallied:
        why = f"'clean' beside {tallied} finding(s) of grades it does not name"
        return _M, clean[0].index, why
    if tallied is None:
        return _M, clean[0].index, "'clean' without finding counts is a status word, not a verdict"
    return None


_COUNT_LINE = compile_lazily(
    r"[ \t-]*(?:critical|critical issues|total|total issues)[ \t]*:[ \t]*(\d{1,6})"
)


def _body_counts(doc: Doc, start: int) -> list[int]:
    """Finding counts in the deciding round: 'Critical: 0', 'Total issues: 0'."""
    counts = []
    for line in doc.lines[start:]:
        match = _COUNT_LINE.match(line.clean) if line.live else None
        if match is not None:
            counts.append(int(match.group(1)))
    return counts


def _trailer_blocking(trailer: JsonVerdict | None) -> Refusal | None:
    if trailer is None:
        return None
    if trailer.blocking is not None:
        return _F, trailer.index, f"the JSON verdict reports blocking content ({trailer.blocking})"
    # Minor and architectural (advisory, seed 004) findings do not turn an approval into fixes.
    blocking = [f for f in trailer.findings if f.severity is not Severity.MINOR and not f.advisory]
    if blocking:
        return (
            _F,
            trailer.index,
            f"the trailer approves but lists {len(blocking)} blocking finding(s)",
        )
    return None


def _blocking(facts: Facts, in_scope: list[Site], start: int) -> Refusal | None:
    for site in in_scope:
        json_found = facts.trailers.get(site.index)
        if json_found is not None and json_found.blocking is not None:
            return (
                _F,
                site.index,
                f"the JSON verdict reports blocking content ({json_found.blocking})",
            )
    found = find_blocking(facts.doc, start, facts.front, facts.covered)
    if found is None:
        return None
    index, why = found
    number = facts.doc.lines[index].number
    return _F, index, f"blocking content at line {number}: {why}; not an approval"


def _after(doc: Doc, in_scope: list[Site], start: int, covered: frozenset[int]) -> Refusal | None:
    """Live text after the first approving site may not withdraw, contradict or condition it.

    A frontmatter verdict is stated before the whole body, so all of it comes after; a JSON
    trailer sums up the prose of its round, so when trailers are the only verdicts, the
    round's prose before them is read too ('APPROVED — contingent on legal review' + trailer).
    """
    body = [s for s in in_scope if not s.frontmatter]
    if body and all(s.dialect == "json" for s in body):
        first = max(start, doc.frontmatter_end + 1) - 1
    else:
        first = body[0].index if body else doc.frontmatter_end
    site_lines = {s.index for s in body}
    after_question = False
    own = own_unit(doc)
    for index in range(first + 1, len(doc.lines)):
        line = doc.lines[index]
        if not line.live or line.blank or index in site_lines or index in covered:
            continue
        if other_unit_waits(line.low, own):
            continue  # '- Story 1.4 blocked on Story 2.2': another story's dependency
        text = line.prose  # 'test_verdict_reject_empty' names code, it does not reject
        if _ZERO_TALLY.fullmatch(line.low):
            continue  # 'pending: 0', 'blocked: 0': a count of none, not a condition
        if line.heading_level and BLOCKING_SECTION.match(_heading_title(line)):
            continue  # 'Critical (must fix)': a section `_blocking` holds to be empty
        if line.local:
            found = withdrawal_in(text)
            problem = (_R, f"withdrawn ('{found}')") if found else None
        elif _WHY_NOT_BLOCKING.match(line.low):
            # the reviewer's argument that an item does not block: read as advisory, and
            # a negated merge verb in it is about its own object ('must not accept
            # user-supplied strings'), unless that object is the change
            problem = _line_problem(text, advisory=True, reasoned=True)
        else:
            advisory = line.section is not None and line.section.advisory
            problem = _line_problem(text, answers_question=after_question, advisory=advisory)
        after_question = text.rstrip(" *_`").endswith("?")
        if problem is not None:
            decision, why = problem
            return decision, index, f"line {line.number} after the approval: {why}"
    return None


def _heading_title(line: Line) -> str:
    return strip_decor(clean_value(norm(line.heading_text)))


# A tally line whose count is zero ('pending: 0', '- **Blocked:** 0'): nothing is pending.
_ZERO_TALLY = compile_lazily(
    r"[ \t>*+-]*[*_]*[^\W\d_][\w -]{0,30}[*_]*[:：][*_]*[ \t]*(?:0|zero|none)[ \t*_.]*"
)


_VERDICTISH = compile_lazily(
    r"(?<![a-z])(?:verdict|decision|conclusion|recommendation|assessment|ready to merge|merge|"
    r"approval|status|result|outcome|summary)(?![a-z])|结论|判定|评価|결론|veredicto|dictamen|"
    r"conclusión|décision|fazit"
)


def _qualified_from_above(doc: Doc, in_scope: list[Site]) -> Refusal | None:
    """A heading or label line just above an approval, or the heading of its verdict
    section, may not qualify it ('## Verdict, once CI is green' → 'APPROVE')."""
    site_lines = {s.index for s in in_scope if not s.frontmatter and not s.answer_below}
    for site in in_scope:
        if site.frontmatter:
            continue
        above = [_section_heading(doc, site.index), _line_above(doc, site.index)]
        # A verdict line above another one was read by its own answer reader (its 'but' is
        # the answer's reason, checked there), not as a label qualifying the next one; a
        # label whose answer is below it is still read as one.
        for index in (i for i in above if i is not None and i not in site_lines):
            text = doc.lines[index].clean
            condition = heading_condition(text) if _VERDICTISH.search(text) else None
            if condition is not None:
                number = doc.lines[index].number
                return _F, index, f"line {number} above the approval qualifies it ('{condition}')"
    return None


def _section_heading(doc: Doc, index: int) -> int | None:
    section = doc.lines[index].section
    return section.line_index if section is not None and section.line_index != index else None


def _line_above(doc: Doc, index: int) -> int | None:
    for above in range(index - 1, max(index - 3, -1), -1):
        line = doc.lines[above]
        if line.blank:
            continue
        return above if line.live and len(line.raw) <= 100 else None
    return None


# A label that opens a line with why an item does not block ('**Why not a blocker for
# Phase 1:**', 'Why this is not blocking:', 'Why it doesn't block:', 'Why non-blocking:').
_WHY_NOT_BLOCKING = compile_lazily(
    r"[ \t>*+-]*[*_]{0,2}why[ \t]+(?:(?:this|it)[ \t]+(?:is[ \t]+|'s[ \t]+)?)?"
    r"(?:not[ \t]+(?:a[ \t]+)?(?:blocker|blocking)|non-?blocking|"
    r"(?:does[ \t]+not|doesn't|won't|will[ \t]+not)[ \t]+block)"
    r"[^:*_\n]{0,40}[*_]{0,2}[ \t]*:"
)


def _line_problem(
    text: str, *, answers_question: bool = False, advisory: bool = False, reasoned: bool = False
) -> tuple[Decision, str] | None:
    first = True
    for sentence in text.replace("。", "。\n").replace(". ", ".\n").split("\n"):
        if sentence.strip():
            found = sentence_problem(
                sentence,
                answers_question=answers_question and first,
                advisory=advisory,
                reasoned=reasoned,
            )
            if found is not None:
                return found
            first = False
    return None
