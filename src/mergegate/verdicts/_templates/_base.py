"""What a template recogniser returns: the fields it found in an already-structured document.

A recogniser (one module per format, tried in order by `recognise`) reads the `Doc` built by
`_lines.structure` from the rendered view and either says "not mine" (None) or returns a
`Recognised`: the verdict fields it read (as `Site`s the decision rule weighs like any other),
its sections and whether each is empty, its findings, the lines it accounts for (template
scaffolding such as an empty section's "None." — never read as prose by the generic reader),
the first blocking content it found, and whether its own verdict field is missing or
answered outside the template's vocabulary. It never approves on its own: the one decision rule
(`_decide`) still needs an approving verdict field with every blocking section empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._model import Finding, Severity
from mergegate.verdicts._site import Site

__all__ = ["Recognised", "Recogniser", "SectionFound", "mask"]


@dataclass(frozen=True, slots=True)
class SectionFound:
    """A severity section of a template: its heading line, severity and whether it is empty."""

    title: str
    index: int
    severity: Severity
    empty: bool


@dataclass(frozen=True, slots=True)
class Recognised:
    """The fields one recogniser found (see the module docstring)."""

    name: str
    """The recogniser, reported as the verdict's `dialect`."""
    sites: tuple[Site, ...] = ()
    """Verdict fields it read, with their line and answer."""
    sections: tuple[SectionFound, ...] = ()
    findings: tuple[Finding, ...] | None = None
    """Its own findings; None leaves findings to the generic reader."""
    accounted: frozenset[int] = frozenset()
    """Lines it accounts for: not read as prose, verdicts or findings by the generic reader."""
    blocking: tuple[int, str] | None = None
    """(line index, why) of the first blocking content it found."""
    unanswered: tuple[int, str] | None = None
    """(line index, why) when the template's own verdict field is missing or answered outside
    its vocabulary: whatever else in the document approves, the review is `malformed`."""
    superseded: frozenset[int] = frozenset()
    """Verdict lines its own record shows to be older (a GSD body status the newer frontmatter
    replaces): not read as verdicts, still read for blocking content."""
    whole: bool = False
    """It accounts for the whole document (a file in its own format, such as a YAML gate
    file, read field by field): no line of it is unweighed prose beside the verdict."""


Recogniser = Callable[[Doc], Recognised | None]
"""A recogniser: the document in, its fields or None ("not mine") out."""


def mask(doc: Doc, lines: frozenset[int]) -> Doc:
    """A copy of `doc` in which `lines` are not live (the recogniser accounts for them).

    Nor shown as an instruction's or example's text (`Line.shows`): a line the recogniser
    read as its template's own field is not read again for blocking words by the generic
    reader — GSD's `Anti-Patterns Found` heading reads as an example's, yet its rows are the
    scan's graded inventory."""
    if not lines:
        return doc
    masked = [
        replace(line, live=False, instruction_like=False) if i in lines else line
        for i, line in enumerate(doc.lines)
    ]
    return replace(doc, lines=masked)
