"""A review filled in under an echoed template heading (`## Output Format`, `## Your Output`).

A reviewer asked to answer "in this format" sometimes copies the prompt's heading above its
answer. The heading looks like an example, so everything under it is read as not the
reviewer's own (`_lines`): a genuine review is refused. This module decides, from structure
alone, when such a section *is* the review:

* the example-like heading opens the document's body (nothing but frontmatter before it) and
  its section runs to the end (no later heading at its level or above): there is no other text
  of the reviewer's that it could be an example *for*;
* read as the reviewer's own, nothing in it is still a template, an instruction or an example
  by itself (a choice such as `Yes/No/With fixes`, a nested `### Example`, "Use this format:"):
  it is filled in;
* a template recogniser claims it and finds its findings sections (superpowers'
  `Critical (Must Fix)` …) or findings blocks (Megazord): the findings are accounted for.

Then the document is read again with that heading as an ordinary one, under every rule of
`_decide` (an approval still needs its verdict field, every blocking section empty, every line
accounted for). Otherwise it is read as before. Promotion only makes text count: a "no" under
such a heading refuses either way, so it never lets an approval through.
"""

from __future__ import annotations

from mergegate.verdicts._headings import heading_kind
from mergegate.verdicts._lines import Doc, structure
from mergegate.verdicts._templates import recognise
from mergegate.verdicts._text import BoundedText, norm

__all__ = ["as_echoed_review"]


def as_echoed_review(doc: Doc, bounded: BoundedText) -> Doc | None:
    """`doc` read again with its echoed heading as the review's own, or None (not one)."""
    heading = _enclosing_example_heading(doc)
    if heading is None:
        return None
    again = structure(
        bounded.lines,
        bounded.first_line_number,
        full=bounded.full,
        cut=bounded.cut,
        echoed=heading,
    )
    if any(line.instruction_like for line in again.lines[heading + 1 :]):
        return None  # still a template, an instruction or an example somewhere inside
    found = recognise(again)
    if found is None or not (found.sections or found.findings):
        return None
    return again


def _enclosing_example_heading(doc: Doc) -> int | None:
    """The index of an example-like heading that opens the body and whose section runs to
    the end of the document, or None."""
    body = range(max(doc.frontmatter_end + 1, 0), len(doc.lines))
    first = next((i for i in body if doc.lines[i].raw.strip()), None)
    if first is None:
        return None
    line = doc.lines[first]
    level = line.heading_level
    if not level:
        return None
    text = line.heading_text
    if not heading_kind(text, norm(text).strip(" *_`:"), level).example:
        return None
    later = (doc.lines[i].heading_level for i in range(first + 1, len(doc.lines)))
    if any(0 < other <= level for other in later):
        return None
    return first
