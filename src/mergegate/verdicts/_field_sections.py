"""Sections a template fills with fields and tables only: under the strict reading, a prose
line there is outside every field (issue 23, the middle of a body).

GSD's verifier report opens with its title and fields (`**Phase Goal:** …`, `**Verified:**
…`, `**Status:** passed`) and gives its evidence as tables under headings the template names
(`### Observable Truths`, `### Required Artifacts`, `### Key Link Verification`, `###
Requirements Coverage`, `### Behavioral Spot-Checks`). The status in
its frontmatter *opens* the document, so the body below it is the review it sums up, and the
default reading weighs a sentence there only by its mood: a defect told as a plain fact in a
new paragraph between two tables (`Deleting a project leaves its API keys active.`)
approved. Under the strict reading a visible line in such a section must be a table row, a
line whose shape carries no decision (a field, a signature: `_accounting`), or an appraisal
(`_appraisal`: `All 10 requirements satisfied.`); anything else makes the document
`malformed` with the line as evidence (the hook asks for a restatement).

The sections are named by the template (a vocabulary naming its headings, as issue 23
allows), not by what a sentence says. Linear in the document.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._accounting import line_carries_no_decision
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._statement import LIST_ITEM, continues_above, wrapped_sentence
from mergegate.verdicts._vocab import clean_value

__all__ = ["prose_in_field_section"]

_M = Decision.MALFORMED

# GSD verifier's evidence sections (`gsd-verifier`'s template), each filled with a table.
# Not its Data-Flow Trace: the template writes "Not applicable — why" there when no
# component renders data (7 genuine reports of the dev sets do).
_TABLE_SECTION = compile_lazily(
    r"[#\s\d.]*(?:observable truths|required artifacts|key link verification|"
    r"requirements? coverage|behaviou?ral spot[- ]?checks)\b"
)
# The report's title, its fields below it: '# Phase 7: Cleanup Verification Report'.
_REPORT_TITLE = compile_lazily(r"#[ \t]+.*\bverification report\b")


def prose_in_field_section(
    doc: Doc, start: int, covered: frozenset[int]
) -> tuple[Decision, int, str] | None:
    """The first prose line from `start` on in a section the template fills with fields
    and tables only, as a refusal (`malformed`, its index, why), or None (module docstring)."""
    level = 0  # the level of the field section open, 0 when none is
    for index in range(start, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            level = line.heading_level if _field_section(line) else _still_open(level, line)
            continue
        if not level or line.blank or index in covered or not line.live:
            continue
        if level == 1 and LIST_ITEM.match(line.raw):
            continue  # under the title, a list is the report's (files, plans), not a field's
        if _prose(doc, index) and unappraised(wrapped_sentence(doc, index)) is not None:
            why = f"'{line.raw.strip()[:60]}' stands in a section the template fills with fields"
            return _M, index, f"line {line.number}: {why}, so the approval did not weigh it"
    return None


def _field_section(line: Line) -> bool:
    low = line.raw.strip().lower()
    if line.heading_level == 1:
        return _REPORT_TITLE.match(low) is not None
    return _TABLE_SECTION.match(clean_value(low)) is not None


def _still_open(level: int, line: Line) -> int:
    """A subheading inside a field section is part of it ('### Required Artifacts' /
    '#### Plan 02'); a heading of its level or above closes it, and any heading closes the
    title's fields."""
    return level if level > 1 and line.heading_level > level else 0


def _prose(doc: Doc, index: int) -> bool:
    """A line of prose: not a table row, not a line whose shape carries no decision, not a
    line that goes on with the sentence above it (read with that sentence's start)."""
    line = doc.lines[index]
    if line.raw.lstrip().startswith("|") or line_carries_no_decision(line):
        return False
    return not continues_above(doc, index) or LIST_ITEM.match(line.raw) is not None
