"""Phase and plan identifiers: text, compared by their numeric parts where they have them.

Phase ids are strings (`01`, `14.1`, `999.1`, `Q2a.1`). Two spellings of one number (`1`,
`01`) are the same phase; ids with a non-numeric part are opaque and keep the order the
roadmap gives them.
"""

from __future__ import annotations

import re

__all__ = ["normal_id", "numeric_parts", "slug", "sort_key"]

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normal_id(value: str) -> str:
    """`01` → `1`, `14.01` → `14.1`, `Q2a.1` → `q2a.1`: the form two ids are compared in."""
    parts = value.strip().split(".")
    return ".".join(str(int(part)) if part.isdigit() else part.lower() for part in parts)


def numeric_parts(value: str) -> tuple[int, ...] | None:
    """The numbers of an all-numeric dotted id, None when any part is not a number."""
    parts = value.strip().split(".")
    if not all(part.isdigit() and len(part) <= 12 for part in parts):
        return None
    return tuple(int(part) for part in parts)


def sort_key(value: str, fallback: int) -> tuple[int, tuple[int, ...], int, str]:
    """Numeric ids in numeric order first, then opaque ids in `fallback` (roadmap) order."""
    numbers = numeric_parts(value)
    if numbers is not None:
        return (0, numbers, 0, value)
    return (1, (), fallback, value)


def slug(text: str) -> str:
    """Lower-case words joined by dashes: `Type & Safety Sweep` → `type-safety-sweep`."""
    return _NON_ALNUM.sub("-", text.lower()).strip("-")
