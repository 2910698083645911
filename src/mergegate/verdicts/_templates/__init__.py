"""Template recognisers: one module per review format, tried in order.

Each module has a `NAME` and a `recognise(doc)` that returns the fields it found
(`Recognised`) or None ("not mine"). The first recogniser that claims a document reports its
name as the verdict's dialect; what it read joins the generic reading (`_grammar`, the
verdict-line reader, which always runs last) under the one decision rule of `_decide`. To add
a format: add a module here with its tests, and list it in `RECOGNISERS` (`docs/verdicts.md`).
"""

from __future__ import annotations

from mergegate.verdicts._lines import Doc
from mergegate.verdicts._templates import (
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
spectacular comes before superpowers, whose template it uses under a stricter gate."""


def recognise(doc: Doc) -> Recognised | None:
    """The fields of the first recogniser that claims `doc`, or None (generic reading only)."""
    for _, recogniser in RECOGNISERS:
        found = recogniser(doc)
        if found is not None:
            return found
    return None
