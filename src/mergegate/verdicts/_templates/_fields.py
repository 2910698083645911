"""Building a verdict site from a field a recogniser read, the one-line field readers share,
the `key: value` line shape, and the one bounded YAML reader of the templates."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._text import has_lookalike
from mergegate.verdicts._vocab import LabelKind

__all__ = [
    "KEY_LINE",
    "MAX_YAML_CHARS",
    "field_site",
    "line_fields",
    "load_yaml",
    "with_objections",
]

KEY_LINE = compile_lazily(r"([a-z][a-z0-9_-]{0,40})[ \t]*:(.*)")
"""A `key: value` line (matched from its first character): a lower-case key of at most 41
characters, then the rest of the line. YAML frontmatter (`_frontmatter`) and a GSD report's
top-level fields (`gsd`) read keys alike."""


def field_site(index: int, line: Line, decision: Decision, *, dialect: str, reason: str) -> Site:
    """The site of a verdict field at `line`, scoped like the line (a field under "Alternative
    2" or "File: a.py" is not the document's) and flagged as it is (look-alikes, cap)."""
    return Site(
        index=index,
        decision=decision,
        dialect=dialect,
        reason=reason,
        kind=LabelKind.VERDICT,
        local=line.local,
        part=line.part,
        lookalike=has_lookalike(line.raw),
        capped=line.capped,
    )


def line_fields(
    doc: Doc,
    field: re.Pattern[str],
    decide: Callable[[re.Match[str]], tuple[Decision, str]],
    *,
    name: str,
    max_chars: int,
) -> Recognised | None:
    """Template `name` when some live line of at most `max_chars` is the field `field` as a
    whole (a vote, a review state, a gate): each one a site with the (decision, reason)
    `decide` reads from it, and accounted for; None when there is none."""
    sites = []
    for index, line in enumerate(doc.lines):
        match = field.fullmatch(line.raw) if line.live and len(line.raw) <= max_chars else None
        if match is not None:
            decision, reason = decide(match)
            sites.append(field_site(index, line, decision, dialect=name, reason=reason))
    accounted = frozenset(s.index for s in sites)
    return Recognised(name=name, sites=tuple(sites), accounted=accounted) if sites else None


def with_objections(found: Recognised, *others: Recognised | None) -> Recognised:
    """`found` with the sites of `others` (fields beside the verdict: other votes, the merge
    state, the checks) that do not approve: what keeps the platform from merging refuses."""
    extra = tuple(
        site
        for fields in others
        if fields is not None
        for site in fields.sites
        if site.decision is not Decision.APPROVE
    )
    if not extra:
        return found
    return replace(
        found,
        sites=found.sites + extra,
        accounted=found.accounted | frozenset(s.index for s in extra),
    )


MAX_YAML_CHARS = 200_000


def load_yaml(text: str) -> object:
    """`text` through `yaml.safe_load`, or None when it does not read or is over 200,000
    characters (the callers fall back to their line readers or fail closed)."""
    import yaml  # noqa: PLC0415 - lazy: only a YAML template pays for the loader

    if len(text) > MAX_YAML_CHARS:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None
