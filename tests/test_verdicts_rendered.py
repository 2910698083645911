"""The verdict gate reads the document as rendered (issue 23, deliverable 1).

Each hostile document puts the approval where it renders as nothing or as someone else's
words, or hides the "no" from a parser that reads source text; none may approve. Each genuine
twin renders the same approval in plain sight and still approves.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

# The summary has its own section: prose above a verdict outside any section is not accounted
# for (`_accounting`), whatever it says.
_BODY = (
    "# Review\n\n## Summary\n\nThe change adds retry logic to the uploader; tests cover the "
    "new path.\n\n"
)
_CRITICAL = "- The retry loop never terminates when the server answers 500.\n"

HOSTILE = {
    # 1. Link-reference definitions render as nothing.
    "linkref_bare": _BODY + "[verdict]: APPROVE\n",
    "linkref_title": _BODY + '[Verdict]: <#approve> "APPROVED"\n',
    # 2. An inline-code '<!--' opens no comment: the Critical section below it is visible.
    "inline_code_comment_opener": _BODY
    + "Note: `<!--` opens a comment.\n\n## Critical\n\n"
    + _CRITICAL
    + "\nClose with `-->`.\n\nVerdict: APPROVE\n",
    # 3. A lazy continuation line renders inside the quote: someone else's words.
    "quote_lazy_continuation": _BODY
    + "The author wrote:\n\n> I think this is fine.\nVerdict: APPROVE\n",
    # 4. Code and headings as rendered.
    "pre_block": _BODY + "<pre>\nVerdict: APPROVE\n</pre>\n",
    "setext_heading_equals": _BODY + "Critical\n========\n\n" + _CRITICAL + "\nVerdict: APPROVE\n",
    "setext_heading_dashes": _BODY
    + "Critical issues\n---------------\n\n"
    + _CRITICAL
    + "\nVerdict: APPROVE\n",
}

GENUINE = {
    "plain": _BODY + "Verdict: APPROVE\n",
    "quote_then_blank": _BODY + "> nit: naming.\n\nVerdict: APPROVE\n",
    "link_reference_beside": _BODY
    + "See [the docs][d].\n\n[d]: https://example.org\n\nVerdict: APPROVE\n",
    "inline_code_comment_opener": _BODY + "Note: `<!--` opens a comment.\n\nVerdict: APPROVE\n",
    "details_notes": _BODY
    + "<details>\n<summary>Notes</summary>\n\nThe naming is consistent.\n\n</details>\n\n"
    + "Verdict: APPROVE\n",
    "setext_summary_heading": _BODY + "Summary\n=======\n\nAll good.\n\nVerdict: APPROVE\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_verdict_rendered_hostile_does_not_approve(name: str) -> None:
    assert parse_verdict(HOSTILE[name]).decision is not Decision.APPROVE


@pytest.mark.parametrize("name", sorted(GENUINE))
def test_verdict_rendered_genuine_twin_approves(name: str) -> None:
    assert parse_verdict(GENUINE[name]).decision is Decision.APPROVE


@pytest.mark.parametrize(
    "text",
    [
        _BODY + "<!-- Verdict: APPROVE -->\n",
        _BODY + "<!--\nVerdict: APPROVE\n-->\n",
        _BODY + "```\nVerdict: APPROVE\n```\n",
        _BODY + "- Example of output:\n\n      Verdict: APPROVE\n",
    ],
)
def test_verdict_rendered_nothing_or_code_never_approves(text: str) -> None:
    """Regression pins (main already refused these): comments and code carry no verdict."""
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_verdict_details_content_counts_as_visible() -> None:
    """`<details>` content is visible text (one click away): a "no" inside it counts."""
    text = (
        _BODY + "Verdict: APPROVE\n\n<details>\n<summary>More</summary>\n\n## Critical\n\n"
        "- SQL injection in the query builder.\n\n</details>\n"
    )
    assert parse_verdict(text).decision is not Decision.APPROVE


# 5. The "no" written so that a source-text parser misses it, or hidden characters near a verdict.
_APPROVED = _BODY + "Verdict: APPROVE\n\n"
HIDDEN_NO = {
    "cyrillic_o_in_not": _APPROVED + "n\u043et approved yet: the retry loop never ends.\n",
    "cyrillic_e_in_requested": _APPROVED + "Changes r\u0435quested.\n",
    "greek_omicron_in_not": _APPROVED + "N\u03bfT APPROVED.\n",
    "combining_mark_in_not": _APPROVED + "Actually: no\u0301t approved.\n",
    "braille_blank_in_not": _APPROVED + "not\u2800approved yet: the retry loop never ends.\n",
    "hangul_filler_in_not": _APPROVED + "not\u3164approved.\n",
    "zero_width_space_in_not": _APPROVED + "n\u200bot approved.\n",
    "entity_decimal": _APPROVED + "&#78;ot approved.\n",
    "entity_named_nbsp": _APPROVED + "not&nbsp;approved\n",
    "entity_hex_in_requested": _APPROVED + "Changes &#x72;equested.\n",
    "bidi_isolates_beside_verdict": _BODY + "Verdict: APPROVE \u2066\u2069\n",
    "bidi_override_elsewhere": _APPROVED + "Reviewed by \u202eeno\u202c.\n",
}


@pytest.mark.parametrize("name", sorted(HIDDEN_NO))
def test_verdict_hidden_no_does_not_approve(name: str) -> None:
    assert parse_verdict(HIDDEN_NO[name]).decision is not Decision.APPROVE


def test_verdict_hidden_characters_are_reported_as_evidence() -> None:
    verdict = parse_verdict(_APPROVED + "Reviewed by \u202eeno\u202c.\n")
    assert verdict.decision is Decision.MALFORMED
    assert any("U+202E" in reason for reason in verdict.reasons)


@pytest.mark.parametrize(
    "text",
    [
        _BODY + "**Verdict:** APP\u200dROVED\n",
        _BODY + "**Verdict:** APPROVED \u200d\n",
    ],
)
def test_verdict_joiner_outside_an_emoji_refuses(text: str) -> None:
    """A zero-width joiner that joins no emoji hides something: never an approval."""
    assert parse_verdict(text).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "text",
    [
        _BODY + "Все тесты проходят. ✅ 👩\u200d💻\n\nVerdict: APPROVE\n",
        # Letters of the read Latin-script languages and enclosed numerals are no look-alikes.
        # (Turkish here was refused once the round above a verdict was read for languages
        # nobody here reads: `test_verdicts_after.py`.)
        _BODY + "Les tests passent, fichier fermé. Revisión completa: ① ② ③.\n\nVerdict: APPROVE\n",
        _BODY + "Use `a &amp; b` as before.\n\nVerdict: APPROVE\n",
        _BODY + "**Verdict:** APPROVED 🧑\u200d💻 ship it\n",
        _BODY + "**Verdict:** APPROVED ✅\ufe0f\n",
    ],
)
def test_verdict_genuine_other_scripts_still_approve(text: str) -> None:
    """Whole words of another script, Latin letters, emoji sequences, circled digits and
    entities that decode to harmless text hide nothing."""
    assert parse_verdict(text).decision is Decision.APPROVE


# 6. YAML frontmatter as YAML reads it, comments honoured.
@pytest.mark.parametrize(
    "front",
    [
        "status: passed  # pending\n",
        "status: clean # until the migration lands\n",
        'status: passed\ncritical: "1"\n',
        "status: passed\nfindings: {critical: 1, warning: 0}\n",
        "status: passed\nsummary: [{blockers: 2}]\n",
    ],
)
def test_verdict_frontmatter_hostile_does_not_approve(front: str) -> None:
    assert parse_verdict("---\n" + front + "---\n\n" + _BODY).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "front",
    ["status: passed\ncritical: 0\n", 'status: passed\nfindings: {critical: "0"}\n'],
)
def test_verdict_frontmatter_genuine_twin_approves(front: str) -> None:
    assert parse_verdict("---\n" + front + "---\n\n" + _BODY).decision is Decision.APPROVE


def test_verdict_frontmatter_aliases_are_walked_within_a_budget() -> None:
    """A billion-laughs block is refused or read, in bounded time, never approved wrongly."""
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    lines += [
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]"
        for i in range(8)
    ]
    text = "---\nstatus: passed\n" + "\n".join(lines) + "\ncritical: 1\n---\n\n" + _BODY
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_verdict_inline_comment_across_lines_hides_its_approval() -> None:
    text = _BODY + "Reviewed <!--\nVerdict: APPROVE\n--> the change.\n"
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_verdict_long_document_with_markup_is_not_rendered_and_never_approves() -> None:
    """Past `MAX_VIEW_CHARS` markdown-it is not run (its cost on hostile shapes): the document
    was read as source text only, so its approval is not trusted."""
    from mergegate.verdicts._rendered import MAX_VIEW_CHARS

    # long lines: past the view's characters, well inside the line window (`MAX_INPUT_LINES`)
    line = "> quoted context line, long enough that the lines stay few: " + "x" * 60 + "\n"
    filler = line * (MAX_VIEW_CHARS // len(line) + 10)
    verdict = parse_verdict(_BODY + filler + "\nVerdict: APPROVE\n")
    assert verdict.decision is Decision.MALFORMED
    assert any("too long to read as rendered" in reason for reason in verdict.reasons)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a `<!--` b", "a  b"),
        ("a ``x ` y`` b", "a  b"),
        ("a `unclosed <!--", "a `unclosed <!--"),
        ("``` a ` b ```c``", "c``"),
    ],
)
def test_code_spans_are_found_as_commonmark_pairs_them(text: str, expected: str) -> None:
    from mergegate.verdicts._rendered import _code_spans

    kept, pos = [], 0
    for begin, end in _code_spans(text):
        kept.append(text[pos:begin])
        pos = end
    assert "".join(kept) + text[pos:] == expected


@pytest.mark.parametrize(
    "footnote",
    ["REJECTED", "Not approved until the rollback is fixed."],
)
def test_verdict_footnote_is_visible_text_and_counts(footnote: str) -> None:
    """A footnote renders (at the foot, without its marker): its "no" counts; a one-word one
    is not a link-reference definition that renders as nothing."""
    text = _BODY + "Verdict: APPROVE[^1]\n\n[^1]: " + footnote + "\n"
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_verdict_footnote_is_never_accounted_for() -> None:
    """Whatever a footnote says, it qualifies the text that refers to it: an approving
    document with one is `malformed`, the footnote its evidence (`_accounting`)."""
    text = _BODY + "Verdict: APPROVE[^1]\n\n[^1]: Thanks to the team for the quick turnaround.\n"
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.MALFORMED
    assert verdict.evidence is not None
    assert "Thanks" in verdict.evidence.text
    assert parse_verdict(_BODY + "Verdict: APPROVE\n").decision is Decision.APPROVE


# What a reader sees of a line is read, not its markup: a "no" or a blocker inside inline
# HTML, or as a link's text, shows as plain words.
SHOWN_THROUGH_MARKUP = {
    "sub_blocking": "**Verdict:** APPROVED\n\n<sub>Blocking: it drops the table.</sub>\n",
    "span_no": '**Verdict:** APPROVED\n\n<span title="x">Do not merge.</span>\n',
    "link_text_no": "**Verdict:** APPROVED\n\n[Do not merge](https://example.com/why)\n",
    "link_titled": '**Verdict:** APPROVED\n\n[Do not merge](https://example.com "why")\n',
    "strong_html": "**Verdict:** APPROVED\n\n<strong>Blocking:</strong> the token leaks.\n",
}


@pytest.mark.parametrize("name", sorted(SHOWN_THROUGH_MARKUP))
def test_a_no_shown_through_inline_markup_does_not_approve(name: str) -> None:
    verdict = parse_verdict(SHOWN_THROUGH_MARKUP[name])
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_a_link_to_a_file_named_like_a_no_is_still_a_name() -> None:
    text = "**Verdict:** APPROVED\n\nSee [the notes](docs/do_not_merge.md) for context.\n"
    assert parse_verdict(text).decision is Decision.APPROVE


def test_a_line_shown_as_rendered_forgets_its_old_reading() -> None:
    # Every cached reading of a line (normalised, cleaned, prose, shape) follows its text
    # as rendered: a reading cached before a comment was blanked would read the comment.
    from mergegate.verdicts._lines import Line

    line = Line(number=1, raw="<!-- Verdict: APPROVE --> Verdict: REJECT")
    assert "approve" in line.low
    assert "approve" in line.clean
    assert "approve" in line.prose
    line.shapeless = True
    line.show(" Verdict: REJECT")
    assert "approve" not in line.low
    assert "approve" not in line.clean
    assert "approve" not in line.prose
    assert line.shapeless is None
