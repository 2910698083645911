"""Approval by allow-list of the whole document: every line that shows is accounted for.

An approving verdict is kept only when each line a reader sees is one of:

* the verdict itself and its paragraph (read by the answer and block readers, `_answer`,
  `_block`);
* a line of a *section*: text under a heading that names a part of a review (summary,
  strengths, findings, testing, security, a file …) — the review's body, whose blocking
  sections must be empty (`_blocking`);
* a line that cannot carry a decision, whatever it says: a heading, a horizontal rule or a
  line of decoration only, a metadata `Key: value` line whose key is not a verdict, status,
  reason or condition key, a signature (`— reviewer-bot`, `Reviewed-by: …`, a short
  emphasised name), a recorded command line (`$ …`, a command with `--flags`), a row of a
  table that holds no verdict, a table's delimiter row;
* invisible or someone else's text: code, quotes, comments, link references, frontmatter
  (each read by its own reader).

A line *can carry a decision* when it is visible prose outside those places: prose before
the first heading (or under the document's title) that is not the verdict's paragraph,
text under a heading that looks like an example, a template or instructions (`Usage`,
`Prompt injection`, `测试用例` — rendered, it is still the reviewer's text, not code), a
footnote (it qualifies whatever refers to it), and a cell beside the verdict in its table
row (`| Verdict | APPROVED | after CI is green |`). Such a line makes an approving document
`malformed`, with that line as evidence: mergegate does not approve what it has not read
as part of a known structure. Linear in the document.
"""

from __future__ import annotations

import unicodedata

from mergegate.decisions import Decision
from mergegate.verdicts._answer import sentence_problem
from mergegate.verdicts._block import names_reason_or_condition
from mergegate.verdicts._courtesy import is_courtesy
from mergegate.verdicts._grammar import find_sites
from mergegate.verdicts._lines import Doc, Line, is_table_row
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site, strip_label
from mergegate.verdicts._statement import label_says_no, negative_imperative
from mergegate.verdicts._text import CODE_SPAN, SENTENCE_END, WORD, norm
from mergegate.verdicts._vocab import clean_value, hits, label_kind, word_set

__all__ = [
    "carries_no_decision",
    "line_carries_no_decision",
    "signature_sentence",
    "unaccounted",
]

_M = Decision.MALFORMED
_LETTER = compile_lazily(r"[^\W\d_]")
_SENTENCE_END = compile_lazily(r"(?<=[.!?。！？;；])\s*")
# 'Key: value' with a short key (markup around it allowed): '**Date:** 2026-01-02'.
_KEY_SEPARATOR = compile_lazily(r"[:：]")
_MAX_KEY_CHARS = 60
_MAX_KEY_WORDS = 4
# A signature: '— reviewer-bot', '-- Alice', 'Reviewed-by: …', 'Signed-off-by: …'.
_SIGNATURE = compile_lazily(r"[ \t]*(?:[—–~]|--)[ \t]*[^\W\d_][^.!?]{0,40}$")
# A commit trailer or a tool's credit line: 'Reviewed-by: …', 'Generated with …'.
_TRAILER = compile_lazily(
    r"[ \t*_]*(?:reviewed[- ]by|signed-off-by|co-authored-by|generated (?:by|with))\b"
)
# A line that is only emphasis: '*Forge Supervisor*', '_reviewer-bot_' (with emoji).
_EMPHASIS_ONLY = compile_lazily(r"[^\w*_]*([*_]{1,3})[^*_]{1,40}\1[^\w*_]*")
_MAX_SIGNATURE_WORDS = 5
# A passed check: at most three words and a check mark ('Spec ✅', '- Lint: ✔').
_CHECK_MARKS = "✅✔☑"
_MAX_CHECK_WORDS = 3
# A longer line ending in a check mark is prose, still read for words that contradict it.
_MAX_CONTRADICTED_WORDS = 12
# Beside an approving verdict, these symbols say no or not yet (a cross, a stop, a warning,
# a pending mark), and so do letter symbols (🅽🅾🆃): the verdict is not accounted for.
_NO_MARKS = frozenset("❌❎✖✗✘⛔🚫🛑⚠👎🔴🟥🟠🟡❗❓⏳⌛🚧⏸⭕")
# The symbols read as decoration beside an approving verdict: marks that say yes, and the
# icons reviewers set before a heading or a label. Unicode has no property for a symbol that
# means no, so any other symbol (🈲 'prohibited', 🆖 'no good') is one nobody here weighed.
_DECORATION = frozenset(
    "✅✔✓☑👍🎉🚀✨🟢🟩💚⭐🌟★☆🏆👏🙌💯🏁🥳😀😊🙂"  # yes
    "📋🎯📊📈📝📌📎📂📁📄📑🗂🧾📅🔧🔨🛠🔩⚙🔍🔎🔬🧪🧬💡🧠🤖🧹🏗🔌🔒🔐🔑🛡⚖🎓📚📖🔗🔵⚪🔷🔶🔹🔸"
    "💬🗒📣📢🔔🧭🗺🏷🎨🖥💻🧑👤👥✍✏🖊📦🚢⚡🔥🔄🔁"  # icons
    "°©®™№ℹ℃℉"
)


# An emoji written as its shortcode (`:warning:`): GitHub and most chat renderers draw it as
# the symbol, so beside a verdict it is read as one. Lower-case names only, not right after a
# word or another colon ('Verdict:APPROVED:' is a label), not in a code span.
_SHORTCODE = compile_lazily(r"(?<![\w:]):([a-z0-9_+-]{1,40}):(?![\w:])")
# The shortcodes of the decoration list's symbols (GitHub's names); any other is a symbol
# nobody here weighed, as a symbol outside `_DECORATION` is.
_DECORATION_NAMES = word_set(
    "white_check_mark heavy_check_mark ballot_box_with_check check +1 thumbsup tada rocket "
    "sparkles star star2 glowing_star green_circle green_square green_heart trophy clap "
    "raised_hands 100 checkered_flag partying_face grinning smile smiley blush "
    "slightly_smiling_face clipboard dart bar_chart chart_with_upwards_trend memo pencil "
    "pushpin paperclip open_file_folder file_folder page_facing_up bookmark_tabs "
    "card_index_dividers receipt date calendar wrench hammer hammer_and_wrench nut_and_bolt "
    "gear mag mag_right microscope test_tube dna bulb brain robot broom building_construction "
    "electric_plug lock closed_lock_with_key key shield balance_scale scales mortar_board "
    "books book link large_blue_circle blue_circle white_circle large_blue_diamond "
    "large_orange_diamond small_blue_diamond small_orange_diamond speech_balloon "
    "spiral_notepad mega loudspeaker bell compass world_map label art desktop_computer "
    "computer technologist bust_in_silhouette busts_in_silhouette writing_hand pencil2 pen "
    "package ship zap fire arrows_counterclockwise repeat information_source"
)
# Shortcodes of `_NO_MARKS`' symbols: named in the refusal as saying no.
_NO_NAMES = word_set(
    "x negative_squared_cross_mark heavy_multiplication_x no_entry no_entry_sign stop_sign "
    "warning thumbsdown -1 red_circle red_square orange_circle yellow_circle exclamation "
    "heavy_exclamation_mark question hourglass hourglass_flowing_sand construction "
    "pause_button o"
)


def _shortcode_beside(text: str) -> str | None:
    """An emoji shortcode on the verdict's line that names no decoration symbol, or None."""
    if ":" not in text:
        return None
    for found in _SHORTCODE.finditer(CODE_SPAN.sub(" ", text)):
        if found.group(1) not in _DECORATION_NAMES and not found.group(1).isdigit():
            return found.group(0)
    return None


def _decoration(ch: str) -> bool:
    """A symbol read as decoration: listed (`_DECORATION`), an arrow, or a box-drawing,
    block or geometric-shape character (a bullet, a table or a frame drawn in text)."""
    return ch in _DECORATION or "\u2190" <= ch <= "\u21ff" or "\u2500" <= ch <= "\u25ff"


def unaccounted(
    doc: Doc, sites: list[Site], covered: frozenset[int], start: int
) -> tuple[Decision, int, str] | None:
    """The first visible line that can carry a decision and is not accounted for, as a
    refusal (`malformed`, its index, why), or None when the whole document is accounted for.

    `sites` are the document's verdict sites (their lines and paragraphs are the verdict's
    own); `covered` the lines read as JSON verdicts; `start` the first line of the deciding
    round (a hidden no of a superseded round is superseded too).
    """
    own = {s.index for s in sites if not s.frontmatter}
    whole = {s.index for s in sites if not s.frontmatter and not s.part}  # not a check's row
    paragraphs = _paragraphs(doc, own, sites)
    title = _title_index(doc)
    # A JSON trailer sums up the prose of its round (`_refusals._after` reads it), so only
    # a prose verdict has a place above it.
    prose = {s.index for s in sites if not s.frontmatter and s.dialect != "json"}
    first_in = _first_site_in_section(doc, prose, title)
    in_field = False  # inside the paragraph of a metadata line: its value goes on
    for index in range(doc.frontmatter_end + 1, len(doc.lines)):
        line = doc.lines[index]
        if index in whole and index >= start and _symbol_beside(line.raw):
            symbol = _symbol_beside(line.raw) or ""
            says = symbol in _NO_MARKS or "LATIN" in unicodedata.name(symbol, "")
            said = "says" if says else "is one mergegate does not read:"
            return _refusal(line, index, f"a symbol beside the verdict {said} '{symbol}'")
        code = _shortcode_beside(line.raw) if index in whole and index >= start else None
        if code is not None:
            said = "says" if code.strip(":") in _NO_NAMES else "is one mergegate does not read:"
            return _refusal(line, index, f"an emoji shortcode beside the verdict {said} '{code}'")
        if line.blank or line.heading_level:
            in_field = False
            continue
        if index in covered or index in paragraphs or not (line.live or line.instruction_like):
            continue
        above = doc.lines[index - 1].raw if index else ""
        in_field = _is_metadata(line.raw) or (in_field and _goes_on(above, line.raw))
        why = None if in_field else _why(line, index, own, first_in, title)
        if why is not None:
            return _refusal(line, index, why)
    return _hidden_no(doc, start)


_WRAPS = ",;:/&+-–—(["


def _goes_on(above: str, text: str) -> bool:
    """A line continues the value of the metadata line above it when that value breaks off
    (a comma, a slash, an open parenthesis …) or the line does not start a sentence of its
    own (no capital letter first: 'src/c.py', 'and the CLI'). 'Date: 2026-11-27' then
    'Please keep this out of main …' is a new sentence, read on its own."""
    head = text.lstrip(" \t>*_`")[:1]
    return above.rstrip()[-1:] in _WRAPS or not (head.isalpha() and head.isupper())


def _refusal(line: Line, index: int, why: str) -> tuple[Decision, int, str]:
    return (
        _M,
        index,
        f"line {line.number} is not accounted for ({why}): an approval stands only when "
        "every line of the document is part of a known structure",
    )


def _section_key(line: Line, title: int | None) -> int:
    """The section a line is in, by its heading's index; -1 for the preamble (no heading,
    or only the document's title above)."""
    section = line.section
    return -1 if section is None or section.line_index == title else section.line_index


def _first_site_in_section(doc: Doc, own: set[int], title: int | None) -> dict[int, int]:
    first: dict[int, int] = {}
    for index in sorted(own):
        first.setdefault(_section_key(doc.lines[index], title), index)
    return first


def _why(
    line: Line, index: int, own: set[int], first_in: dict[int, int], title: int | None
) -> str | None:
    """Why this visible line can carry a decision where it stands, or None."""
    text = line.raw
    if not _LETTER.search(text):
        return None  # decoration, a rule, numbers: nothing a decision can be made of
    if line.footnote:
        # before the verdict's own lines: a footnote that is itself a verdict ('[^1]: Approve
        # a.') still qualifies what refers to it
        return "a footnote qualifies what refers to it"
    if index in own:
        extra = _cells_beside_verdict(text)
        return f"a table cell beside the verdict says '{extra[:60]}'" if extra else None
    if is_table_row(text) or line_carries_no_decision(line):
        return None
    return _above_in_preamble(line, index, first_in, title)


def _above_in_preamble(
    line: Line, index: int, first_in: dict[int, int], title: int | None
) -> str | None:
    """Prose above a verdict that stands outside any section, in no section itself: the
    place a qualification of that verdict stands ('Merge only once …' / 'Verdict: APPROVED').
    A section's text is the review's body; the preamble of a document whose verdict has
    its own section is its introduction; text after the verdict is read like any text after
    an approval (`_refusals`)."""
    verdict_at = first_in.get(-1)
    if _section_key(line, title) != -1 or verdict_at is None or index > verdict_at:
        return None
    return "prose above the verdict, outside any section"


def _hidden_no(doc: Doc, start: int) -> tuple[Decision, int, str] | None:
    """A no, a condition or blocking content under a heading that looks like an example,
    a template or instructions ('Usage', 'Prompt injection', '测试用例'): rendered, it is the
    reviewer's text, so it still counts — against the approval, never for one."""
    hidden = [i for i in range(start, len(doc.lines)) if doc.lines[i].instruction_like]
    if not hidden:
        return None
    no = _no_site_among_hidden(doc, start)
    if no is not None:
        return no
    for index in hidden:
        line = doc.lines[index]
        problem = next(
            filter(None, (sentence_problem(s) for s in _SENTENCE_END.split(line.clean))), None
        )
        if problem is not None:
            return _refusal(line, index, f"{_heading_of(line)}: {problem[1]}")
    return None


def _no_site_among_hidden(doc: Doc, start: int) -> tuple[Decision, int, str] | None:
    """A verdict site that does not approve on the hidden lines alone, read with the same
    grammar (the hidden lines are made the only live ones for that one pass, then restored)."""
    saved = [line.live for line in doc.lines]
    try:
        for line in doc.lines:
            line.live = line.instruction_like
        sites = find_sites(doc)
    finally:
        for line, live in zip(doc.lines, saved, strict=True):
            line.live = live
    for site in sites:
        if site.index >= start and site.decision is not Decision.APPROVE:
            line = doc.lines[site.index]
            reason = f"{site.reason} → {site.decision.value}"
            return _refusal(line, site.index, f"{_heading_of(line)}: {reason}")
    return None


def _heading_of(line: Line) -> str:
    heading = line.section.text[:40] if line.section is not None else ""
    return f"under '{heading}', a heading that looks like instructions but still shows"


def _paragraphs(doc: Doc, own: set[int], sites: list[Site]) -> set[int]:
    """The lines of each verdict's paragraph (up to a blank line or a heading; above it, up
    to a line that ends a sentence), and the answer lines below a label or question
    standing alone."""
    found: set[int] = set()
    below = {s.index for s in sites if s.answer_below}
    for index in own:
        for step in (-1, 1):
            at = index + step
            while 0 <= at < len(doc.lines) and at not in found:
                line = doc.lines[at]
                if line.blank and not (step == 1 and index in below and at == index + 1):
                    break
                if line.heading_level:
                    break
                if step == -1 and line.raw.rstrip(" *_`")[-1:] in SENTENCE_END:
                    break  # a sentence of its own above the verdict: read on its own
                found.add(at)
                at += step
    return found


def _title_index(doc: Doc) -> int | None:
    """The document's title: a first heading of level 1 that is not itself a verdict section.
    Prose under it, before any other heading, stands outside every section."""
    for line in doc.lines[doc.frontmatter_end + 1 :]:
        if line.heading_level and line.section is not None:
            title = line.section
            return title.line_index if title.level == 1 and not title.verdict_like else None
    return None


def _cells_beside_verdict(text: str) -> str | None:
    """Text in a cell after the verdict's label and value in its table row, or None. Only a
    row that opens with a verdict label is a label/value pair ('| Verdict | APPROVED |'); in a
    row of a verdict column ('| T1 | ✓ pass | evidence |') the other cells describe the part
    the row is about (and a part's yes never approves on its own)."""
    if not is_table_row(text):
        return None
    cells = [c.strip() for c in text.strip().strip("|").split("|")]
    worded = [i for i, c in enumerate(cells) if _LETTER.search(norm(c))]
    # the label as written in a cell: 'Verdict', '**Ready to merge?**', 'Decision:'
    label = cells[worded[0]] if worded else ""
    if not worded or label_kind(strip_label(norm(label)).strip(" *_`'\"?:：？")) is None:
        return None
    # A label and its value; a third cell with words says something about the verdict (a
    # symbol in any cell is `_symbol_beside`'s).
    return cells[worded[2]] if len(worded) > 2 else None


def _symbol_beside(text: str) -> str | None:
    """A symbol on an approving verdict's line (a table row: any of its cells) that is not
    read as decoration: one that says no ('❌', '⛔', '⚠': `_NO_MARKS`), a letter symbol
    ('🅽', 'Ⓝ'), or any symbol outside the decoration list (`_decoration`). Numbers, dates,
    punctuation and mathematical signs are not symbols here."""
    if text.isascii():
        return None
    return next(
        (
            ch
            for ch in text
            if not ch.isascii()
            and unicodedata.category(ch) == "So"
            and (ch in _NO_MARKS or "LATIN" in unicodedata.name(ch, "") or not _decoration(ch))
        ),
        None,
    )


def carries_no_decision(text: str) -> bool:
    """A line whose shape carries no decision wherever it stands: metadata, a signature, a
    recorded command, a passed check ('Spec ✅'), a one-word label, a courtesy line ('Thanks
    for the PR!'). What `_after` accepts after an approval besides statements."""
    return (
        _is_metadata(text)
        or _is_signature(text)
        or _is_command(text)
        or _is_passed_check(text)
        or _is_label(text)
        or is_courtesy(text)
    )


def line_carries_no_decision(line: Line) -> bool:
    """`carries_no_decision` of the line's text, read once per line (`Line.shapeless`)."""
    if line.shapeless is None:
        line.shapeless = carries_no_decision(line.raw)
    return line.shapeless


def _checked_words(text: str, most: int) -> str | None:
    """The words (at most `most`) of a check marked as passed ('Spec ✅', '- Lint: ✔')."""
    body = text.strip().rstrip(" *_\ufe0f")
    if not body or body[-1] not in _CHECK_MARKS:
        return None
    words = body[:-1].strip(" \t*_>+-:")
    return words if 1 <= len(words.split()) <= most else None


def _is_passed_check(text: str) -> bool:
    words = _checked_words(text, _MAX_CHECK_WORDS)
    return words is not None and not _says_not_passed(words.lower())


def check_not_passed(text: str) -> str | None:
    """The words of a check marked as passed that say it did not pass or is still to come
    ('Load test not run ✅', 'DBA sign-off pending ✅'): the mark is decoration the words
    contradict, so the check is open. None for any other line."""
    words = _checked_words(CODE_SPAN.sub(" code ", text), _MAX_CONTRADICTED_WORDS)
    if words is None or not _says_not_passed(words.lower()):
        return None
    return words


# Words that say a check did not pass or is still to come, whatever mark stands beside them;
# a failure word after a 'no' is a pass ('No failing tests ✅').
_NOT_PASSED = compile_lazily(
    r"(?<![a-z])(?:not|never|pending|todo|skipped|waiting)(?![a-z])|n't|"
    r"(?<![a-z])(?:failed|failing|fails|broken|missing|blocked)(?![a-z])"
)
_NO_BEFORE = compile_lazily(r"(?<![a-z])(?:no|zero|0|without)(?![a-z])")


# The converse denied, not the check: 'Adapters depend on the domain, not vice versa ✅'
# says the dependency runs one way; the 'not' negates the reverse statement, whole.
_CONVERSE_DENIED = compile_lazily(
    r"(?<![a-z])not (?:vice versa|the other way (?:a)?round|the reverse)(?![a-z])"
)


def _says_not_passed(words: str) -> bool:
    words = _CONVERSE_DENIED.sub(" ", words)
    found = _NOT_PASSED.search(words)
    if found is None:
        return False
    failure = found.group(0) in ("failed", "failing", "fails", "broken", "missing", "blocked")
    return not (failure and _NO_BEFORE.search(words, 0, found.start()))


def _is_label(text: str) -> bool:
    """One word that is no verdict word: a label or a title ('Review.', 'Body'). Not a
    sentence of a script written without spaces, which ends with its full stop
    ('回滚脚本尚未提交。'): one token there is a whole clause."""
    words = text.split()
    if len(words) != 1 or words[0].rstrip(" *_")[-1:] in _CJK_ENDS:
        return False
    return not hits(clean_value(norm(text)))


_CJK_ENDS = "。！？"


def _is_command(text: str) -> bool:
    """A recorded command line: '$ mergegate parse …'. A bare command shape is not enough:
    its words are the reviewer's ('hold --until security-signoff' holds the merge), so
    they are read as prose."""
    return text.split()[:1] == ["$"]


def _is_metadata(text: str) -> bool:
    """'Key: value' whose short key (at most four words, markup and list markers around it)
    is no verdict, status, question, reason or condition key. No regex over the line: the
    key is what stands before the first colon, within its first 60 characters."""
    separator = _KEY_SEPARATOR.search(text, 0, _MAX_KEY_CHARS)
    if separator is None or "|" in text[: separator.start()]:
        return False
    key = norm(strip_label(text[: separator.start()]).strip(" *_`'\""))
    if not key or len(key.split()) > _MAX_KEY_WORDS:
        return False
    if negative_imperative(WORD.findall(key.lower())):
        return False  # 'Do not submit: …' is an instruction set as a label, not a key
    if label_says_no(key) and _LETTER.search(text, separator.end()) is not None:
        return False  # 'Not compliant: req 4 is missing' says no ('Failed: 0' counts none)
    return label_kind(key) is None and not names_reason_or_condition(key)


def _is_signature(text: str) -> bool:
    """A trailer line ('Reviewed-by: …'), or a name standing alone: after a dash ('— Claude
    (code-reviewer)') or wholly emphasised ('*Forge Supervisor*', '_reviewer-bot_'). A name's
    words are capitalised or handles; lower-case words are a sentence ('— pending QA
    sign-off', '**The token leaks.**'), read as the prose it is."""
    folded = text.casefold()
    if _TRAILER.match(folded):
        return True
    if _SIGNATURE.match(folded) is None and not (
        _EMPHASIS_ONLY.fullmatch(text) is not None and len(text.split()) <= _MAX_SIGNATURE_WORDS
    ):
        return False
    return all(is_name_word(word) for word in WORD.findall(CODE_SPAN.sub(" ", text)))


def signature_sentence(text: str) -> str | None:
    """A line in a dash signature's shape whose words are not a name's ('— pending QA
    sign-off', '-- the queue drops jobs on restart', '— bot (not a real approval)'): a
    sentence set where a signature goes. Its text, or None (a name, a trailer, any other
    shape)."""
    folded = text.casefold()
    if _TRAILER.match(folded) or _SIGNATURE.match(folded) is None:
        return None
    words = WORD.findall(CODE_SPAN.sub(" ", text))
    return None if all(is_name_word(word) for word in words) else text.strip()[:60]


# A word of a name: capitalised ('Claude', 'QA') or a handle ('reviewer-bot', 'gsd-verifier',
# 'claude-opus-4'); a word of a script without case is a name's too.
def is_name_word(word: str) -> bool:
    return not word[0].islower() or any(c in "-_.@" or c.isdigit() for c in word)
