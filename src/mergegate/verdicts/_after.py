"""What may follow an approval: after the approving verdict, every visible line must be
recognised as something that cannot change the decision (issue 23, deliver 3).

The approval's *anchor* is the last approving prose verdict of the whole change in the
deciding round. From its line to the end of the document:

* every sentence must be in a language mergegate reads: letters of a script it reads (Latin,
  Cyrillic, Han, kana, Hangul), and Latin letters of its Latin-script languages only (`é`,
  `ß`, `ñ` … but not `ş`, `ą`, `ư`). A sentence nobody here can read cannot be weighed.

When the anchor *closes* a review (a body stands above it, so it is not the document's
opening statement — the body after an opening verdict is the review it sums up):

* a heading after it must name a part of a review from a closed list (summary, notes,
  testing, verification, follow-ups, a file …), be advisory, a verdict or a round heading,
  or say none; any other heading (`Proposal`, `Option B`, `F2. Timeout`, a sentence set as
  a heading) opens text the verdict did not weigh;
* a line in the verdict's own section after it (before the next heading) is a signature,
  metadata or another line whose shape carries no decision (`_accounting`), or prose whose
  every clause is a *statement*: it opens with a subject (a determiner, a pronoun, a
  quantifier, a code span, a number) or with a content word not followed by its object
  (`Tests pass`, `Clean change`). A clause that opens with a verb and its object (`Rotate
  the key`, `Requires a sign-off`) is an instruction, and one that opens with a
  subordinator (`Only after …`, `Unless …`) is a condition — neither is a reason;
* a list item there that carries a location (`a/b.py:12`, a code span naming a file) or a
  severity tag (`**Sev-1**`, `[P1]`) is a finding the verdict did not weigh.

Each refusal is `malformed` with the line as evidence (the hook asks for a restatement).
The clause rule reads English grammar words; other read languages are read by the sentence
readers of `_refusals` alone. One pass from the anchor: linear in the document.
"""

from __future__ import annotations

import re
import unicodedata

from mergegate.decisions import Decision
from mergegate.verdicts._accounting import carries_no_decision
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._unweighed import opens_document
from mergegate.verdicts._vocab import Hit, clean_value, hits, is_clause_end

__all__ = ["after_approval"]

_A, _M = Decision.APPROVE, Decision.MALFORMED
Refusal = tuple[Decision, int, str]

# Latin letters the read Latin-script languages write (English, Spanish, Portuguese, French,
# German, Italian), beyond ASCII. Any other Latin letter belongs to a language mergegate has
# no vocabulary for (Turkish ş, Polish ą, Vietnamese ư …).
_READ_LATIN = frozenset("áàâäãåçéèêëíìîïñóòôöõúùûüýÿœæßªº")
_READ_SCRIPTS = ("LATIN", "CYRILLIC", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "HALFWIDTH")
_CODE_SPAN = compile_lazily(r"`[^`]*`")

# The parts of a review a heading after the verdict may name (whole words, any position).
_REVIEW_PART = compile_lazily(
    r"(?<![a-z])(?:summary|overview|notes?|remarks|comments?|strengths?|praise|highlights|"
    r"testing|tests?|test results|verification|verified|evidence|checks?|checklist|coverage|"
    r"requirements|acceptance criteria|commits?|files?|changes reviewed|scope|context|"
    r"background|references?|links?|appendix|signatures?|sign-?off|metadata|details|"
    r"statistics|metrics|scores?|reviewers?|review|verdict|decision|conclusions?|results?|"
    r"outcome|assessment|recommendations?|next steps?|follow[ -]?ups?|minor|nits?|"
    r"suggestions?|improvements?|optional|resolved|closed|fixed|addressed|none|"
    r"post[ -]merge|deferred|future work|quality|security|performance|documentation|docs|"
    r"reasons?|reasoning|rationale|justification|truths|artifacts|anti[- ]?patterns?|gaps|"
    r"spot-checks|data-flow|"
    # a findings section: what it lists is read by `_unweighed` and `_blocking`
    r"issues?|findings?|concerns?|problems?|risks?|caveats?|blockers?|critical|important|"
    r"major|warnings?|bugs?|defects?|vulnerabilit(?:y|ies)|regressions?|limitations?|errors?|"
    r"weaknesses)"
    r"(?![a-z])|总结|摘要|结论|测试|验证|后续|备注|说明|まとめ|テスト|备考|요약|테스트|"
    r"검증|비고|resumen|pruebas|verificaci[oó]n|notas|resultados?|conclusi[oó]n|consolidado|"
    r"resumo|testes|verifica[cç][aã]o|r[ée]sum[ée]|v[ée]rification|remarques|zusammenfassung|"
    r"pr[uü]fung|hinweise|riepilogo|verifica|итог|резюме|тесты|проверка|примечания"
)
# A heading that names a file: a path or a code span.
_FILE_HEADING = compile_lazily(r"`[^`]+`|[\w.-]+/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b")


def _closed(words: str) -> frozenset[str]:
    return frozenset(words.split())


# English closed classes. A clause that opens with one of these has its subject first.
_SUBJECT_OPENERS = _closed(
    "the a an all every each no none nothing everything both this these that those it its "
    "i we he she they you my our your their there here one two three zero any some most "
    "several many few neither either overall also so "
    # a conjunction or a preposition: the clause goes on, or opens with an adverbial
    "and or but nor yet while because since although though with without for in on at by "
    "from to of per via thanks"
)
# A content word followed by one of these opens a verb and its object: an instruction
# ('Rotate the key', 'Requires a sign-off', 'Take it out').
_OBJECT_OPENERS = _closed(
    "the a an this that these those my your its our their all every each any some it them "
    "only first"
)
# A clause that opens with a subordinator has no main clause: a condition, not a reason.
_SUBORDINATORS = _closed(
    "only unless once after before if when until till provided providing pending except assuming as"
)
# After a verb of approval, these limit it: 'Merge only …', 'Ship first …'.
_LIMITING = _closed("only first")
_CLAUSES = compile_lazily(r"(?<=[.!?;:])\s+|\s+[—–]\s+")
_WORD = compile_lazily(r"[^\W\d_][\w'’-]*")
_LIST_ITEM = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
# 'a/b.py:12', or a code span naming a file: '`auth.py`', '`src/db`' (not '`mod.func_name`').
_LOCATION = compile_lazily(
    r"[\w./-]+\.[a-z]{1,5}:\d+|`[^`\s]*/[^`\s]*`|`[\w./-]*\.[a-z]{1,5}(?::\d+)?`"
)
_SEVERITY_TAG = compile_lazily(
    r"[ \t]*(?:\*\*|__|\[)[ \t]*(?:sev(?:erity)?[ -]?\d|p[0-4]|critical|high|major|blocker|"
    r"important|medium)[ \t]*(?:\*\*|__|\])",
    re.IGNORECASE,
)
_EMPHASIS_ONLY = compile_lazily(r"[ \t]*([*_]{1,3})(.+?)\1[ \t]*")
_SENTENCE_END = ".!?。！？"
_PROSE_WORDS = 6
# A short label before its value: '**Reasoning:** …', 'Note: …' (the value is what is read).
_LABEL = compile_lazily(r"[ \t*_`]*[^\W\d_][\w '-]{0,40}?[*_`]*[:：][*_`]*[ \t]+")


def after_approval(
    doc: Doc, in_scope: list[Site], start: int, covered: frozenset[int]
) -> Refusal | None:
    """The first line after the approving verdict that is not recognised as unable to change
    the decision, as a refusal (`malformed`, its index, why), or None. `in_scope` are the
    deciding round's approving sites, `start` its first line, `covered` JSON lines."""
    sites = {s.index for s in in_scope if not s.frontmatter}
    body = [s.index for s in in_scope if not s.frontmatter and s.dialect != "json" and not s.part]
    if not body or max(body) < start:
        return None
    anchor = max(body)
    closing = not opens_document(doc, anchor, sites)
    in_section = True  # no heading yet between the verdict and this line
    accepted_level = 0  # the level of the review part a deeper heading belongs to
    for index in range(anchor, len(doc.lines)):
        line = doc.lines[index]
        if line.blank or index in covered or not (line.live or line.instruction_like):
            continue
        problem = _unread_language(line)
        if problem is None and closing and index == anchor:
            problem = _beside_answer(line)
        elif problem is None and closing:
            if line.heading_level:
                in_section = False
                # A subheading of a review part is part of it ('## Checklist' / '### Pre-merge').
                inside = 0 < accepted_level < line.heading_level
                problem = None if inside else _unknown_heading(line)
                if not inside:
                    accepted_level = line.heading_level if problem is None else 0
            elif in_section and index not in sites:
                problem = _unweighed_line(line, continues=_continues(doc, index))
        if problem is not None:
            return _M, index, f"line {line.number} after the approval: {problem}"
    return None


def _unread_language(line: Line) -> str | None:
    """Letters of a script, or Latin letters of a language, that no vocabulary reads."""
    text = _CODE_SPAN.sub(" ", line.raw)
    if text.isascii():
        return None
    for ch in text:
        if ch.isascii() or not ch.isalpha():
            continue
        if ch.lower() in _READ_LATIN:
            continue
        name = unicodedata.name(ch, "")
        if not name.startswith(_READ_SCRIPTS) or name.startswith("LATIN"):
            return f"'{ch}' is written in a language mergegate cannot read, so nobody weighed it"
    return None


def _unknown_heading(line: Line) -> str | None:
    section = line.section
    if section is not None and (section.verdict_like or section.round or section.advisory):
        return None
    if section is not None and section.local:
        return f"the heading '{line.raw.strip()[:60]}' opens something other than the change"
    text = clean_value(line.low)
    if _REVIEW_PART.search(text) or _FILE_HEADING.search(line.raw):
        return None
    return f"the heading '{line.raw.strip()[:60]}' names no part of a review"


def _continues(doc: Doc, index: int) -> bool:
    """The line goes on with the sentence of the line above it (a wrapped paragraph or list
    item): its first words are not the start of a clause."""
    above = doc.lines[index - 1] if index > 0 else None
    if (
        above is None
        or above.blank
        or above.heading_level
        or _LIST_ITEM.match(doc.lines[index].raw)
    ):
        return False
    return above.raw.rstrip(" *_`")[-1:] not in _SENTENCE_END


def _prose_value(text: str) -> bool:
    """'Note: running the migration deletes every row.': a label whose value is a sentence is
    prose under a label, read like any prose ('Date: 2026-05-01' is not)."""
    _, separator, value = text.partition(":")
    return bool(separator) and len(_WORD.findall(value)) >= _PROSE_WORDS


def _unweighed_line(line: Line, *, continues: bool) -> str | None:
    """A line in the verdict's own section after it: a finding item, or prose that is not a
    statement. Lines whose shape carries no decision (metadata, signatures …) pass; a line
    that goes on with the sentence above it is read from its first sentence end."""
    raw = line.raw
    item = _LIST_ITEM.match(raw)
    rest = raw[item.end() :] if item is not None else raw
    if item is not None and (_LOCATION.search(rest) or _SEVERITY_TAG.match(rest)):
        return f"a list item with a location or a severity tag is a finding ('{rest[:60]}')"
    emphasis = _EMPHASIS_ONLY.fullmatch(rest)
    sentence = emphasis is not None and emphasis.group(2).rstrip()[-1:] in _SENTENCE_END
    if not sentence and carries_no_decision(raw) and not _prose_value(rest):
        return None
    label = _LABEL.match(rest)
    clauses = _CLAUSES.split(rest[label.end() :] if label is not None else rest)
    for clause in clauses[1:] if continues else clauses:
        problem = _clause_problem(clause)
        if problem is not None:
            return f"'{clause.strip()[:60]}' {problem}"
    return None


_NEGATION = compile_lazily(r"(?<![a-z])(?:no|not|without|nothing|none|zero|never|n't)(?![a-z])")


def _other_verdict(value: str, hit: Hit) -> bool:
    """A verdict word other than yes that opens its clause and ends it there ('No.',
    'Reject, because …'; not 'I had concerns before', nor a negated 'no fixes required')."""
    if hit.decision in (None, _A) or not is_clause_end(value, hit.end):
        return False
    opens = not value[: hit.start].strip(" \t*_>-,")
    return opens and _NEGATION.search(value, 0, hit.start) is None


def _beside_answer(line: Line) -> str | None:
    """The clauses after the answer on the verdict's own line ('Yes. Take the migration out
    of this PR.') are read like the lines after it; a table row is its cells' (`_accounting`)."""
    if line.raw.lstrip().startswith("|"):
        return None
    clauses = _CLAUSES.split(line.raw)
    answered = next(
        (
            i
            for i, c in enumerate(clauses)
            if any(h.decision is _A for h in hits(clean_value(c.lower())))
        ),
        len(clauses),
    )
    for clause in clauses[answered + 1 :]:
        problem = _clause_problem(clause)
        if problem is not None:
            return f"'{clause.strip()[:60]}' beside the answer {problem}"
    return None


def _clause_problem(clause: str) -> str | None:
    """Why a clause is not a statement: it says a verdict other than yes, or it opens with a
    verb and its object (an instruction) or with a subordinator (a condition). The grammar
    words are English; the verdict words are every read language's."""
    text = _CODE_SPAN.sub(" CODE ", clause)
    value = clean_value(text.lower())
    other = next((h for h in hits(value) if _other_verdict(value, h)), None)
    if other is not None:
        return f"says '{other.phrase}' after the approval"
    return _opening_problem(text, value) if text.isascii() else None


def _opening_problem(text: str, value: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(text)]
    if not words or words[0] in _SUBJECT_OPENERS or words[0] == "code":
        return None
    if words[0] in _SUBORDINATORS:
        return "opens with a condition, not a reason"
    if len(words) < 2 or words[1] not in _OBJECT_OPENERS:
        return None
    said = hits(value)
    if said and said[0].start == 0 and said[0].decision is _A and words[1] not in _LIMITING:
        return None  # 'Ship it.', 'ship the whole change': the yes again, as a verb
    return "opens with a verb and its object (an instruction), not a reason"
