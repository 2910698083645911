"""Template recognisers: one module per review format, tried in order.

Each module has a `NAME` and a `recognise(doc)` that returns the fields it found
(`Recognised`) or None ("not mine"). The first recogniser that claims a document reports its
name as the verdict's dialect; what it read joins the generic reading (`_grammar`, the
verdict-line reader, which always runs last) under the one decision rule of `_decide`. To add
a format: add a module here with its tests, and list it in `RECOGNISERS` (`docs/verdicts.md`).
"""

from __future__ import annotations

import re

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates import (
    agentrail,
    bmad,
    gerrit,
    github,
    gsd,
    megazord,
    review_log,
    spectacular,
    superpowers,
)
from mergegate.verdicts._templates._base import Recognised, Recogniser, SectionFound, mask

__all__ = ["RECOGNISERS", "Recognised", "Recogniser", "SectionFound", "mask", "recognise"]

RECOGNISERS: tuple[tuple[str, Recogniser], ...] = (
    (gsd.NAME, gsd.recognise),
    (agentrail.NAME, agentrail.recognise),
    (gerrit.NAME, gerrit.recognise),
    (github.NAME, github.recognise),
    (bmad.NAME, bmad.recognise),
    (megazord.NAME, megazord.recognise),
    (spectacular.NAME, spectacular.recognise),
    (superpowers.NAME, superpowers.recognise),
    (review_log.NAME, review_log.recognise),
)
"""In order: the first that claims a document decides which template it is. GSD comes first:
its open gaps and newer record must not be lost to a template that also matches the body;
AgentRail's review claims only a document with its own numbered Japanese sections;
spectacular comes before superpowers, whose template it uses under a stricter gate."""


# A word each recogniser needs somewhere in the document before it can claim it (its field,
# its section titles, its log labels). Searched once over the whole text, so a document
# without it costs one search instead of a pass over every line (bench: 'short lines').
_NEEDS: dict[str, re.Pattern[str]] = {
    agentrail.NAME: compile_lazily(r"[^\x00-\x7f]"),  # its section titles are Japanese
    gerrit.NAME: compile_lazily(r"code-review|patch ?set"),
    github.NAME: compile_lazily(r"state|decision|review|approved|changes|\"event\""),
    bmad.NAME: compile_lazily(r"gate|senior developer review|qa results"),
    megazord.NAME: compile_lazily(r"finding|issue|bug|review complete"),
    spectacular.NAME: compile_lazily(r"code review|specs/|\.worktrees/"),
    superpowers.NAME: compile_lazily(r"critical|important|minor|spec"),
    review_log.NAME: compile_lazily(r"review"),
}


def recognise(doc: Doc) -> Recognised | None:
    """The fields of the first recogniser that claims `doc`, or None (generic reading only)."""
    text = _plain_text(doc)
    for name, recogniser in RECOGNISERS:
        needs = _NEEDS.get(name)
        if text is not None and needs is not None and needs.search(text) is None:
            continue
        found = recogniser(doc)
        if found is not None:
            return found
    return None


def _plain_text(doc: Doc) -> str | None:
    """The document's lines lower-cased, when that is exactly how the recognisers read them
    (ASCII without an entity: `_text.norm` is `lower()` there); None otherwise, and then
    every recogniser reads the document."""
    text = "\n".join(line.raw for line in doc.lines)
    if not text.isascii() or "&" in text:
        return None
    return text.lower()
