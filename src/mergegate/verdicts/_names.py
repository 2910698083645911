"""Names from the changed code inside review prose: not this review's words.

A review talks about the code it read: `test_verdict_reject_empty`, `reject_handler.py`,
`` `REJECTED` ``, `DO_NOT_MERGE`. Those are names, not the reviewer saying "reject" or "do not
merge". `prose_of` takes them out of a line before it is read for withdrawals, contradictions
and conditions: an inline code span holding one token, and any token joining word characters
with `_`, or with `.` or `/` (a file or a path). A code span with spaces in it is still read
(`` `do not merge` `` is a phrase, not a name). One split of the line: linear.
"""

from __future__ import annotations

import re

from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import CODE_SPAN
from mergegate.verdicts._vocab import as_shown, clean_value, hits

__all__ = ["prose_of"]

_CODE_TOKEN = compile_lazily(r"`[^`\s]{1,200}`")
_SENTENCE_ENDS = str.maketrans(".;!?", "    ")
_TEST_NAME = compile_lazily(r"(?<![a-z])(?:tests?|specs?)(?![a-z])")
_JOINED = compile_lazily(r"[^\W_]_+[^\W_]|[^\W_][./][^\W_]")


def prose_of(low: str) -> str:
    """`low` (an NFKC, case-folded line) without code names, cleaned like `Line.clean`. A
    name of a test (`test_retry`, `tests/api.spec.ts`) stays a test: the word `test`, so
    that '`test_retry` fails' still reports a failing check."""
    text = _CODE_TOKEN.sub(_as_name, as_shown(low))
    if "`" in text:  # a command kept as words: its '.' ends no sentence ('`biome check .` fails')
        text = CODE_SPAN.sub(_without_sentence_ends, text)
    words = [_as_name_word(w) for w in text.split()]
    return clean_value(" ".join(w for w in words if w))


def _without_sentence_ends(span: re.Match[str]) -> str:
    return span.group(0).translate(_SENTENCE_ENDS)


# What a name is read as: a noun that no reader's vocabulary holds, so the clause keeps its
# object ('No `aps-environment`.' is not a bare 'No.'). A name that holds a verdict word
# (`merge`, `REJECTED`) leaves nothing, as before: 'No `merge`.' renders as 'No merge.', so a
# negation before it still reads as a no (fail closed).
_NAME = "code"


def _name_for(name: str) -> str:
    return "" if hits(clean_value(name)) else _NAME


def _as_name(span: re.Match[str]) -> str:
    if _TEST_NAME.search(span.group(0)):
        return " test "
    return f" {_name_for(span.group(0)[1:-1])} "


def _as_name_word(word: str) -> str:
    if _JOINED.search(word) is None:
        return word
    return "test" if _TEST_NAME.search(word) else _name_for(word)
