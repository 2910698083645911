"""The commands' plain-text tables (rich, `box=None`): one grep-friendly line per row."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mergegate.cli._table import table_lines


def test_a_table_is_a_header_and_one_aligned_line_per_row() -> None:
    lines = table_lines(
        ["worker", "state", "holds", "host"],
        [["w-1", "running", "2", "h (12)"], ["[bold]x[/]", "idle", "10", "-"]],
        right=[2],
        indent=2,
    )
    assert lines == [
        "  worker      state    holds  host",
        "  w-1         running      2  h (12)",
        "  [bold]x[/]  idle        10  -",  # cells are text, never markup
    ]


@given(
    st.lists(
        st.lists(
            st.text(st.characters(codec="ascii", min_codepoint=33), max_size=300),
            min_size=2,
            max_size=2,
        ),
        max_size=5,
    )
)
def test_nothing_wraps_and_nothing_trails(rows: list[list[str]]) -> None:
    lines = table_lines(["a", "b"], rows)
    assert len(lines) == 1 + len(rows)
    assert all(line == line.rstrip() for line in lines)
    for line, row in zip(lines[1:], rows, strict=True):
        assert line.startswith(row[0])
        assert line.endswith(row[1])
