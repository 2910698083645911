"""`mergegate.untrusted`: the one home of the rules that make untrusted text fit to show
(`one_line`) or to store (`storable`), and of the plain bound (`bounded`)."""

from __future__ import annotations

import unicodedata

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from mergegate.cli._progress import clean
from mergegate.integrations._untrusted import sanitize
from mergegate.untrusted import bounded, fence, md_code, md_text, one_line, storable, yaml_scalar

# bidi embeddings/overrides/isolates and marks, zero-width characters, the BOM
INVISIBLE = (
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069"
    "\ufeff"
)
HOSTILE = st.text(
    st.one_of(
        st.characters(exclude_categories=()),  # surrogates and unassigned too
        st.sampled_from(["\x1b", "\x9b", "\x9d", "\x07", "[", "]", "\\", "\n", "\t", "\r"]),
        st.sampled_from(list(INVISIBLE)),
    )
)


def _is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0


@settings(max_examples=400)
@given(HOSTILE, st.integers(min_value=1, max_value=300))
def test_one_line_is_bounded_visible_and_idempotent(text: str, limit: int) -> None:
    out = one_line(text, limit)
    assert len(out) <= limit
    assert not any(_is_control(ch) and ch not in "\n\t" for ch in out)
    assert "\n" not in out  # one line
    assert "\t" not in out
    assert not any(ch in INVISIBLE for ch in out)
    assert all(unicodedata.category(ch) not in ("Cf", "Cs", "Co", "Cn") for ch in out)
    assert one_line(out, limit) == out


def test_one_line_removes_escape_sequences_with_their_payload() -> None:
    assert one_line("\x1b]0;owned\x07ti\u202etle\x1b[2J  x", 40) == "title x"
    assert one_line("a" * 50, 10) == "a" * 9 + "…"


def test_the_hook_sanitiser_and_the_terminal_cleaner_are_the_one_rule() -> None:
    text = "\x1b[31mred\x1b[0m \u200bwarning\n\nnext"
    assert sanitize(text, 60) == clean(text, 60) == one_line(text, 60) == "red warning next"


@given(st.text(), st.integers(min_value=1, max_value=200))
def test_bounded_is_a_marked_prefix(text: str, limit: int) -> None:
    out = bounded(text, limit)
    assert len(out) <= limit
    assert out == text or (out.endswith("…") and text.startswith(out[:-1]))


@given(st.text(st.characters(exclude_categories=())))
def test_storable_text_encodes_as_utf8_and_is_idempotent(text: str) -> None:
    out = storable(text)
    out.encode("utf-8")
    assert storable(out) == out


def test_storable_replaces_only_lone_surrogates() -> None:
    assert storable("ok \ud800 ok") == "ok \ufffd ok"
    assert storable("plain ✓") == "plain ✓"


# ------------------------------------------------------------------ Markdown records
# Rendered with markdown-it-py (CommonMark + GFM tables), as a reader's viewer shows them.


def _table_cells(row: str) -> list[list[Token]]:
    """The inline tokens of each cell of a one-row table whose header has as many columns."""
    md = MarkdownIt("commonmark").enable("table")
    header = "| a | b | c |\n|---|---|---|\n"
    tokens = md.parse(header + row + "\n")
    body = False
    cells: list[list[Token]] = []
    for t in tokens:
        if t.type == "tbody_open":
            body = True
        if body and t.type == "inline":
            cells.append(t.children or [])
    return cells


def _shown(children: list[Token]) -> str:
    return "".join(t.content for t in children if t.type in ("text", "code_inline"))


_MARKDOWN_TEXT = st.text(
    alphabet=st.sampled_from([*"abmp |\\`*_{}[]<>#~!()-+.:&;\t\n", "é", "\u202e", "\x1b"]),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(_MARKDOWN_TEXT, st.integers(min_value=1, max_value=40))
@example("&amp; &#65; &lt;b&gt;", 40)  # entities show as written, not decoded
@example("[x](javascript:alert(1)) <b>", 40)
def test_md_text_shows_its_one_line_as_written_in_a_table_cell(text: str, limit: int) -> None:
    cells = _table_cells(f"| x | {md_text(text, limit)} | y |")
    assert len(cells) == 3  # nothing in the text closed its cell or opened another
    assert _shown(cells[1]) == one_line(text, limit).strip()
    assert all(t.type in ("text", "softbreak") for t in cells[1])  # no emphasis, link, code


def test_a_command_in_a_record_is_shown_as_it_must_be_typed() -> None:
    # the records used to backslash-escape ids inside code spans, where the backslash shows:
    # `mergegate resume … --answer unit\_1/…` could not be pasted back
    span = md_code("mergegate resume r1 --answer unit_1/TASK=approve|skip", 200)
    rendered = MarkdownIt("commonmark").renderInline(span)
    assert rendered == "<code>mergegate resume r1 --answer unit_1/TASK=approve|skip</code>"


@settings(max_examples=300, deadline=None)
@given(_MARKDOWN_TEXT, st.integers(min_value=1, max_value=40), st.booleans())
def test_md_code_is_one_code_span_of_the_text(text: str, limit: int, in_table: bool) -> None:
    span = md_code(text, limit, in_table=in_table)
    if in_table:
        cells = _table_cells(f"| x | {span} | y |")
        assert len(cells) == 3
        children = cells[1]
    else:
        children = MarkdownIt("commonmark").parseInline(span)[0].children or []
    assert [t.type for t in children] == ["code_inline"]
    expected = one_line(text, limit) or " "
    # CommonMark strips one space from each side of a code span that has one on both
    shown = children[0].content
    assert shown == expected or (expected.startswith(" ") and shown == expected.strip(" "))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["text", "diff", ""]))
def test_fence_holds_the_text_whole(text: str, info: str) -> None:
    tokens = MarkdownIt("commonmark").parse(fence(text, info) + "\n\nafter\n")
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1
    body = text if text.endswith("\n") or not text else text + "\n"
    assert fences[0].content == body.replace("\r\n", "\n").replace("\r", "\n").replace(
        "\0", "\ufffd"
    )
    assert tokens[-2].content == "after"  # the fence closed where it should


@settings(max_examples=300, deadline=None)
@given(st.none() | st.booleans() | st.integers() | st.text(max_size=50))
def test_yaml_scalar_reads_back_as_the_value(value: object) -> None:
    loaded = yaml.safe_load(f"key: {yaml_scalar(value)}\n")["key"]
    assert loaded == (storable(value) if isinstance(value, str) else value)
