"""`mergegate.untrusted`: the one home of the rules that make untrusted text fit to show
(`one_line`) or to store (`storable`), and of the plain bound (`bounded`)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.cli._progress import clean
from mergegate.integrations._untrusted import sanitize
from mergegate.untrusted import bounded, one_line, storable

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
