"""The verdict block: the lines that stand with a verdict (rule (b)/(c) of `docs/verdicts.md`).

A verdict rarely stands alone: a BMAD gate is one key of a YAML block (`gate: PASS` beside
`status_reason: …`), a prose verdict has its `**Reasoning:**` or `**Notes:**` line under it.
The block is the verdict's paragraph — the non-blank, live lines around it, up to a blank
line, a heading or `BLOCK_REACH` lines either way — and, under a verdict heading, the fields
of that section above it. In it:

* a *reason field* (`reason:`, `status_reason:`, `notes:`, `**Reasoning:**`, `理由：` …, and
  the lines that continue it) is the verdict's own reason: it is read like the rest of the
  verdict's line — a condition or time word that points ahead ('pending fix of …', 'when the
  flag ships'), an obligation, a withdrawal, a contrary verdict or blocking content refuses the
  approval;
* a *condition field* (`Conditions:`, `Caveats:`, `Blocked by:`, `Prerequisites:` …) that names
  anything conditions it;
* every other line before the verdict is read like a line after it (rule (c)).

Below the paragraph, up to the next heading, the verdict's section still holds its fields
(`**Ready to merge?** Yes` / blank / `**Reasoning:** …`): a condition field there conditions
it, and a reason field is read as its reason — the first clause and every clause that opens
with a contrast like the verdict's line, the others like text after it (`clauses_problem`).

YAML frontmatter is the block of its verdict key (`status: clean` beside `reason: …`): its
reason and condition fields are read the same way. Fields nested deeper than the verdict (a
YAML `notes:` under one NFR) speak for their part.
A line is read at most twice (in a paragraph, and as a field of its section), so the check
is linear in the document.
"""

from __future__ import annotations

from collections.abc import Callable

from mergegate.decisions import Decision
from mergegate.verdicts._answer import sentence_problem
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import CONTRAST_OPENING, NONE_ITEM
from mergegate.verdicts._site import Site, strip_label
from mergegate.verdicts._vocab import phrases

__all__ = ["BLOCK_REACH", "block_problem", "condition_section", "names_reason_or_condition"]

BLOCK_REACH = 40
"""How many lines above and below a verdict its block may reach."""

_F = Decision.FIXES
_CLAUSE_BREAK = compile_lazily(r"(?<=[,:，：—–])\s*")
_SENTENCE_END = compile_lazily(r"(?<=[.!?。！？;；])\s+")
_FIELD = compile_lazily(r"[ \t>*+-]*(?:\d{1,3}[.)][ \t]+)?([^:]{1,48}?)[ \t]*:(.*)")
# A table row: its first cell, then the others (a separator row names no label).
_ROW = compile_lazily(r"[ \t]*\|([^|]{1,48})\|(.*?)\|?[ \t]*")
_REASON_FIELDS = frozenset(
    phrases(
        """reason|reasons|reasoning|rationale|status reason|gate reason|decision reason|
verdict reason|notes|note|comment|comments|justification|why|basis|explanation|remarks|
review notes|reviewer notes|gate notes|status notes|details|
理由|原因|备注|说明|判定理由|审查理由|备考|사유|이유|비고|razón|motivo|justificación|notas|nota|
razão|justificativa|observações|raison|motif|remarques|justification|begründung|grund|
anmerkungen|hinweise|motivazione|причина|примечание|обоснование"""
    )
)
_CONDITION_FIELDS = frozenset(
    phrases(
        """condition|conditions|caveat|caveats|prerequisite|prerequisites|blocked by|blocked on|
pending|depends on|dependencies|requires|required before merge|before merge|before merging|
merge conditions|approval conditions|conditions for merge|open items|outstanding|
条件|前提|前提条件|合并条件|待办|条件付き|前提条件|조건|선행 조건|condición|condiciones|
condição|condições|pendiente|pendientes|pendente|pendentes|réserves|conditions préalables|
bedingung|bedingungen|voraussetzung|voraussetzungen|condizione|condizioni|условие|условия"""
    )
)


def block_problem(
    doc: Doc, sites: list[Site], covered: frozenset[int]
) -> tuple[Decision, int, str] | None:
    """(decision, line index, reason) of the first line in an approving verdict's block that
    refuses it, or None. `sites` are the approving sites of the deciding round."""
    site_lines = {s.index for s in sites}
    skip = site_lines | covered
    if any(s.frontmatter for s in sites):
        # The frontmatter is the block of its verdict key: its reason fields count too.
        front = next(s.index for s in sites if s.frontmatter)
        found = _read_block(doc, front, 1, doc.frontmatter_end - 1, site_lines, fields_only=True)
        if found is not None:
            return found
    read_up_to = -1  # sites come in document order: no line is read twice
    fields_up_to = -1  # nor a field below a paragraph, up to its section's end
    for site in sites:
        if site.frontmatter or site.dialect == "json" or site.index <= read_up_to:
            continue
        first, last = _block(doc, site.index, covered)
        section = doc.lines[site.index].section
        if section is not None and section.verdict_like:
            # The verdict's section is its block too ('### Verdict' / 'reason: …' / '' /
            # 'APPROVE.'): its reason and condition fields above the paragraph count.
            start = max(section.line_index + 1, read_up_to + 1)
            found = _read_block(doc, site.index, start, first - 1, site_lines, fields_only=True)
            if found is not None:
                return found
        first = max(first, read_up_to + 1)
        read_up_to = last
        found = _read_block(doc, site.index, first, last, site_lines)
        if found is not None:
            return found
        # Below the paragraph, up to the next heading, a reason or condition field is still
        # the verdict's own ('**Ready to merge? Yes**' / '' / '**Reasoning:** …'): read as
        # its reason (`clauses_problem`), not only as prose after it.
        if last < fields_up_to:
            continue  # its section's fields were read with an earlier verdict's
        fields_up_to = _section_end(doc, last)
        found = _read_block(doc, site.index, last + 1, fields_up_to, skip, below=True)
        if found is not None:
            return found
    return None


# A heading that names a condition field ('## Conditions', '### Before merge', '### Open
# items') is that field written large: the lines of its section are its value. Not the
# labels that also name what the change itself adds or needs ('## Dependencies', '##
# Requires': a review's inventory of new packages), which as a heading describe the change.
_NOT_CONDITION_HEADINGS = frozenset(phrases("dependencies|depends on|requires"))
# A list item's marker, a task box and emphasis before its words ('- [ ] **x**').
_ITEM_MARK = compile_lazily(r"[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:\[[ xX]\][ \t]*)?")
_HEADING_MARKS = " \t*_`'\"#:：.()0123456789"


def condition_section(
    doc: Doc, start: int, covered: frozenset[int]
) -> tuple[Decision, int, str] | None:
    """A section of the deciding round whose heading names a condition field (`##
    Conditions`, `### Before merge`, `### Prerequisites`, `### Open items`) and that holds
    a line other than a "none": it conditions the approval as `Conditions: rotate the key`
    does (`fixes`), above or below the verdict, whether the verdict opens or closes the
    review. One pass over the round: each line is read once."""
    index = start
    while index < len(doc.lines):
        line = doc.lines[index]
        index += 1
        if not line.heading_level or not line.live or not _names_condition(line):
            continue
        while index < len(doc.lines) and not (
            doc.lines[index].heading_level and doc.lines[index].heading_level <= line.heading_level
        ):
            text = _named_item(doc.lines[index], index, covered)
            if text is not None:
                heading = line.raw.strip()[:40]
                why = f"under '{heading}', a condition is attached ('{text[:60]}')"
                return _F, index, f"line {doc.lines[index].number} beside the verdict: {why}"
            index += 1
    return None


def _named_item(item: Line, index: int, covered: frozenset[int]) -> str | None:
    """The words of a shown line of a condition section that names something (not a
    "none"), or None."""
    if not item.live or item.heading_level or index in covered:
        return None
    mark = _ITEM_MARK.match(item.clean)
    text = item.clean[mark.end() if mark else 0 :].strip()
    return text if text and not NONE_ITEM.fullmatch(text) else None


def _names_condition(line: Line) -> bool:
    label = strip_label(line.clean.lstrip("# ")).strip(_HEADING_MARKS)
    return label in _CONDITION_FIELDS and label not in _NOT_CONDITION_HEADINGS


def _section_end(doc: Doc, index: int) -> int:
    """The last line before the next heading after `index` (the end of its section)."""
    end = index
    while end + 1 < len(doc.lines) and not doc.lines[end + 1].heading_level:
        end += 1
    return end


def _block(doc: Doc, index: int, covered: frozenset[int]) -> tuple[int, int]:
    def inside(i: int) -> bool:
        line = doc.lines[i]
        return line.live and not line.blank and not line.heading_level and i not in covered

    first = index
    while first > 0 and index - first < BLOCK_REACH and inside(first - 1):
        first -= 1
    last = index
    while last + 1 < len(doc.lines) and last - index < BLOCK_REACH and inside(last + 1):
        last += 1
    return first, last


def _read_block(
    doc: Doc,
    site: int,
    first: int,
    last: int,
    site_lines: set[int],
    *,
    fields_only: bool = False,
    below: bool = False,
) -> tuple[Decision, int, str] | None:
    """The first refusal among the lines `first`..`last` of the block of the verdict at
    `site`: its reason and condition fields, and (unless `fields_only` or `below`) the other
    lines above it. `below`: the fields stand below the verdict's paragraph, in its section."""
    indent = doc.lines[site].indent
    index = first
    while index <= last:
        line = doc.lines[index]
        if index in site_lines or not (line.live or line.frontmatter) or line.blank:
            index += 1
            continue
        field = _field(line) if line.indent <= indent else None
        end = _continuation_end(doc, index, last) if field is not None else index
        problem = None
        if field is not None:
            kind, value = field
            if below:
                # Below the paragraph it is read like text after the approval: the names of
                # the changed code in it (`DO_NOT_MERGE`) are not the reviewer's words.
                value = _prose_value(line, value)
            value = " ".join([value, *(doc.lines[i].clean for i in range(index + 1, end + 1))])
            problem = _field_problem(kind, value, below=below)
        elif index < site and not (fields_only or below):
            problem = _sentences_problem(line.clean, same_line=False)
        if problem is not None:
            number = line.number
            return problem[0], index, f"line {number} beside the verdict: {problem[1]}"
        index = end + 1
    return None


def _field(line: Line) -> tuple[str, str] | None:
    """('reason' | 'condition', value) when the line is a reason or condition field: a
    `label: value` line, or a table row whose first cell is the label (`| Conditions | … |`
    renders as a field of a key/value table, its other cells the value)."""
    row = _ROW.fullmatch(line.clean)
    if row is not None:
        label, value = row.group(1), row.group(2).replace("|", " ")
    else:
        match = _FIELD.match(line.clean)
        if match is None:
            return None
        label, value = match.group(1), match.group(2)
    label = strip_label(label).strip(" *_`'\"")
    if label in _REASON_FIELDS:
        return "reason", value
    if label in _CONDITION_FIELDS:
        return "condition", value
    return None


def _prose_value(line: Line, value: str) -> str:
    """The field's value without code names (`_names.prose_of`)."""
    match = _FIELD.match(line.prose)
    return match.group(2) if match is not None else value


def names_reason_or_condition(label: str) -> bool:
    """The label names a verdict's reason or condition field ('Notes', 'Caveats')."""
    return label in _REASON_FIELDS or label in _CONDITION_FIELDS


def _continuation_end(doc: Doc, index: int, last: int) -> int:
    """The last line that continues the field at `index` (YAML `>`/`|` blocks and wrapped
    values are indented deeper than their key)."""
    indent = doc.lines[index].indent
    end = index
    while end + 1 <= last and doc.lines[end + 1].indent > indent:
        end += 1
    return end


def _field_problem(kind: str, value: str, *, below: bool) -> tuple[Decision, str] | None:
    text = value.strip(" '\"|>-")
    if kind == "condition":
        if text and not NONE_ITEM.fullmatch(text):
            return _F, f"a condition is attached ('{text[:60]}')"
        return None
    return clauses_problem(text) if below else _sentences_problem(text, same_line=True)


def clauses_problem(
    text: str, *, strict_per_sentence: bool = False, read: Callable[[str], str] | None = None
) -> tuple[Decision, str] | None:
    """A reason field read as the verdict's own reason: its first clause, and every clause
    that opens with a contrast ('Good, but the Phase 3 file must be removed first'), like the
    verdict's own line; its other clauses like the sentences after it ('tests pass when
    re-executed' describes, it does not condition). A reason that is the whole verdict (a
    gate file's `status_reason`) reads each sentence's first clause strictly
    (`strict_per_sentence`), and may first pass each sentence through `read`."""
    first = True
    for sentence in _SENTENCE_END.split(text):
        first = first or strict_per_sentence
        for clause in _CLAUSE_BREAK.split(read(sentence) if read is not None else sentence):
            if not clause.strip():
                continue
            same_line = first or CONTRAST_OPENING.match(clause) is not None
            first = False
            found = sentence_problem(clause, same_line=same_line)
            if found is not None:
                return found
    return None


def _sentences_problem(text: str, *, same_line: bool) -> tuple[Decision, str] | None:
    for sentence in _SENTENCE_END.split(text):
        if sentence.strip():
            found = sentence_problem(sentence, same_line=same_line)
            if found is not None:
                return found
    return None
