"""Struck-through text (GitHub's `~~…~~`, `~…~` and the `<s>`, `<del>`, `<strike>` tags) is
shown crossed out: withdrawn, not said.
A verdict that is struck through is no verdict; a struck-through old verdict beside a new one
leaves the new one. Tildes that are not strikethrough (`~5 s`, `~/path`, code spans, escaped,
three or more) are text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._rendered import blank_struck, blank_struck_html


def _review(verdict_line: str) -> str:
    return f"# Review of task 2\n\n## Summary\n\nThe parser is tidy.\n\n{verdict_line}\n"


@pytest.mark.parametrize(
    "line",
    [
        "**Verdict:** ~~APPROVED~~",
        "Verdict: ~LGTM~",
        "~~**Ready to merge? Yes**~~",
        "~~LGTM~~",
        "## ~~Approved~~",
        "**Verdict:** ~~APPROVED~~ (see below)",
    ],
)
def test_a_struck_verdict_does_not_approve(line: str) -> None:
    assert parse_verdict(_review(line)).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "line",
    [
        "**Verdict:** ~~CHANGES REQUESTED~~ APPROVED",
        "**Ready to merge?** ~~No~~ Yes",
        "Verdict: ~~REJECT~~ APPROVE",
    ],
)
def test_a_struck_old_verdict_leaves_the_new_one(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a ~~b~~ c", "a       c"),
        ("~5 s and ~3 s", "~5 s and ~3 s"),  # a closer must follow a non-space
        ("~/a and ~/b", "~/a and ~/b"),
        ("`~~x~~` y", "`~~x~~` y"),
        ("\\~~x~~ y", "\\~~x~~ y"),
        ("~~~x~~~", "~~~x~~~"),
        ("~~a ~b~ c~~", "           "),
        ("~~ a~~", "~~ a~~"),  # an opener must precede a non-space
        # GFM's flanking rules: punctuation inside a run needs space or punctuation outside
        ("self~~(not yet)~~", "self~~(not yet)~~"),
        ("x~~y~~z", "x     z"),
        ("(~~no~~)", "(      )"),
        ("~~(no)~~ yes", "         yes"),
    ],
)
def test_what_strikethrough_blanks(text: str, shown: str) -> None:
    assert blank_struck(text) == shown


@given(st.text(alphabet="~ ab`\\", max_size=60))
def test_blanking_keeps_length_and_only_ever_blanks(text: str) -> None:
    shown = blank_struck(text)
    assert len(shown) == len(text)
    assert all(b in (a, " ") for a, b in zip(text, shown, strict=True))


def test_tildes_github_does_not_strike_are_read() -> None:
    """An opener with a letter before it and punctuation after it strikes nothing on GitHub:
    the words between the tildes show, and a no among them is read."""
    for line in ("Sorry~~(do not merge)~~", "Update~~(I withdraw my approval)~~"):
        verdict = parse_verdict(f"**Verdict:** APPROVED\n\n{line}\n")
        assert verdict.decision is not Decision.APPROVE, verdict.reasons


# GitHub's sanitizer keeps the HTML strikethrough tags `<s>`, `<del>` and `<strike>`: their
# text is shown crossed out exactly like `~~…~~`.
@pytest.mark.parametrize("tag", ["s", "del", "strike", "S", "DEL"])
@pytest.mark.parametrize(
    "line",
    [
        "**Verdict:** <{t}>APPROVED</{t}>",
        "<{t}>**Ready to merge?** Yes</{t}>",
        "Verdict: <{t}>LGTM</{t}> — withdrawn, see below.",
        "## <{t}>Approved</{t}>",
        '**Verdict:** <{t} class="x">APPROVED</{t} >',
        "**Verdict:** <{t}>APPROVED",  # left open: struck to the end of its block
    ],
)
def test_an_html_struck_verdict_does_not_approve(line: str, tag: str) -> None:
    verdict = parse_verdict(_review(line.format(t=tag)))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("tag", ["s", "del", "strike"])
def test_an_html_struck_old_verdict_leaves_the_new_one(tag: str) -> None:
    verdict = parse_verdict(_review(f"**Verdict:** <{tag}>CHANGES REQUESTED</{tag}> APPROVED"))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a <s>b</s> c", "a          c"),
        ("a <del>b</del> <s>c</s> d", "a              " + " " * 8 + " d"),
        ("`<s>x</s>` y", "`<s>x</s>` y"),  # a code span shows the tags as text
        ("\\<s>x</s> y", "\\<s>x</s> y"),  # escaped: text
        ("<strong>x</strong>", "<strong>x</strong>"),  # another tag
        ("<s>x", "    "),
        ("a < b and <sub>c</sub>", "a < b and <sub>c</sub>"),
    ],
)
def test_what_html_strikethrough_blanks(text: str, shown: str) -> None:
    assert blank_struck_html(text) == shown


@given(st.text(alphabet="<>/sdel `\\ab", max_size=60))
def test_html_blanking_keeps_length_and_only_ever_blanks(text: str) -> None:
    shown = blank_struck_html(text)
    assert len(shown) == len(text)
    assert all(b in (a, " ") for a, b in zip(text, shown, strict=True))
