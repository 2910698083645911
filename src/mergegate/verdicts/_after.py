"""What may follow an approval: after the approving verdict, every visible line must be
recognised as something that cannot change the decision (issue 23, deliver 3).

The approval's *anchor* is the last approving prose verdict of the whole change in the
deciding round. From its line to the end of the document:

* every sentence must be in a language mergegate reads: letters of a script it reads (Latin,
  Cyrillic, Han, kana, Hangul), and Latin letters of its Latin-script languages only (`é`,
  `ß`, `ñ` … but not `ş`, `ą`, `ư`). A sentence nobody here can read cannot be weighed.

After the anchor:

* when the anchor *closes* a review (a body stands above it), a heading after it must name
  a part of a review from a closed list (summary, notes, testing, verification, follow-ups,
  a file …), be advisory, a verdict or a round heading, or say none; any other heading
  (`Proposal`, `Option B`, `F2. Timeout`, a sentence set as a heading) opens text the
  verdict did not weigh. When it *opens* the document, the body below it is the review it
  sums up, and its headings are the review's;
* a line in the verdict's own section after it (before the next heading) is a signature,
  metadata or another line whose shape carries no decision (`_accounting`), the short answer
  to a question label above it (`**Breaking changes?**` / `No.`), or a *statement*
  (`_statement`: no instruction, condition, other verdict or located finding).
* a line under a review part that holds reasons (`## Summary`, `## Notes`, `## Next steps`;
  not a findings or advice part, whose lines `_unweighed` and `_blocking` grade) is read
  like one in the verdict's own section, sentence by sentence, as a narrative: it may tell
  what was done (`Reviewed the parser`, `After removing the shim, …`), not what must still
  happen (`Ping me when that's split`, `This should sit in the branch until …`). Under an
  opening verdict only the sentences' mood is read there: the body is the review itself.

Each refusal is `malformed` with the line as evidence (the hook asks for a restatement).
One pass from the anchor: linear in the document.
"""

from __future__ import annotations

import re
import unicodedata

from mergegate.decisions import Decision
from mergegate.verdicts._accounting import (
    carries_no_decision,
    is_name_word,
    line_carries_no_decision,
    signature_sentence,
)
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._awaited import awaited_event
from mergegate.verdicts._lines import Doc, Line, is_table_row
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._result_rows import (
    TEMPLATE_KEY,
    ResultTable,
    answer_against_field,
    failing_field,
    failing_mark,
    low_grade_field,
    open_work_field,
    unfinished_field,
)
from mergegate.verdicts._site import Site
from mergegate.verdicts._statement import (
    CLAUSES,
    LABEL,
    LIST_ITEM,
    clause_problem,
    continues_above,
    finding_item,
    hold_in,
    prose_problem,
    sentences_problem,
    severity_label,
)
from mergegate.verdicts._text import CODE_SPAN, SENTENCE_END, WORD, norm
from mergegate.verdicts._unweighed import ADVISORY_LABEL, opens_document
from mergegate.verdicts._vocab import clean_value, hits

__all__ = ["after_approval"]

_A, _M = Decision.APPROVE, Decision.MALFORMED
Refusal = tuple[Decision, int, str]

# Latin letters the read Latin-script languages write (English, Spanish, Portuguese, French,
# German, Italian), beyond ASCII. Any other Latin letter belongs to a language mergegate has
# no vocabulary for (Turkish ş, Polish ą, Vietnamese ư …).
_READ_LATIN = frozenset("áàâäãåçéèêëíìîïñóòôöõúùûüýÿœæßªº")
_READ_SCRIPTS = ("LATIN", "CYRILLIC", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "HALFWIDTH")

# A findings section: what it lists is read by `_unweighed` and `_blocking`.
_FINDINGS_PART = (
    r"issues?|findings?|concerns?|problems?|risks?|caveats?|blockers?|critical|important|"
    r"major|warnings?|bugs?|defects?|vulnerabilit(?:y|ies)|regressions?|limitations?|errors?|"
    r"weaknesses"
)
# The parts of a review a heading after the verdict may name (whole words, any position).
# A section that names the evidence a review shows, not a part of the change: what was run
# ('What Was Run', 'Commands run', 'Test run log') or the record it leaves ('Release
# record', 'Audit trail'). Phrases, not single nouns: 'Output', 'Logs' alone also name a
# feature of the change ('### Task 2: Gzip output'). Its lines are read like any section's.
_EVIDENCE_PART = (
    r"what (?:was|we|i) (?:run|ran|tested|checked|verified|executed)|"
    r"commands? (?:run|ran|executed|used)|(?:release|run|test|verification|build|ci) "
    r"(?:records?|logs?)|audit trail|how (?:it was )?(?:tested|verified)"
)
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
    r"spot-checks|data-flow|" + _EVIDENCE_PART + r"|" + _FINDINGS_PART + r")"
    r"(?![a-z])|总结|摘要|结论|测试|验证|后续|下一步|建议|备注|说明|まとめ|テスト|备考|요약|테스트|"
    r"검증|비고|resumen|pruebas|verificaci[oó]n|notas|resultados?|conclusi[oó]n|consolidado|"
    r"resumo|testes|verifica[cç][aã]o|r[ée]sum[ée]|v[ée]rification|remarques|zusammenfassung|"
    r"pr[uü]fung|hinweise|riepilogo|verifica|итог|резюме|тесты|проверка|примечания"
)
# A heading that names a file: a path or a code span.
_FILE_HEADING = compile_lazily(r"`[^`]+`|[\w.-]+/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b")


_EMPHASIS_ONLY = compile_lazily(r"[ \t]*([*_]{1,3})(.+?)\1[ \t]*")
# A verdict word negated by its prefix ('Unmergeable.', 'unapproved', 'not-shippable'): the
# vocabulary reads the stem, so the word would pass as a label or a statement.
_PREFIXED_NO = compile_lazily(
    r"(?<![a-z])(?:un|non[- ]?|not-|dis|in)(?:merg|approv|ship|accept)[a-z]*"
)
# A reference mark on the verdict's own line ('APPROVED†', 'Yes‡'): it points to a note
# below, which qualifies the answer whatever it says (not a superscript digit: 'O(n²)').
_REFERENCE_MARK = compile_lazily(r"[†‡※⁂]")
_PROSE_WORDS = 6
# A short label before its value: '**Reasoning:** …', 'Note: …' (the value is what is read).


def after_approval(
    doc: Doc, in_scope: list[Site], start: int, covered: frozenset[int], *, appraise: bool = False
) -> Refusal | None:
    """The first line after the approving verdict that is not recognised as unable to change
    the decision, as a refusal (`malformed`, its index, why), or None. `in_scope` are the
    deciding round's approving sites, `start` its first line, `covered` JSON lines. With
    `appraise` (the strict reading), the verdict's own section and the reasons after a
    closing verdict must also appraise the change, clause by clause (`_appraisal`)."""
    sites = {s.index for s in in_scope if not s.frontmatter}
    body = [s.index for s in in_scope if not s.frontmatter and s.dialect != "json" and not s.part]
    if not body or max(body) < start:
        return None
    anchor = max(body)
    above = (
        _unread_above(doc, start, anchor, covered)
        or _failing_above(doc, start, anchor, covered)
        or _failing_result(doc, anchor)
    )
    if above is not None:
        return above
    # An opening verdict sums up the body below it: the body's headings are the review's.
    # Its own section (up to the first heading) is read like a closing verdict's.
    opening = opens_document(doc, anchor, sites)
    in_section = True  # no heading yet between the verdict and this line
    parts: list[tuple[int, bool]] = []  # the open headings: (level, holds reasons)
    accepted_level = 0  # the level of the review part a deeper heading belongs to
    minor = False  # inside the list under an advisory label ('**Minor:**', 'Suggestions:')
    for index in range(anchor, len(doc.lines)):
        line = doc.lines[index]
        if index in covered or _not_read_after(line):
            continue
        minor = _under_advisory_label(line, minor)
        if minor and in_section and not line.heading_level:
            continue  # a minor finding: `_unweighed` and `_blocking` read it for a no
        problem = _unread_language(line)
        if problem is None and index == anchor:
            problem = _beside_answer(line, appraise=appraise)
        elif problem is None and line.heading_level:
            in_section = False
            # A subheading of a review part is part of it ('## Checklist' / '### Pre-merge').
            inside = opening or 0 < accepted_level < line.heading_level
            problem = None if inside else _unknown_heading(line)
            if not inside:
                accepted_level = line.heading_level if problem is None else 0
            _open_part(parts, line, accepted=problem is None)
        elif (
            problem is None
            and in_section
            and index not in sites
            and not _answers_question(doc, index)
        ):
            goes_on = _continues(doc, index) and not _beside_answer_above(doc, index, sites)
            problem = _unweighed_line(
                line, continues=goes_on, above=_tail_above(doc, index, sites)
            ) or (_unappraised_line(doc, index, continues=goes_on) if appraise else None)
        elif (
            problem is None
            and parts
            and parts[-1][1]
            and index not in sites
            and not _answers_question(doc, index)
        ):
            # Under an opening verdict the body is the review itself, argued at length: only
            # its moods are read there, not how each sentence opens, and a wrapped sentence
            # is read from its first sentence end, as before.
            wrapped = "" if opening else _tail_above(doc, index, sites)
            goes_on = _continues(doc, index)
            problem = (
                _record_line(line, goes_on, wrapped)
                or _reason_line(line, continues=goes_on, openings=not opening, above=wrapped)
                or (
                    _unappraised_line(doc, index, continues=goes_on)
                    if appraise and not opening
                    else None
                )
            )
        if problem is not None:
            return _M, index, f"line {line.number} after the approval: {problem}"
    return _quoted_in_section(doc, anchor, covered) if appraise and not opening else None


def _record_line(line: Line, goes_on: bool, above: str) -> str | None:
    """A line in a record section of the approving round ('### Re-review method' under
    '## Re-review', `Section.round_record`): the section would have opened a later round
    anywhere else, so its lines are read as the verdict's own section's (`_unweighed_line`:
    a finding, a no, a hold), never passed as reasons."""
    if line.section is None or not line.section.round_record:
        return None
    return _unweighed_line(line, continues=goes_on, above=above)


def _not_read_after(line: Line) -> bool:
    """A line these readers skip: blank, not shown as the reviewer's, or about an alternative
    or an option rather than the change (`_refusals` reads those for a withdrawal)."""
    if line.blank or not (line.live or line.instruction_like):
        return True
    return line.local and not line.heading_level


def _failing_result(doc: Doc, anchor: int) -> Refusal | None:
    """A row of a table below the verdict that reports a check which did not pass
    (`_result_rows`): the approval did not weigh it."""
    results = ResultTable()
    for index in range(anchor, len(doc.lines)):
        line = doc.lines[index]
        failing = results.read(line.raw if line.live else "")
        if failing is None and line.live and not is_table_row(line.raw):
            failing = failing_field(line.raw) or failing_mark(line.raw)
        if failing is not None and index != anchor:
            why = f"a check that did not pass ('{failing}')"
            return _M, index, f"line {line.number} after the approval: {why}"
    return None


def _failing_above(doc: Doc, start: int, anchor: int, covered: frozenset[int]) -> Refusal | None:
    """The verdict's record fields above it, in the body of the deciding round it sums up:
    a field that reports a check which did not pass (`CI: queued`, `failing_field`), says
    the work is unfinished or grades it below its middle (`Approvals: 1/2 required`,
    `Ready: almost`, `Score: 3/10`: `_unfinished`). The approval was given over work its own
    record calls not done; where the field stands does not change what it says. Fields
    only: a table row or a marked line above the verdict is often a finding the review
    weighed (`| EMAIL_PROVIDER | ❌ not wired (Important) |` above a genuine approval). A
    field whose value is a sentence is the body's prose, which the verdict sums up, not a
    record: 'Expected: the panel should feel like part of the Phase 5/6 workspace' counts
    no parts, 'Constraints respected: no modifications to lib/' answers no question."""
    for index in range(start, anchor):
        line = doc.lines[index]
        if index in covered or _not_read_after(line) or is_table_row(line.raw):
            continue
        if _prose_value(line.raw):
            continue
        field = failing_field(line.raw)
        failing = f"a check that did not pass ('{field}')" if field else _unfinished(line.raw)
        if failing is not None:
            return _M, index, f"line {line.number} above the approval: {failing}"
    return None


def _quoted_in_section(doc: Doc, anchor: int, covered: frozenset[int]) -> Refusal | None:
    """The strict reading of block quotes in a closing verdict's own section: a quote is not
    live for the other readers (someone else's words), but it shows in the verdict's
    section, so it must appraise the change like the reviewer's lines, or it was not weighed."""
    for index in range(anchor + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            return None
        if not line.quoted or index in covered:
            continue
        problem = _unappraised_line(doc, index, continues=False, quoted=True)
        if problem is not None:
            return _M, index, f"line {line.number} after the approval: quoted, {problem}"
    return None


# The parts whose lines others read: findings and advice (`_unweighed`, `_blocking` grade
# them), records of what was fixed, gaps (the templates'), an appendix of quoted material.
_NOT_REASONS = compile_lazily(
    r"(?<![a-z])(?:" + _FINDINGS_PART + r"|minor|nits?|suggestions?|improvements?|optional|"
    r"recommendations?|follow[ -]?ups?|deferred|future work|post[ -]merge|resolved|closed|"
    r"fixed|addressed|gaps|anti[- ]?patterns?|appendix)(?![a-z])"
)


def _open_part(parts: list[tuple[int, bool]], line: Line, *, accepted: bool) -> None:
    """Close the parts `line`'s heading ends and open its own: it holds reasons when it is
    an accepted heading that holds them (`_holds_reasons`) inside parts that all do."""
    while parts and parts[-1][0] >= line.heading_level:
        parts.pop()
    reasons = accepted and _holds_reasons(line) and all(r for _, r in parts)
    parts.append((line.heading_level, reasons))


def _holds_reasons(line: Line) -> bool:
    """A heading whose prose is the approval's reasons ('## Summary', '## Rollout', '## Next
    steps'), read like the verdict's own section; not a round or advisory section, nor a
    part whose lines another reader grades (`_NOT_REASONS`). A verdict site in it is the
    grammar's."""
    section = line.section
    if section is not None and (section.round or section.advisory):
        return False
    return _NOT_REASONS.search(line.clean) is None


def _unappraised_line(doc: Doc, index: int, *, continues: bool, quoted: bool = False) -> str | None:
    """A prose line after the approval that does not appraise the change (`_appraisal`),
    read with the lines its sentence wraps onto (a few at most, so the read stays linear). A
    line whose shape carries no decision passes; a wrapped line was judged with the line it
    goes on from."""
    raw = _callout_text(doc.lines[index].raw)
    if quoted:
        raw = raw.lstrip(" \t>")  # every quote level's marks
    if continues or raw.lstrip().startswith("|") or not raw.strip():
        return None
    rest = finding_item(raw)[0]
    if _shapeless(doc.lines[index], raw) and not _prose_value(rest):
        if not _worded_value(rest):
            return None
        rest = rest.partition(":")[2]  # a metadata value with words: the value is read
    emphasis = _EMPHASIS_ONLY.fullmatch(rest)
    if emphasis is not None and emphasis.group(2).rstrip()[-1:] not in SENTENCE_END:
        return None  # '**Correctness & Contract Compliance**': a label, its text below
    label = LABEL.match(rest)
    text = " ".join([rest[label.end() :] if label is not None else rest, *_wrapped(doc, index)])
    clause = unappraised(text)
    if clause is None:
        return None
    return f"'{clause}' does not appraise the change, so the approval did not weigh it"


_MAX_WRAPPED = 6


def _wrapped(doc: Doc, index: int) -> list[str]:
    """The lines after `index` its sentence wraps onto (at most `_MAX_WRAPPED`)."""
    lines: list[str] = []
    for after in range(index + 1, min(index + 1 + _MAX_WRAPPED, len(doc.lines))):
        if doc.lines[after].blank or not _continues(doc, after):
            break
        lines.append(_callout_text(doc.lines[after].raw).strip())
    return lines


def _reason_line(line: Line, *, continues: bool, openings: bool, above: str) -> str | None:
    """A line under a part that holds reasons: a statement, sentence by sentence. Table rows
    are `_accounting`'s; a line whose shape carries no decision passes. A line that goes on
    with the sentence above it reads that sentence whole: its start (`above`) and its end."""
    raw = _callout_text(line.raw)
    if raw.lstrip().startswith("|") or not raw.strip():
        return None
    rest = finding_item(raw)[0]
    finding = severity_label(rest)
    if finding is not None:
        return finding  # a reasons part holds no findings: this one was not weighed
    if _shapeless(line, raw) and not _prose_value(rest):
        return None
    whole = continues and bool(above)
    text = f"{above} {rest}" if whole else rest
    return sentences_problem(text, continues=continues and not whole, openings=openings)


# The sentence ends a wrapped line's start is found after (`_tail_above`).
_LAST_SENTENCE_END = compile_lazily(r".*[.!?。！？][*_`)\"'”]*\s")


def _tail_above(doc: Doc, index: int, sites: set[int]) -> str:
    """The start of the sentence the line at `index` goes on with: the text of the line above
    after its last sentence end (the whole line when it has none). One line back only, so
    the read stays linear (a sentence that wraps over more lines is read as before). Not a
    verdict line's: what goes on from the answer is read as before (`_beside_answer`)."""
    if index == 0 or index - 1 in sites:
        return ""
    above = _callout_text(doc.lines[index - 1].raw)
    end = _LAST_SENTENCE_END.match(above)
    if end is not None:
        return above[end.end() :].strip()
    # no sentence end: the sentence starts on the line above, unless it wraps further up
    return "" if _continues(doc, index - 1) else finding_item(above)[0].strip()


# A label standing alone on its line ('**Minor:**', 'Suggestions:'), its list below it.
_LABEL_ONLY = compile_lazily(r"[ \t]*[*_]{0,2}([^\W\d_][\w /()-]{0,60}?)[ \t]*[:：][*_]{0,2}[ \t]*")


# 'Reasoning:', '**Re-verification:**': a key of at most four words opens a label's line.
_KEY_OPENING = compile_lazily(
    r"[ \t]*(?:\*\*|__)?[^\W\d_][\w'()-]*(?:[ /][\w'()-]+){0,3}(?:\*\*|__)?[:：]"
)
_ANSWER_DECOR = " \t*_.!✅✔☑🚀🎉👍"


def _beside_answer_above(doc: Doc, index: int, sites: set[int]) -> bool:
    """The line goes on from a verdict line that ends with its yes ('**Code quality:** ✅
    APPROVED' / 'Open item the implementer must still handle: …'): the same paragraph, so it
    stands beside the answer and is read whole — unless it opens a label of its own."""
    above = index - 1
    if above not in sites or _KEY_OPENING.match(doc.lines[index].raw):
        return False
    value = doc.lines[above].clean.rstrip(_ANSWER_DECOR)
    said = hits(value)
    return bool(said) and said[-1].decision is _A and said[-1].end >= len(value)


def _under_advisory_label(line: Line, inside: bool) -> bool:
    """Whether `line` is an item of (or the label opening) a list under an advisory label:
    the findings it lists are graded by that label, not the reviewer's prose after the
    verdict. The list ends at the first line that is neither an item nor indented under one."""
    label = _LABEL_ONLY.fullmatch(line.raw)
    if label is not None:
        return ADVISORY_LABEL.search(clean_value(label.group(1).lower())) is not None
    return inside and (LIST_ITEM.match(line.raw) is not None or line.indent > 0)


def _unread_above(doc: Doc, start: int, anchor: int, covered: frozenset[int]) -> Refusal | None:
    """A line of the deciding round above the verdict in a language nobody here reads: the
    review the verdict sums up was not weighed (a Polish body above an English 'Yes')."""
    for index in range(start, anchor):
        line = doc.lines[index]
        if line.blank or index in covered or not (line.live or line.instruction_like):
            continue
        problem = _unread_language(line)
        if problem is not None:
            return _M, index, f"line {line.number} above the approval: {problem}"
    return None


def _unread_language(line: Line) -> str | None:
    """Letters of a script, or Latin letters of a language, that no vocabulary reads, in a
    word: a letter standing alone is a symbol ('the factor λ'), not a language."""
    text = CODE_SPAN.sub(" ", line.raw)
    if text.isascii():
        return None
    for index, ch in enumerate(text):
        if ch.isascii() or not ch.isalpha():
            continue
        if ch.lower() in _READ_LATIN:
            continue
        name = unicodedata.name(ch, "")
        if name.startswith(_READ_SCRIPTS) and not name.startswith("LATIN"):
            continue
        alone = not _letter_at(text, index - 1) and not _letter_at(text, index + 1)
        if not alone:
            return f"'{ch}' is written in a language mergegate cannot read, so nobody weighed it"
    return None


def _letter_at(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index].isalpha()


def _unknown_heading(line: Line) -> str | None:
    section = line.section
    if section is not None and (section.verdict_like or section.round or section.advisory):
        return None
    if section is not None and section.local:
        return f"the heading '{line.raw.strip()[:60]}' opens something other than the change"
    text = line.clean
    if _REVIEW_PART.search(text) or _FILE_HEADING.search(line.raw):
        return None
    return f"the heading '{line.raw.strip()[:60]}' names no part of a review"


_ANSWER_WORDS = 3


def _answers_question(doc: Doc, index: int) -> bool:
    """A short answer under a question label ('**Breaking changes?**' / 'No.'): the value of
    a field. A question about the verdict itself ('Safe to merge?') is a verdict site the
    grammar already read, so only the other questions' answers reach here."""
    above = doc.lines[index - 1] if index > 0 else None
    if above is None or above.blank or not above.raw.rstrip(" *_`").endswith("?"):
        return False
    return len(WORD.findall(doc.lines[index].raw)) <= _ANSWER_WORDS


def _prose_value(text: str) -> bool:
    """'Note: running the migration deletes every row.': a label whose value is a sentence is
    prose under a label, read like any prose ('Date: 2026-05-01' is not)."""
    _, separator, value = text.partition(":")
    return bool(separator) and len(WORD.findall(value)) >= _PROSE_WORDS


def _worded_value(text: str) -> bool:
    """'Scope: docs only', 'Confidence: low': a label whose value holds a word that is not a
    name's (`_accounting.is_name_word`), which the strict reading holds to the appraisal rule
    like any prose ('Reviewer: Claude (code-reviewer)', 'Date: 2026-03-04' hold none)."""
    key, separator, value = text.partition(":")
    if not separator or TEMPLATE_KEY.fullmatch(key.strip(" \t*_-").lower()):
        return False
    data = _ADDRESS.sub(" ", CODE_SPAN.sub(" ", value))
    return any(not is_name_word(word) for word in WORD.findall(data))


# An e-mail address or a URL in a value is a name ('Claude <noreply@anthropic.com>').
_ADDRESS = compile_lazily(r"\S+@\S+|\w+://\S+")


def _unweighed_line(line: Line, *, continues: bool, above: str) -> str | None:
    """A line in the verdict's own section after it: a finding item, or prose that is not a
    statement. Lines whose shape carries no decision (metadata, signatures …) pass; a line
    that goes on with the sentence above it is read from its first sentence end."""
    raw = _callout_text(line.raw)
    if not raw.strip():
        return None
    rest, finding = finding_item(raw)
    if finding is None:
        finding = _unfinished(raw) or (None if continues else _signed_sentence(raw))
    if finding is not None:
        return finding
    negated = _PREFIXED_NO.search(raw.lower())
    if negated is not None:
        return f"'{negated.group(0)}' says no"
    held = hold_in(line.clean)
    if held is not None:
        return f"'{held}' asks for work first or holds the merge"
    emphasis = _EMPHASIS_ONLY.fullmatch(rest)
    sentence = emphasis is not None and emphasis.group(2).rstrip()[-1:] in SENTENCE_END
    if not sentence and _shapeless(line, raw) and not _prose_value(rest):
        return _value_problem(rest) if _worded_value(rest) else None
    # a sentence that wraps onto this line is read whole, from its start above
    whole = continues and bool(above)
    return prose_problem(f"{above} {rest}" if whole else rest, continues=continues and not whole)


def _value_problem(text: str) -> str | None:
    """A short label's value that waits for an event (`Rollout: after the DBA signs off`,
    `Timing: once Legal OKs the license`: a subordinator of the closed class before a
    subject and a present or future verb, `_awaited`): the field conditions the merge, as a
    condition field does. A noun phrase after it tells what was done (`Commit: 4be07c1
    (after rebase)`, `Reviewed at: after the final push`), and any other value is a name,
    read as before."""
    value = clean_value(norm(text.partition(":")[2]).lower())
    event = awaited_event(value)
    return None if event is None else f"the field's value waits for an event ('{event[1]}')"


def _unfinished(raw: str) -> str | None:
    """A field whose value says the work is not done or done in part, or grades it below
    the middle of its scale (`_result_rows`)."""
    field = unfinished_field(raw)
    if field is not None:
        return f"the field '{field}' says the work is unfinished"
    graded = low_grade_field(raw)
    if graded is not None:
        return f"the field '{graded}' grades the work below its middle"
    open_work = open_work_field(raw)
    if open_work is not None:
        return f"the field '{open_work}' names work still open"
    against = answer_against_field(raw)
    return None if against is None else f"the field '{against}' answers its question against it"


def _signed_sentence(raw: str) -> str | None:
    """A line standing alone in a dash signature's shape whose words are no name's
    (`_accounting`): prose set as a signature, which the approval did not weigh."""
    found = signature_sentence(raw)
    return None if found is None else f"'{found}' stands where a signature goes but is no name"


# A live line that opens with '>' is a GitHub alert's (a quote is never live, `_rendered`):
# the callout's text is the reviewer's, read without its marks; its '[!NOTE]' line is none.
_CALLOUT = compile_lazily(r" {0,3}>[ \t]?(?:[ \t]*\[![a-z]+\][ \t]*$)?", re.I)


def _continues(doc: Doc, index: int) -> bool:
    """`continues_above`, except right after an alert's '[!NOTE]' line: the callout's text
    opens there."""
    above = doc.lines[index - 1].raw if index > 0 else ""
    if above.lstrip().startswith(">") and not _callout_text(above).strip():
        return False
    return continues_above(doc, index)


def _shapeless(line: Line, raw: str) -> bool:
    """`raw` (the line's text as read here) carries no decision by its shape: asked of the
    line itself once per line (`_accounting` asks too), of a callout's text here."""
    return line_carries_no_decision(line) if raw == line.raw else carries_no_decision(raw)


def _callout_text(raw: str) -> str:
    mark = _CALLOUT.match(raw)
    return raw if mark is None else raw[mark.end() :]


def _beside_answer(line: Line, *, appraise: bool) -> str | None:
    """The clauses after the answer on the verdict's own line ('Yes. Take the migration out
    of this PR.') are read like the lines after it; a table row is its cells' (`_accounting`).
    With `appraise` (the strict reading) they must also appraise the change, as the lines
    after it must (`_unappraised_line`)."""
    mark = _REFERENCE_MARK.search(CODE_SPAN.sub(" ", line.raw))
    if mark is not None:
        return f"the reference mark '{mark.group(0)}' points to a note that qualifies the answer"
    if line.raw.lstrip().startswith("|"):
        return None
    clauses = _after_answer(line.raw)
    for clause in clauses:
        problem = clause_problem(clause)
        if problem is not None:
            return f"'{clause.strip()[:60]}' beside the answer {problem}"
    return _unappraised_clause(clauses) if appraise else None


def _after_answer(raw: str) -> list[str]:
    """The clauses of a verdict line after the one that gives the yes."""
    clauses = CLAUSES.split(raw)
    answered = next(
        (
            i
            for i, c in enumerate(clauses)
            if any(h.decision is _A for h in hits(clean_value(c.lower())))
        ),
        len(clauses),
    )
    return clauses[answered + 1 :]


def _unappraised_clause(clauses: list[str]) -> str | None:
    for clause in clauses:
        found = unappraised(clause)
        if found is None:
            continue
        value = clean_value(clause.lower())
        for hit in reversed(hits(value)):  # another yes ('**Ready to merge?** Yes') is no prose
            if hit.decision is _A:
                value = value[: hit.start] + " " + value[hit.end :]
        if unappraised(value) is not None:
            return f"'{found}' beside the answer does not appraise the change"
    return None
