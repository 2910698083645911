"""superpowers' code-reviewer template: severity sections, then `**Ready to merge?**`.

    ### Issues
    #### Critical (Must Fix)      ← blocking
    #### Important (Should Fix)   ← blocking
    #### Minor (Nice to Have)
    ### Assessment
    **Ready to merge?** Yes | No | With fixes

A section is a heading (or a bold line standing alone) whose title names a severity; it holds
the lines up to the next heading of the same or a higher level. A section whose every line says
"nothing here" (`_none.says_none`) is empty: its heading and those lines are accounted for, so
the generic reader neither reads "(Must Fix)" as blocking prose nor "None found" as a finding.
A Critical section that lists something (`_critical_item`) is blocking content. Other
sections with content are left to the generic reader (the shared corpus labels an approval
beside Important items an approval: the reviewer weighed them). The `Ready to merge?` question
itself is read by the generic grammar (`_grammar`, dialect `superpowers`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from mergegate.decisions import Decision
from mergegate.verdicts import _accounting as accounting  # a module: it reads the templates too
from mergegate.verdicts._answer import sentence_problem
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._blocking import says_nothing
from mergegate.verdicts._composed_phrases import DONE
from mergegate.verdicts._lines import Doc, Line, is_table_row
from mergegate.verdicts._model import Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import CONTRAST_OPENING
from mergegate.verdicts._statement import LIST_ITEM, continues_above, wrapped_sentence
from mergegate.verdicts._tables import cells_say_none, table_head
from mergegate.verdicts._templates._base import Recognised, SectionFound
from mergegate.verdicts._templates._none import says_none
from mergegate.verdicts._templates.sdd_stages import stage_sites
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["NAME", "free_section_in", "read_sections", "recognise"]

NAME = "superpowers"

# 'Critical (Must Fix)', 'Important issues'; one section for both blocking severities
# ('Critical／Important', 'Critical and Important') is read as Critical, the stricter.
_TITLE = compile_lazily(
    r"[ \t#*_`]*(?:(critical)(?:[ \t]*(?:[/／&]|and)[ \t]*important)?|(important|minor))"
    r"(?:[ \t]+issues?)?"
    r"(?:[ \t]*\((?:must fix|should fix|nice to have|consider|optional)[^)]{0,30}\))?[ \t*_`:]*",
    re.IGNORECASE,
)
_SEVERITY = {
    "critical": Severity.CRITICAL,
    "important": Severity.IMPORTANT,
    "minor": Severity.MINOR,
}
# Another title with the template's own mark of a blocking severity after it ('Security (Must
# Fix)', 'Data Integrity (must fix before merge)'): the mark, not the name, says what the
# section's items are, so it is a Critical (or Important) section like the template's own.
_MARKED_TITLE = compile_lazily(
    r"[ \t#*_`]*[^()]{1,60}\((must|should)[ \t]+fix(?:[ \t][^)]{0,30})?\)[ \t*_`:]*",
    re.IGNORECASE,
)
_MARKED = {"must": Severity.CRITICAL, "should": Severity.IMPORTANT}
_BOLD_ALONE = compile_lazily(r"[ \t]*(?:\*\*|__)([^*_]{1,40})(?:\*\*|__)[ \t:]*")
# A bold label that closes a section: the template's own next block ('**Ready to merge?**').
_CLOSING_LABEL = compile_lazily(
    r"[ \t]*(?:\*\*|__)[ \t]*(?:ready to merge|reasoning|verdict|assessment|recommendations?|"
    r"summary)[ \t]*[?:]?[ \t]*(?:\*\*|__)",
    re.IGNORECASE,
)

_LABEL_ALONE = compile_lazily(r"[ \t]*(?:\*\*|__)[^*_]{1,40}(?:\*\*|__)[ \t:：]*")
_VERDICT_LABEL = compile_lazily(
    r"[ \t]*(?:\*\*|__)[ \t]*ready to merge[ \t]*[?:]?[ \t]*(?:\*\*|__)", re.IGNORECASE
)


def recognise(doc: Doc) -> Recognised | None:
    """The template's severity sections and a task review's two stages (`sdd_stages`), or
    None when the document has neither a Critical or Important section nor both stages."""
    sections = read_sections(doc, NAME, blocking=frozenset({Severity.CRITICAL}))
    stages = stage_sites(doc)
    if not stages:
        return sections
    if sections is None:
        return Recognised(name=NAME, sites=stages)
    return replace(sections, sites=(*sections.sites, *stages))


def read_sections(doc: Doc, name: str, *, blocking: frozenset[Severity]) -> Recognised | None:
    """The code-reviewer template's severity sections as template `name` reads them: a
    section of a severity in `blocking` that lists something is blocking content. None when
    the document has no Critical or Important section."""
    sections: list[SectionFound] = []
    accounted: set[int] = set()
    found: tuple[int, str] | None = None
    index = 0
    while index < len(doc.lines):
        opened = _opens(doc.lines[index])
        if opened is None:
            index += 1
            continue
        severity, level = opened
        end = _section_end(doc, index, level, blocking=severity in blocking)
        readable = [i for i in range(index + 1, end) if _readable(doc.lines[i])]
        # A table's header and delimiter rows name its columns; its rows are its items.
        heads = [i for i in readable if table_head(doc, i)]
        content = [i for i in readable if i not in heads]
        empty = all(_says_none(doc.lines[i]) for i in content)
        title = doc.lines[index].raw.strip()[:80]
        sections.append(SectionFound(title, index, severity, empty))
        if empty:
            accounted.update([index, *heads, *content])
        elif found is None and severity in blocking:
            found = _listed_item(doc, content, severity)
        index = end
    if not any(s.severity is not Severity.MINOR for s in sections):
        return None
    return Recognised(
        name=name, sections=tuple(sections), accounted=frozenset(accounted), blocking=found
    )


def _listed_item(doc: Doc, content: list[int], severity: Severity) -> tuple[int, str] | None:
    """The first line of a blocking section when it lists something. A section that opens
    with a "nothing here" line or sentence ("None. The branch has no defect that …") and goes
    on to explain, without a contrast or a blocking statement, lists nothing; the generic
    reader still reads its lines."""
    if not content:
        return None
    at = content[0]
    text = doc.lines[at].low
    if says_none(text) or DONE.search(text) or says_nothing(clean_value(text)):
        return None  # an item marked fixed is read by the generic reader, as everywhere
    head, dot, rest = text.partition(". ")
    explained = dot and says_none(head + ".") and not CONTRAST_OPENING.match(rest)
    if explained and sentence_problem(clean_value(rest)) is None:
        return None
    return at, f"the {severity.value} section lists '{text.strip()[:60]}'"


def _says_none(line: Line) -> bool:
    """A "none" line, or a table row of nothing but blanks and "none"s (`| — | — | None. |`)."""
    return says_none(line.low) or (is_table_row(line.raw) and cells_say_none(line.low))


def _readable(line: Line) -> bool:
    # An item that looks like an example ('templates/email.html:14 …') is still listed. A
    # bold label standing alone ('**Reasoning:**') introduces what follows it: that is read.
    return line.shows and not line.blank and _LABEL_ALONE.fullmatch(line.raw) is None


def _opens(line: Line) -> tuple[Severity, int] | None:
    """(severity, level) when the line opens a severity section: a heading whose title is
    only a severity name, or a bold line standing alone (level 7, below every heading)."""
    if not line.live:
        return None
    if line.heading_level:
        text, level = norm(line.heading_text), line.heading_level
    else:
        bold = _BOLD_ALONE.fullmatch(line.raw)
        if bold is None:
            return None
        text, level = norm(bold.group(1)), 7
    match = _TITLE.fullmatch(text)
    if match is not None:
        return _SEVERITY[(match.group(1) or match.group(2)).lower()], level
    marked = _MARKED_TITLE.fullmatch(text)
    return (_MARKED[marked.group(1).lower()], level) if marked is not None else None


def _section_end(doc: Doc, start: int, level: int, *, blocking: bool) -> int:
    """Where the section opened at `start` ends: the next heading of its level or higher, the
    next severity section, or the template's next block. A blocking section ends only at the
    verdict's own label: a `**Reasoning:**` or `**Summary:**` inside Critical opens what it
    lists, not the Assessment."""
    closing = _VERDICT_LABEL if blocking else _CLOSING_LABEL
    for index in range(start + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level and (level == 7 or line.heading_level <= level):
            return index
        if (level == 7 and _opens(line) is not None) or closing.match(line.raw):
            return index
    return len(doc.lines)


# The template's own sections between its Issues and its Assessment (and before them).
_TEMPLATE_HEADING = compile_lazily(r"(?:strengths|issues|recommendations?|assessment)(?![a-z])")


def free_section_in(doc: Doc) -> tuple[Decision, int, str] | None:
    """The strict reading's refusal for prose in a section the template does not have, or None.

    From the first severity section to the `**Ready to merge?**` answer the template holds
    only its own sections (severities, `Recommendations`, `Assessment`). A prose line under
    another heading there (`### Notes`: 'The cron job runs twice after a DST change') is an
    unrecognised sentence beside the approval: it must appraise the change (`_appraisal`),
    or the review is `malformed` — like an SDD log's free note. The sections are named by
    the template's headings, never by what a sentence says; a preamble above the first
    severity section (a title, the scope) is read as before. Only strict: the default
    reading applies the appraisal rule to no other prose either."""
    first = next((i for i, line in enumerate(doc.lines) if _severity_heading(line)), None)
    if first is None:
        return None
    free = False  # the lines stand under a heading the template does not have
    found: tuple[int, str] | None = None
    for index in range(first, len(doc.lines)):
        line = doc.lines[index]
        if _VERDICT_LABEL.match(line.raw):
            return None if found is None else (Decision.MALFORMED, *found)
        if line.heading_level:
            free = not _severity_heading(line) and not _TEMPLATE_HEADING.match(
                norm(line.heading_text)
            )
            continue
        if found is None and free and _unappraised_prose(doc, index):
            why = f"'{line.raw.strip()[:60]}' stands in a section the template does not have"
            found = index, f"line {line.number}: {why} and does not appraise the change"
    return None  # no `Ready to merge?` answer below: not the template's verdict


def _severity_heading(line: Line) -> bool:
    """A heading titled with a severity, accounted for or not (an empty one is masked)."""
    return bool(line.heading_level) and _TITLE.fullmatch(norm(line.heading_text)) is not None


def _unappraised_prose(doc: Doc, index: int) -> bool:
    """A visible line of prose — not a table row, not a line whose shape carries no
    decision, not a line that goes on with the sentence above it (read with that sentence's
    start) — whose sentence does not appraise the change."""
    line = doc.lines[index]
    if line.blank or not line.live or not line.raw.strip() or line.raw.lstrip().startswith("|"):
        return False
    if accounting.line_carries_no_decision(line):
        return False
    if continues_above(doc, index) and LIST_ITEM.match(line.raw) is None:
        return False
    return unappraised(wrapped_sentence(doc, index)) is not None
