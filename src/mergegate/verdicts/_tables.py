"""GFM table rows a template writes around its findings: a table's head (its delimiter row,
or a header row of column names) and the empty row a template keeps in a table with nothing
in it. Read by the blocking-section reader, the superpowers recogniser and `_unweighed`."""

from __future__ import annotations

from mergegate.verdicts._answer import strip_decor
from mergegate.verdicts._lines import Doc, is_delimiter_row, is_table_row
from mergegate.verdicts._signals import NONE_ITEM

__all__ = ["cells_say_none", "table_head"]


def table_head(doc: Doc, index: int) -> bool:
    """A table's delimiter row, or its header row (a delimiter row right below it) of column
    names: cells of at most `_COLUMN_NAME_WORDS` words. A sentence in a header cell ('|
    Blocker: the token leaks |') is not a column name, so it is read as the section's."""
    raw = doc.lines[index].raw
    if not is_table_row(raw):
        return False
    if is_delimiter_row(raw):
        return True
    below = doc.lines[index + 1].raw if index + 1 < len(doc.lines) else ""
    cells = raw.strip().strip("|").split("|")
    return is_delimiter_row(below) and all(len(c.split()) <= _COLUMN_NAME_WORDS for c in cells)


_COLUMN_NAME_WORDS = 3


def cells_say_none(text: str) -> bool:
    """A table row whose every cell is blank or a "none" ('| — | — | None. | |'): the
    empty row a template writes in a blocking table with nothing in it."""
    cells = text.strip().strip("|").split("|")
    return all(not strip_decor(c) or NONE_ITEM.fullmatch(strip_decor(c)) for c in cells)
