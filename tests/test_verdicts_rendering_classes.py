"""Text a reader sees that the parser hid (issue 23, deliverable 1: read as rendered).

A white-box red team found eight classes where a line that renders as ordinary text was skipped
(or read as something else), so a blocking item, a retraction or a "no" written there was never
read. Each class has hostile documents (an approval beside such a no: none may approve) and
genuine twins (the same shape without the no: each still approves). The rendering is
CommonMark's (markdown-it-py) and, for raw HTML, a browser's.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._accounting import _DECORATION, _decoration

_BODY = (
    "# Review\n\n## Summary\n\nThe change adds retry logic to the uploader; tests cover the "
    "new path.\n\n"
)
_OK = "## Verdict\n\nVerdict: APPROVE\n"

HOSTILE: dict[str, str] = {
    # 1. Diff-shaped lines outside a diff: '+ ' is a Markdown bullet, '-1' a paragraph, and
    #    a '- ' bullet right under an '@@' line is a list item, not a diff line.
    "plus_bullet_critical": _BODY
    + "## Findings\n\n+ **Critical:** the retry loop never ends when the server answers 500.\n"
    + "+ Minor: naming.\n\n"
    + _OK,
    "plus_list_retraction": _OK + "\n## Notes\n\n+ Update: I retract my approval, do not merge.\n",
    "minus_one_vote": _OK + "\n## Notes\n\n-1 from me after all: do not merge this.\n",
    "bullet_under_hunk_header": _BODY
    + "## Diff notes\n\n@@ -10,4 +10,6 @@\n- **Critical:** the migration drops the users table.\n\n"
    + _OK,
    "hunk_paragraph_then_bullet": _OK
    + "\n## Notes\n\n@@ -1,3 +1,3 @@\n+ Do not merge: the tests fail on CI.\n",
    # 2. An indented paragraph inside a list item is the item's paragraph, not code.
    "list_item_indented_paragraph": _BODY
    + "## Findings\n\n- Retry logic\n\n    **Critical:** the loop never terminates on 500.\n\n"
    + _OK,
    "ordered_item_indented_paragraph": _BODY
    + "## Findings\n\n10. Upload path\n\n    Must fix before merge: the upload drops the last "
    "chunk.\n\n" + _OK,
    "nested_item_retraction": _OK
    + "\n## Notes\n\n- Follow-up\n\n    I retract my approval: please do not merge.\n",
    # 3. '>' as paragraph text: an indented continuation line is not a quote.
    "gt_continuation": _OK
    + "\n## Notes\n\nOne more thing\n    > Do not merge: the tests fail on CI.\n",
    "gt_continuation_critical": _BODY
    + "## Notes\n\nThe retry path\n    > **Critical:** the loop never terminates on 500.\n\n"
    + _OK,
    # 4. HTML comments as CommonMark 0.31 and browsers read them.
    "empty_comment": _BODY
    + _OK
    + "\n<!-->\n\n## Critical\n\n- The migration drops the users table.\n\n<!-- end -->\n",
    "empty_comment_dash": _BODY
    + _OK
    + "\n<!--->\n\n## Critical\n\n- The migration drops the users table.\n\n<!-- end -->\n",
    "escaped_comment": _BODY
    + _OK
    + "\nNote: \\<!-- is text here.\n\n## Critical\n\n- The migration drops the users table.\n"
    + "\nend -->\n",
    "bang_close": _BODY
    + "<!-- reviewer scratch --!> **Critical:** the migration drops the users table.\n"
    + "-->\n\n"
    + _OK,
    "unclosed_inline_comment": _OK
    + "\n## Notes\n\nThanks <!-- see below\n\nOn second thought, do not merge: the tests fail.\n"
    + "\nbye -->\n",
    # 5. Raw HTML code tags by their whole name; text after '</pre>' on its line shows.
    "preview_tag": _OK + "\n<preview>\nI retract my approval: do not merge.\n</preview>\n",
    "stylenote_tag": _OK + "\n<stylenote>\nI retract my approval: do not merge.\n</stylenote>\n",
    "pre_one_line_then_text": _OK
    + "\n## Notes\n\n<pre>log</pre> On second thought, do not merge: the tests fail.\n",
    # 6. Letters that are symbols; a symbol cell beside the verdict.
    "negative_squared_cell": _BODY + "| Verdict | APPROVED | 🅽🅾🆃 🆈🅴🆃 |\n|---|---|---|\n",
    "circled_cell": _BODY + "| Verdict | APPROVED | ⓃⓄⓉ ⓎⒺⓉ |\n|---|---|---|\n",
    "no_entry_cell": _BODY + "| Verdict | APPROVED | ⛔ |\n|---|---|---|\n",
    "cross_cell": _BODY + "| Verdict | APPROVED | ❌ |\n|---|---|---|\n",
    "cross_in_value_cell": _BODY + "| Verdict | ❌ APPROVED |\n|---|---|\n",
    "cross_before_value": _BODY + "Verdict: ❌ APPROVED\n",
    "no_entry_heading": _BODY + "## Verdict: ⛔ APPROVED\n",
    "letter_symbol_value": _BODY + "Verdict: ⒶⓅⓅⓇⓄⓋⒺⒹ\n",
    "negative_squared_retraction": _OK + "\n## Notes\n\n🅳🅾 🅽🅾🆃 🅼🅴🆁🅶🅴.\n",
    # a symbol outside the decoration list: nobody here knows what it says
    "squared_ng": _BODY + "**Verdict:** APPROVED 🆖\n",
    "squared_prohibited": _BODY + "Ready to merge? Yes 🈲 (see below)\n",
    "skull_cell": _BODY + "| Verdict | APPROVED | 💀 |\n|---|---|---|\n",
    "stop_sign_heading": _BODY + "## 🛇 Verdict: APPROVED\n",
    # 7. Whole words in another script, small capitals, accents, combining marks.
    "greek_not": _OK + "\n## Notes\n\nPlease do ΝΟΤ merge this yet.\n",
    "greek_not_yet": _OK + "\n## Notes\n\nΝΟΤ ΥΕΤ.\n",
    "lisu_not": _OK + "\n## Notes\n\nPlease do ꓠꓳꓔ merge this yet.\n",
    "small_capitals": _OK + "\n## Notes\n\nPlease ᴅᴏ ɴᴏᴛ ᴍᴇʀɢᴇ this yet.\n",
    "small_capitals_retraction": _OK + "\n## Notes\n\nɪ ʀᴇᴛʀᴀᴄᴛ ᴍʏ ᴀᴘᴘʀᴏᴠᴀʟ.\n",
    "accented": _OK + "\n## Notes\n\nPlease DÓ NÓT MÉRGE this yet.\n",
    "greek_combining": _OK + "\n## Notes\n\nPlease do \u039d\u039f\u0301\u03a4 merge this yet.\n",
    # 8. Bidi controls written as HTML entities.
    "bidi_entity": _OK + "\n## Notes\n\nLooks good &#x202E;egrem ton od&#x202C; to me.\n",
    "bidi_entity_named": _OK + "\n## Notes\n\nAll fine &rlm;&#8238;here.\n",
}

GENUINE: dict[str, str] = {
    "plus_bullets": _BODY + "## Strengths\n\n+ Clear names.\n+ Good tests.\n\n" + _OK,
    "minus_bullets": _BODY + "## Strengths\n\n- Clear names.\n- Good tests.\n\n" + _OK,
    "fenced_diff": _BODY
    + "## Diff\n\n```diff\n@@ -1,3 +1,3 @@\n-do not merge\n+Ready to merge? Yes\n```\n\n"
    + _OK,
    "list_item_indented_paragraph": _BODY
    + "## Strengths\n\n- Retry logic\n\n    The loop is capped at three attempts.\n\n"
    + _OK,
    "gt_in_code_span": _BODY + "## Notes\n\nLatency stays `> 5 ms` under load.\n\n" + _OK,
    "comment_block": _BODY + "<!-- reviewer scratch: nothing open -->\n\n" + _OK,
    "pre_block_with_text_after": _BODY
    + "## Log\n\n<pre>all 412 tests passed</pre> as expected.\n\n"
    + _OK,
    "details_block": _BODY
    + "<details>\n<summary>Notes</summary>\n\nThe naming is consistent.\n\n</details>\n\n"
    + _OK,
    "check_cell": _BODY + "| Verdict | APPROVED | ✅ |\n|---|---|---|\n",
    "date_cell": _BODY + "| Verdict | APPROVED | 2026-11-27 |\n|---|---|---|\n",
    "russian_review": "# Ревью\n\n## Итог\n\nВсе хорошо, тесты проходят.\n\nВердикт: одобрено\n",
    "french_review": "# Revue\n\n## Résumé\n\nLe code est clair, les tests passent.\n\n"
    "Décision : approuvé\n",
    "accented_names": _BODY + "## Notes\n\nThanks to José and Zoë for the café module.\n\n" + _OK,
    "greek_math": _BODY + "## Notes\n\nThe backoff uses α = 0.5 and β = 2.\n\n" + _OK,
    "tick_value": _BODY + "Verdict: ✅ APPROVED\n",
    "rocket_answer": _BODY + "## Verdict\n\n**Ready to merge?** Yes 🚀\n",
    "check_table_row_symbols": _BODY
    + "## Checks\n\n| Check | Output | Status |\n|---|---|---|\n| build | √ built | ✓ PASS |\n\n"
    + _OK,
    "emoji": _BODY + "## Notes\n\nNice work 🎉\n\n" + _OK,
    "icon_heading": _BODY + "## 🎯 Verdict\n\n**Ready to merge?** Yes ✨\n",
    "scales_heading": _BODY + "## ⚖️ Verdict: APPROVED 👍\n",
    "numero_line": _BODY + "**Verdict:** APPROVED (review № 2)\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_verdict_rendered_text_that_says_no_is_read(name: str) -> None:
    verdict = parse_verdict(HOSTILE[name])
    assert verdict.decision is not Decision.APPROVE, (name, verdict.reasons)


@pytest.mark.parametrize("name", sorted(GENUINE))
def test_verdict_rendered_genuine_twin_approves(name: str) -> None:
    verdict = parse_verdict(GENUINE[name])
    assert verdict.decision is Decision.APPROVE, (name, verdict.reasons)


def test_verdict_unfenced_diff_line_never_approves_but_says_no() -> None:
    """A pasted diff renders as text: its no counts, its approval (maybe the code under
    review) does not."""
    approve = "@@ -1,3 +1,3 @@\n context\n-old\n+Ready to merge? Yes\n"
    assert parse_verdict(approve).decision is not Decision.APPROVE
    no = _OK + "\n## Notes\n\n@@ -1,3 +1,3 @@\n+Update: I retract my approval.\n"
    assert parse_verdict(no).decision is not Decision.APPROVE


def test_verdict_entity_bidi_is_reported_with_its_code_point() -> None:
    verdict = parse_verdict(HOSTILE["bidi_entity"])
    assert verdict.decision is Decision.MALFORMED
    assert "U+202E" in verdict.reasons[0]


def test_verdict_unknown_symbol_beside_the_verdict_is_named_as_unread() -> None:
    verdict = parse_verdict(HOSTILE["squared_ng"])
    assert verdict.decision is Decision.MALFORMED
    assert any("does not read: '🆖'" in reason for reason in verdict.reasons), verdict.reasons


def test_verdict_lookalike_no_is_read_and_shown_as_written() -> None:
    verdict = parse_verdict(HOSTILE["greek_not"])
    assert verdict.decision is Decision.REJECT, verdict.reasons
    assert verdict.evidence is not None
    assert "ΝΟΤ" in verdict.evidence.text


def test_verdict_accented_no_refuses_with_the_line_as_written() -> None:
    verdict = parse_verdict(HOSTILE["accented"])
    assert verdict.decision is Decision.MALFORMED
    assert verdict.evidence is not None
    assert "NÓT" in verdict.evidence.text
    assert "Latin letters it looks like" in verdict.reasons[0]


@settings(max_examples=300, deadline=None)
@given(st.characters(categories=["So"], exclude_characters="\u200d"))
def test_verdict_a_symbol_outside_the_decoration_list_beside_the_approval_refuses_it(
    symbol: str,
) -> None:
    """Allow-list, not deny-list: any symbol outside the decoration list beside an approving
    verdict refuses it, whatever Unicode adds next."""
    verdict = parse_verdict(f"{_BODY}**Verdict:** APPROVED {symbol}\n")
    if not _decoration(symbol):
        assert verdict.decision is not Decision.APPROVE, symbol


@pytest.mark.parametrize(
    "symbol",
    sorted(ch for ch in _DECORATION if unicodedata.normalize("NFKC", ch) == ch),
)
def test_verdict_each_decoration_beside_the_approval_is_decoration(symbol: str) -> None:
    """The list holds what reviewers set beside a yes, and nothing the parser reads as
    words (a letterlike symbol such as '№' is read as its letters: 'No')."""
    verdict = parse_verdict(f"{_BODY}**Verdict:** APPROVED {symbol}\n")
    assert verdict.decision is Decision.APPROVE, (symbol, verdict.reasons)


@pytest.mark.parametrize("tag", ["textarea", "script", "style", "TEXTAREA"])
def test_verdict_a_tag_filtered_block_shows_its_no(tag: str) -> None:
    """GitHub's tag filter escapes `<textarea>`, `<script>` and `<style>`: what the block
    holds shows as text (a browser shows a textarea's in a box). A blocking line there is
    read; an approval there is not taken (another renderer hides it)."""
    no = f"{_BODY}<{tag}>\nBlocking: the migration drops `users.email`. Do not merge.\n</{tag}>\n\n"
    assert parse_verdict(no + _OK).decision is not Decision.APPROVE
    yes = f"{_BODY}<{tag}>\nVerdict: APPROVE\n</{tag}>\n"
    assert parse_verdict(yes).decision is not Decision.APPROVE
    twin = f"{_BODY}<{tag}>\nThe retry path is tested.\n</{tag}>\n\n"
    verdict = parse_verdict(twin + _OK)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


def test_verdict_a_tag_that_only_starts_like_a_filtered_one_is_text() -> None:
    text = f"{_BODY}{_OK}\n<stylenote>\nDo not merge: the migration drops a table.\n</stylenote>\n"
    assert parse_verdict(text).decision is not Decision.APPROVE


@pytest.mark.parametrize(
    "line",
    [
        "N O T   R E A D Y, wrong branch.",
        "## D O   N O T   M E R G E",
        "d o  n o t  m e r g e",
        "R E J E C T E D",
        "N\u00a0O T  R E A D Y",
    ],
)
def test_verdict_words_in_spaced_out_letters_refuse_an_approval(line: str) -> None:
    """A reader reads 'N O T   R E A D Y' as words; no verdict reader matches single
    letters, so words spelled that way beside an approval refuse it, wherever they stand."""
    for text in (f"{_BODY}{line}\n\n{_OK}", f"{_BODY}{_OK}\n{line}\n"):
        verdict = parse_verdict(text)
        assert verdict.decision is Decision.MALFORMED, (text, verdict.reasons)
        assert "spaced-out letters" in verdict.reasons[0]


@pytest.mark.parametrize(
    "line",
    ["Crockford Base32 drops the letters I L O U.", "Axes x y z are checked.", "Plan A B C."],
)
def test_verdict_spaced_letters_that_spell_nothing_leave_the_approval(line: str) -> None:
    verdict = parse_verdict(f"{_BODY}## Notes\n\n{line}\n\n{_OK}")
    assert verdict.decision is Decision.APPROVE, verdict.reasons


def test_verdict_a_paragraph_indented_under_an_examples_list_item_is_the_examples() -> None:
    """'Output format:' introduces a list; a paragraph indented under one of its items
    (CommonMark: not code, the item's own paragraph) belongs to the example too."""
    text = (
        "Output format:\n**Ready to merge? Yes**\n- Missing auth check in `api.py:12`\n\n    LGTM\n"
    )
    assert parse_verdict(text).decision is not Decision.APPROVE
