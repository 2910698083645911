"""Plain-text tables for the commands' text output, drawn by rich.

No borders and no colour (`box=None`), so a table stays grep-friendly: one line per row,
columns separated by two spaces, nothing wrapped or cut (the cells are already bounded by
`clean`), no trailing blanks. Cells are text, never markup: untrusted names cannot style it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Literal

from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["table_lines"]

Justify = Literal["left", "right"]
_WIDE = 100_000  # never wrap: a line is as long as its cells


def table_lines(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    right: Sequence[int] = (),
    indent: int = 0,
    header: bool = True,
) -> list[str]:
    """The table's lines, the header first (unless `header` is false; `headers` then only
    count the columns); columns whose index is in `right` are right-aligned; each line starts
    with `indent` spaces."""
    table = Table(
        box=None,
        pad_edge=False,
        padding=(0, 1),
        show_edge=False,
        show_header=header,
        header_style="",
    )
    justify: list[Justify] = ["right" if i in right else "left" for i in range(len(headers))]
    for title, how in zip(headers, justify, strict=True):
        table.add_column(Text(title, justify=how), justify=how, no_wrap=True)
    for row in rows:
        table.add_row(*(Text(cell, justify=how) for cell, how in zip(row, justify, strict=True)))
    out = io.StringIO()
    console = Console(file=out, width=_WIDE, color_system=None, highlight=False, emoji=False)
    console.print(table)
    return [" " * indent + line.rstrip() for line in out.getvalue().splitlines()]
