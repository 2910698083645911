"""Bounding, splitting and normalizing untrusted reviewer text.

Everything here is linear in the input: the text is capped, each line is capped, and matching
happens on a normalized copy while the original is kept for evidence and for the look-alike
check. The normalized copy (`norm`) is what a person reads: HTML entities decoded
(`&#78;ot` is `Not`), invisible format characters (zero-width, bidi controls) removed, blanks
that are not white space (the braille blank U+2800, Hangul fillers) made spaces, NFKC, case
folding, Traditional Chinese characters folded to Simplified (`_hanzi`), and in a word that
mixes ASCII letters with others, every letter whose UTS #39
confusable prototype is ASCII replaced by that prototype (a Cyrillic `о` in `nоt` reads `o`;
a whole Cyrillic word stays Cyrillic). The prototypes come from Unicode's
`confusables.txt`, shipped beside this module with its licence header (version in its header;
no maintained PyPI package ships the table). ASCII itself is never remapped: the vocabularies
are written in it.

`hidden_characters` names what a reader cannot see (format characters, blanks, combining marks
stacked on ASCII letters, words mixing ASCII with look-alike letters): the decision refuses to
approve a document that has any, with them as evidence.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from mergegate.verdicts._patterns import compile_lazily

__all__ = [
    "CODE_SPAN",
    "MAX_INPUT_CHARS",
    "MAX_INPUT_LINES",
    "MAX_LINE_CHARS",
    "SENTENCE_END",
    "WORD",
    "BoundedText",
    "bound",
    "has_lookalike",
    "hidden_characters",
    "lookalike_words",
    "norm",
    "skeleton",
    "words_of",
]

MAX_INPUT_CHARS = 1_000_000
"""Only the last 1 M characters are read: verdicts sit at the end (real reviews are well under
100 KB), and hostile input is cut so that time stays bounded whatever the input size."""

MAX_INPUT_LINES = 3_000
"""Of those, only the last 3 000 lines: the longest real review of the 860 documents scored
(1 406 lines) fits twice, and every line after an approval is read by several readers (5 000
reason lines after an approving verdict took 2.2–2.7 s to read strictly, over the 2 s bound of
issue 23), so the line count, not the characters, bounds the time of an approval's reading.
An approval in an input cut to it never approves (`BoundedText.cut`)."""

MAX_LINE_CHARS = 2_000
"""A verdict line is short; only the first 2 000 characters of a line are examined."""

UNMARKED = str.maketrans("", "", "*_`\ufe0f")
"""`str.translate` table that drops emphasis, code marks and the emoji variation selector: a
table cell's or a field's value as read ('**Failed**', '✅️')."""

THEMATIC_BREAK = compile_lazily(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})")
"""A CommonMark thematic break (`---`, `* * *`, `___`), for `fullmatch` of a raw line: where a
GSD report ends its body before the signature, and where a human check's list ends."""

CODE_SPAN = compile_lazily(r"`[^`\n]{1,400}`")
"""An inline code span on one line: what it holds is quoted code or a name (`test_reject`,
`approved: false`), never the reviewer's own words, so readers mask it before reading prose.
Bounded, so that a line of stray backticks costs linear time."""

WORD = compile_lazily(r"[^\W\d_][\w'’-]*")
"""A word of prose: a letter, then letters, digits, apostrophes and hyphens ("don't")."""
SENTENCE_END = ".!?。！？"
"""The characters a sentence ends with, in the scripts read (a line ending in one is whole)."""

# Format characters that render as nothing; inside a verdict word they hide a spoof.
_ZERO_WIDTH = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069"
    "\u3164\ufeff\uffa0"
)
# Blanks that render as white space but are not white space to str.split() or regexes.
_BLANKS = "\u2800\u3164\u115f\u1160\uffa0"
_ZWJ = "\u200d"
_VARIATION_SELECTORS = frozenset(chr(c) for c in range(0xFE00, 0xFE10))
# Scripts whose letters look like Latin ones (а/a, о/o, Υ/Y ...).
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LISU")
# Symbols and letters that Unicode names after a Latin letter but NFKC leaves alone: negative
# squared and circled letters (🅽), regional indicators (🇳), small capitals (ɴ). Read from the
# character's name in the Unicode data, not from a hand list.
_NAMED_LATIN = compile_lazily(
    r"(?:NEGATIVE (?:SQUARED|CIRCLED) |SQUARED |CIRCLED |PARENTHESIZED )?LATIN "
    r"(?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?([A-Z])|"
    r"REGIONAL INDICATOR SYMBOL LETTER ([A-Z])"
)
# A whole word of another script is read as a look-alike only from two letters on ('ΝΟ');
# a lone α or μ is a symbol in technical text.
_MIN_WHOLE_WORD = 2


@dataclass(frozen=True, slots=True)
class BoundedText:
    """The part of the input that is processed, split into lines (without line ends)."""

    lines: tuple[str, ...]
    first_line_number: int
    warnings: tuple[str, ...]
    full: tuple[str, ...] = ()
    """The same lines, uncapped (JSON blocks are read whole)."""
    cut: bool = False
    """True when the input was longer than the window and its start was dropped: an approval
    can then never be trusted (the dropped part may hold the real verdict, or the cut may
    start inside a code fence and make an example look live)."""


def bound(text: str) -> BoundedText:
    """Keep the last `MAX_INPUT_CHARS` characters, split into lines, keep the last
    `MAX_INPUT_LINES` of those, cap each line.

    Line numbers of the kept part stay those of the full input, so evidence points at the
    real line. A UTF-8 byte order mark at the very start is dropped: it is an encoding
    artefact, not a look-alike (the same character anywhere else still is one).
    """
    warnings: list[str] = []
    first = 1
    cut = False
    if text.startswith("\ufeff"):
        text = text[1:]
    if len(text) > MAX_INPUT_CHARS:
        cut = True
        total = len(text)
        drop = total - MAX_INPUT_CHARS
        # Start at the first whole line inside the kept window.
        newline = text.find("\n", drop - 1)
        start = newline + 1 if newline >= 0 else drop
        first = 1 + text.count("\n", 0, start)
        text = text[start:]
        warnings.append(
            f"input is {total:,} characters; only the last {MAX_INPUT_CHARS:,} were read "
            f"(from line {first})"
        )
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(raw) > MAX_INPUT_LINES:
        cut = True
        first += len(raw) - MAX_INPUT_LINES
        raw = raw[-MAX_INPUT_LINES:]
        warnings.append(f"only the last {MAX_INPUT_LINES:,} lines were read (from line {first})")
    long_lines = sum(1 for line in raw if len(line) > MAX_LINE_CHARS)
    if long_lines:
        warnings.append(
            f"{long_lines} line(s) longer than {MAX_LINE_CHARS:,} characters were only "
            "read up to that length"
        )
    lines = tuple(line[:MAX_LINE_CHARS] for line in raw)
    return BoundedText(
        lines=lines, first_line_number=first, warnings=tuple(warnings), full=tuple(raw), cut=cut
    )


def norm(text: str) -> str:
    """The text as read (module docstring), for matching only (never for display)."""
    if "&" in text:
        import html  # noqa: PLC0415 - lazy: its entity table loads only for text with an '&'

        text = html.unescape(text)
    if text.isascii():
        return text.lower()  # NFKC and case-folding are the identity/lower() on ASCII
    text = _visible(text)
    folded = unicodedata.normalize("NFKC", text)
    if folded.isascii():
        return folded.casefold()
    # Skeletons before case folding (Greek Ν is N, its lower case ν is v): a look-alike
    # letter in a Latin word, and a whole word of look-alikes foreign to its line, read as
    # Latin; a word of a script the line is written in ('одобрено') stays that language's.
    return _fold_hanzi(unicodedata.normalize("NFC", _read_lines(folded)).casefold())


def _visible(text: str) -> str:
    """`text` with its blanks made spaces and its format characters (category Cf) removed.
    Each distinct character is looked up once (a line of a few hundred emoji has a handful of
    distinct ones), and a line with neither is not copied."""
    table: dict[int, str | None] = {}
    for ch in set(text):
        if ch in _BLANKS:
            table[ord(ch)] = " "
        elif unicodedata.category(ch) == "Cf":
            table[ord(ch)] = None
    return text.translate(table) if table else text


def _fold_hanzi(text: str) -> str:
    """Traditional Chinese read as Simplified (`_hanzi`), loaded only for non-ASCII text."""
    from mergegate.verdicts._hanzi import fold_hanzi  # noqa: PLC0415 - lazy: a 4,000-pair table

    return fold_hanzi(text)


def hidden_characters(text: str) -> tuple[str, ...]:
    """What a reader cannot see in `text`, named (`U+202E`, `look-alike word 'nоt'`).

    Format characters (Unicode category Cf: zero-width, bidi embeddings/overrides/isolates,
    the soft hyphen), blanks that are not white space, combining marks stacked on an ASCII
    letter (real text is precomposed: `é`, not `e` + U+0301) and words that mix ASCII letters
    with letters of a look-alike script. A zero-width joiner inside an emoji sequence and
    variation selectors (the emoji form of ✅) are part of the picture, not hidden.
    """
    if "&" in text:
        text = _unescape(text)  # '&#x202E;' renders as the override itself
    if text.isascii():
        return ()
    found: list[str] = []
    for index, ch in enumerate(text):
        if ch in _VARIATION_SELECTORS:
            continue
        previous = text[index - 1] if index else ""
        if ch in _BLANKS or (unicodedata.category(ch) == "Cf" and not _emoji_joiner(text, index)):
            found.append(f"U+{ord(ch):04X}")
        elif unicodedata.combining(ch) and previous.isascii() and previous.isalpha():
            found.append(f"U+{ord(ch):04X} on '{previous}'")
    found.extend(f"look-alike word {w!r}" for w in words_of(text) if _mixes_lookalikes(w))
    return tuple(dict.fromkeys(found))


def _unescape(text: str) -> str:
    import html  # noqa: PLC0415 - lazy: its entity table loads only for text with an '&'

    return html.unescape(text)


@cache
def _named_latin(ch: str) -> str | None:
    """The Latin letter a symbol or small capital is named after (🅽 → N), or None."""
    if ch.isascii():
        return None
    match = _NAMED_LATIN.fullmatch(unicodedata.name(ch, ""))
    if match is None:
        return None
    letter = match.group(1) or match.group(2)
    return letter.lower() if "SMALL LETTER" in unicodedata.name(ch) else letter


# The blocks of letter symbols (Enclosed Alphanumerics and its Supplement); which of their
# characters read as a Latin letter is decided by `_named_latin`.
_SYMBOL_BLOCKS = ((0x2460, 0x2500), (0x1F100, 0x1F200))


@cache
def _run_pattern() -> re.Pattern[str]:
    """A word: letters and digits, and the symbols that read as a Latin letter (🅽🅾🆃)."""
    symbols = "".join(
        chr(c) for a, b in _SYMBOL_BLOCKS for c in range(a, b) if _named_latin(chr(c))
    )
    return compile_lazily(f"(?:[^\\W_]|[{symbols}])+")


def _runs(text: str) -> list[tuple[int, int]]:
    """Runs of characters that are letters, digits or read as Latin letters (🅽🅾🆃)."""
    return [m.span() for m in _run_pattern().finditer(text)]


def _as_ascii(word: str) -> str | None:
    """A word with no ASCII letter, every character read as ASCII letters (a whole-script
    look-alike: Greek ΝΟΤ, Lisu ꓠꓳꓔ, 🅽🅾🆃, ɴᴏᴛ), as those letters; else None."""
    if _whole_lookalike().fullmatch(word) is None:
        return None  # most words: a letter with no Latin look-alike, or an ASCII letter
    if len(word) < _MIN_WHOLE_WORD and _named_latin(word) is None:
        return None  # a lone α; a lone small capital ɪ is still a Latin letter
    return word.translate(_translation())


def lookalike_words(text: str) -> list[str]:
    """Whole words written in look-alike letters of a script foreign to their line, or in
    letter symbols (Greek ΝΟΤ in an English line, 🅽🅾🆃, ⓃⓄⓉ, ɴᴏᴛ): on a verdict's line they
    refuse it (`has_lookalike`). In a line whose script has letters of its own ('все хорошо,
    одобрено': д), such a word is that language's ('хорошо')."""
    return [w for line in text.split("\n") for w in _foreign_words(line)]


def _foreign_words(line: str) -> list[str]:
    if _plain_line(line):
        return []
    words = [line[a:b] for a, b in _runs(line)]
    whole = [w for w in words if not w.isascii() and _as_ascii(w) is not None]
    if not whole:
        return []
    own = {_script(ch) for w in words if _as_ascii(w) is None for ch in w if not ch.isascii()}
    return [w for w in whole if not {_script(ch) for ch in w} <= own]


@cache
def _script(ch: str) -> str:
    """The script a letter is named in (CYRILLIC, GREEK …); letter symbols and small capitals,
    which no language writes words in, have none of their own."""
    if _named_latin(ch) is not None:
        return "SYMBOL"
    return unicodedata.name(ch, "?").split(" ", 1)[0]


def skeleton(text: str, *, marks: bool = False) -> str:
    """`text` with every word read as the Latin letters it looks like (UTS #39 skeletons,
    for whole words too: Greek ΝΟΤ, Lisu ꓠꓳꓔ, negative squared 🅽🅾🆃, small capitals ɴᴏᴛ,
    a Cyrillic letter in a Latin word), the decision's second reading (`_decide`). A word
    with a letter that looks like no Latin one (Russian 'одобрено') keeps all its letters.
    `marks`: also drop the diacritical marks of alphabets after canonical decomposition
    (DÓ NÓT → DO NOT; Japanese voicing marks stay, and NFKC already read the compatibility
    forms). Same line breaks."""
    if text.isascii():
        return text
    if marks:
        text = _DIACRITICS.sub("", unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFC", _read_lines(text))


# The combining diacritical mark blocks that Latin, Greek and Cyrillic letters carry.
_DIACRITICS = compile_lazily("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff]")
# Where the letters named after a Latin letter live besides the symbol blocks: small capitals
# (IPA Extensions, Phonetic Extensions, Latin Extended-D).
_NAMED_BLOCKS = ((0x0250, 0x0300), (0x1D00, 0x1D80), (0xA700, 0xA800), *_SYMBOL_BLOCKS)


def _read_lines(text: str) -> str:
    return "\n".join(_read_line(line) for line in text.split("\n"))


@cache
def _translation() -> dict[int, str]:
    """Every non-ASCII character read as Latin letters — its UTS #39 prototype, or the letter
    it is named after (symbols, small capitals) — with those letters; compatibility forms
    (fullwidth, mathematical) are left to NFKC."""
    table = {c: t for c, t in _ascii_prototypes().items() if c > 127}
    for a, b in _NAMED_BLOCKS:
        for code in range(a, b):
            named = _named_latin(chr(code))
            if named is not None:
                table[code] = named
    return table


@cache
def _lookalike_chars() -> str:
    return "".join(re.escape(chr(c)) for c in sorted(_translation()))


@cache
def _lookalike_class() -> re.Pattern[str]:
    """One character `_translation` reads as Latin: a line without any is read as written,
    in one search (most non-ASCII text: CJK, emoji, punctuation)."""
    return compile_lazily(f"[{_lookalike_chars()}]")


@cache
def _whole_lookalike() -> re.Pattern[str]:
    return compile_lazily(f"[{_lookalike_chars()}]+")


# A letter beyond ASCII and the scripts with no Latin look-alikes (CJK, kana, Hangul), or a
# letter symbol: only a line with one can hold a look-alike (checked before the table loads).
_MAYBE_LOOKALIKE = compile_lazily(
    "[^\\W\x00-\x7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|"
    "[\u2460-\u24ff\U0001f100-\U0001f1ff]"
)


def _plain_line(line: str) -> bool:
    """True when no word of `line` can be a look-alike: two searches, most text stops at
    the first (ASCII, CJK, emoji)."""
    return (
        line.isascii()
        or _MAYBE_LOOKALIKE.search(line) is None
        or _lookalike_class().search(line) is None
    )


@lru_cache(maxsize=4096)
def _read_line(line: str) -> str:
    """`line` with its look-alike words read as Latin (`skeleton`); lines repeat, so cached."""
    if _plain_line(line):
        return line
    words = [(begin, end, line[begin:end]) for begin, end in _runs(line)]
    wholes = [None if w.isascii() else _as_ascii(w) for _, _, w in words]
    own: set[str] | None = None
    out: list[str] = []
    pos = 0
    for (begin, end, word), whole in zip(words, wholes, strict=True):
        if word.isascii():
            continue
        if whole is not None:
            if own is None:  # the scripts the line is written in: words with own letters
                own = {
                    _script(c)
                    for (_, _, w), f in zip(words, wholes, strict=True)
                    if f is None
                    for c in w
                    if not c.isascii()
                }
            if {_script(c) for c in word} <= own:
                continue  # a word of the line's own language ('хорошо' beside 'одобрено')
            read = whole
        elif any(c.isascii() and c.isalpha() for c in word):
            read = word.translate(_translation())
        else:
            continue
        out.extend((line[pos:begin], read))
        pos = end
    if not out:
        return line
    out.append(line[pos:])
    return "".join(out)


def _mixes_lookalikes(word: str) -> bool:
    """ASCII letters beside letters of another script whose confusable prototype is ASCII
    ('nоt' with a Cyrillic о). Latin letters (Turkish ı) are one script with ASCII, and
    compatibility forms (fullwidth, circled ①) are not hidden: NFKC reads them."""
    if word.isascii() or not any(ch.isascii() and ch.isalpha() for ch in word):
        return False
    table = _ascii_prototypes()
    return any(
        ch.isalpha() and ord(ch) in table and not unicodedata.name(ch, "").startswith("LATIN")
        for ch in word
        if not ch.isascii()
    )


def _emoji_joiner(text: str, index: int) -> bool:
    if text[index] != _ZWJ or index == 0 or index + 1 >= len(text):
        return False
    return all(
        unicodedata.category(c) in ("So", "Sk") or c in _VARIATION_SELECTORS
        for c in (text[index - 1], text[index + 1])
    )


@cache
def _ascii_prototypes() -> dict[int, str]:
    """Non-ASCII characters whose confusable prototype (UTS #39) is ASCII letters or digits."""
    # Imported here: importlib.resources brings pathlib, tempfile, shutil and the compressors
    # (about 10 % of `parse`), and only a non-ASCII word that mixes scripts needs the table.
    from importlib import resources  # noqa: PLC0415

    data = resources.files(__package__).joinpath("confusables.txt").read_text(encoding="utf-8")
    table: dict[int, str] = {}
    for line in data.splitlines():
        if not line or line.startswith("#"):
            continue
        source, _, rest = line.partition(";")
        code = int(source, 16)
        target = "".join(chr(int(part, 16)) for part in rest.split("#", 1)[0].split())
        if code > 127 and target.isascii() and target.isalnum():
            table[code] = target
    return table


def has_lookalike(text: str) -> bool:
    """True when `text` hides a Latin word behind zero-width or look-alike characters.

    Flags: any zero-width/format character but a joiner inside an emoji sequence; U+FFFD
    (bytes that were not valid UTF-8: the line is damaged, so nothing on it can be read as an
    approval); a word that NFKC maps onto
    ASCII letters but is not ASCII (fullwidth ＹＥＳ, mathematical 𝐘𝐞𝐬, ligatures); a word
    mixing ASCII letters with Cyrillic/Greek/... letters; a whole word of two letters or more
    whose every letter reads as a Latin one (`lookalike_words`). Plain CJK, accented Latin,
    punctuation and words with a letter of their own script ('одобрено') are not flagged.
    """
    if text.isascii():
        return False
    if "\ufffd" in text:
        return True
    # A joiner between two emoji (👩‍💻) is part of the picture; anywhere else it hides a spoof.
    if not _ZERO_WIDTH.isdisjoint(text) and any(
        ch in _ZERO_WIDTH and not _emoji_joiner(text, i) for i, ch in enumerate(text)
    ):
        return True
    return any(_word_is_lookalike(word) for word in words_of(text)) or bool(lookalike_words(text))


def _word_is_lookalike(word: str) -> bool:
    if word.isascii():
        return False
    has_ascii_letter = any("a" <= ch.lower() <= "z" for ch in word)
    if has_ascii_letter and any(_is_lookalike_letter(ch) for ch in word if not ch.isascii()):
        return True
    for ch in word:
        if ch.isascii():
            continue
        mapped = unicodedata.normalize("NFKC", ch)
        if mapped != ch and mapped.isascii() and mapped.isalnum():
            return True
    return False


def _is_lookalike_letter(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return name.startswith(_LOOKALIKE_SCRIPTS)


def words_of(text: str) -> list[str]:
    """Maximal runs of letters/digits (zero-width characters kept inside the run)."""
    return _WORD_RUN.findall(text)


# `[^\W_]` is `str.isalnum()` (the regex engine's alphanumeric test is the same one).
_WORD_RUN = compile_lazily(
    r"(?:[^\W_]|[" + "".join(re.escape(ch) for ch in sorted(_ZERO_WIDTH)) + r"])+"
)
