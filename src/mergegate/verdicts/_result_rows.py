"""Rows of a table after an approval that report a check which did not pass.

A table below the verdict is the reviewer's record of what was run or looked at (`| e2e |
❌ |`, `| Load test | not run |`, `| Migration rollback | pending |`). Its rows hold no verdict,
so no reader took them for one, and a failing result there sat unread beside the approval. A
cell that opens with a failing mark, or whose value is a check's failing value (`failed (3)`,
`not run yet`, `Error: connection refused` — a vocabulary that names a result field's values,
the kind issue 23 keeps; `Error handling` names a thing), is a check the approval did not
weigh, and so is a cell that counts part of a whole (`4 of 9`, `17/20 green`). A column
whose header names an earlier state (`Before`, `Round 1`) records history, and is not read.
Linear in the cells.

A field in the verdict's own section may also say the work it names is unfinished
(`unfinished_field`): a no answering a key that names a state of the work (`Ready: no`,
`Tested: not yet`) or a count of part of a whole (`Reviewed: 2 of 14 files`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mergegate.verdicts._appraisal import names_a_problem
from mergegate.verdicts._lines import is_table_row
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._text import CODE_SPAN, UNMARKED, WORD, norm
from mergegate.verdicts._unweighed import ADVISORY_LABEL
from mergegate.verdicts._vocab import clean_value, hits, word_set

__all__ = [
    "TEMPLATE_KEY",
    "ResultTable",
    "answer_against_field",
    "failing_field",
    "failing_mark",
    "low_grade_field",
    "open_work_field",
    "unfinished_field",
]

_FAIL_MARKS = "❌✗✘⛔🔴🚫"
# A check's outcome when it did not pass, as the whole value of its cell, with at most an
# aspect adverb, a parenthesis or an explanation after a colon or a dash ('failed (3)', 'not
# run yet', 'Error: connection refused'); 'Error handling', 'Error() format' name a thing.
_FAILING_VALUE = compile_lazily(
    r"(?:fail|fails|failed|failing|failure|error|errored|errors|broken|blocked|timed out|"
    r"timeout|not run|not tested|not checked|not verified|untested|unverified|pending|todo|"
    r"to do|missing|red|in progress|incomplete|unfinished|queued|not started)"
    r"(?:[ \t]+(?:yet|still|again))?"
    r"(?:[ \t]+\(.*\)|[ \t]*[:—–][ \t].*|[ \t]+-[ \t].*)?[ \t.!]*"
)
# Columns that record an earlier state than the change's ('Before', 'Round 1', 'Was').
_EARLIER_HEADER = compile_lazily(
    r"(?:before|previous(?:ly)?|prior|was|old|original|initial|baseline|earlier|round 1|"
    r"first (?:run|round|review))(?![\w-])"
)
_DELIMITER_CELL = compile_lazily(r":?-{2,}:?")


# A field line: a short key (a list marker and emphasis around it) before its colon.
_FIELD = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}([^\W\d_][\w /'()-]{0,40}?)[*_]{0,2}[ \t]*[:：](.*)"
)
_MOST_KEY_WORDS = 4


def _failing(value: str) -> bool:
    """A value as read (`norm`, lower-cased) that is a check's failing value."""
    value = value.strip(" \t-:")
    return bool(value) and (value[0] in _FAIL_MARKS or _FAILING_VALUE.fullmatch(value) is not None)


def failing_field(raw: str) -> str | None:
    """A `Key: value` line whose value is a check's failing value (`CI: red`, `- **Security
    review:** pending`, `Load test: not run yet`): a one-row result table. The line, or None."""
    found = _field(raw)
    return raw.strip()[:60] if found is not None and _failing(found[1]) else None


# A yes/no answer's no (closed class): 'Ready: no', 'Tested: not yet', 'Merged: nein'.
_ANSWER_NO = word_set("no not never nope nein nicht non não nao нет не")
# A degree short of whole (closed class): 'Done: partially', 'Reviewed: half of the files'.
_SHORT_DEGREE = word_set(
    "partly partially mostly largely mainly nearly almost somewhat barely half halfway"
)
_NO_REACH = 4
# Numbers written as words (closed class): 'Reviewed: two of fourteen files' is '2 of 14'.
_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_NUMBER_VALUE = {word: value for value, word in enumerate(_NUMBERS.split())}
_NUMBER_WORDS = "|".join(_NUMBER_VALUE)
# A count of part of a whole ('2 of 14 files', '3/7', '5 out of 9'); not a date's, a path's
# or a decimal's numbers ('01/12/2026', 'v1/2', '1.5/2').
_PART_COUNT = compile_lazily(
    r"(?<![\w/.,-])(\d{1,6}|" + _NUMBER_WORDS + r")[ \t]*(?:/|of|out of)[ \t]*"
    r"(\d{1,6}|" + _NUMBER_WORDS + r")(?![\w/.,-])"
)
# A field that names a grade: its 'N/M' is a mark out of a maximum, not a count of parts.
# The names of a grade (`_GRADED_KEY` adds the fields a level or a percentage grades).
_GRADE_NAMES = "score|rating|grade"
_GRADE_KEY = compile_lazily(rf"(?<![a-z])(?:{_GRADE_NAMES}|marks?)(?![a-z])")
# A template's own field whose value the template words ('**Re-verification:** No —
# initial verification', GSD's verifier); the one spelling of it both readings use.
TEMPLATE_KEY = compile_lazily(r"re-?verification")


def unfinished_field(raw: str) -> str | None:
    """A `Key: value` line whose value says the work it names is not done: a no answering
    the key (`Ready: no`, `Tested: not yet`; not `Blockers: no`, whose key names a problem
    the no denies) or a count of part of a whole (`Reviewed: 2 of 14 files`). The approval
    beside it did not weigh the part left. The line, or None."""
    found = _field(raw)
    if found is None or TEMPLATE_KEY.search(found[0]) is not None:
        return None
    key, value = found
    if _answers_no(key, value) or (_GRADE_KEY.search(key) is None and _counts_part(value)):
        return raw.strip()[:60]
    return raw.strip()[:60] if _part_percent(key, value) else None


def _answers_no(key: str, value: str) -> bool:
    """The value opens with a no or a degree short of whole, the key names a state of the
    work (`_names_a_state`) and no problem stands just after the no for it to deny
    ('Tested: no failures')."""
    words = WORD.findall(value)
    if not words or value.lstrip(" \t*_").startswith("non-") or not _names_a_state(key):
        return False
    if words[0] in _SHORT_DEGREE:
        return True
    return words[0] in _ANSWER_NO and not names_a_problem(words[1 : 1 + _NO_REACH])


# A bare answer: the answer word alone, with at most a parenthesis or a note after a dash
# ('No', 'yes (undocumented)', 'No — see the runbook'); 'No single test covers it' is prose.
_BARE_ANSWER = compile_lazily(
    r"[ \t]*(yes|yep|yeah|no|nope|nah|y|n|true|false)"
    r"(?:[ \t]*\(.*\)|[ \t]*[—–][ \t]*.*|[ \t]+-[ \t]+.*)?[ \t.!]*"
)
_YES = frozenset(("yes", "yep", "yeah", "y", "true"))


def answer_against_field(raw: str) -> str | None:
    """A yes/no field whose bare answer is not the approving one (`Rollback safe: no`,
    `Backward compatible: No`, `Breaking change: yes (undocumented)`). The key is the
    question; the approving answer is the one that denies a problem the key names
    (`Breaking changes: no`, `Regressions: no`) or a thing the change has (`Needs a
    migration: no`), or a yes to any other key (`Tests added: yes`). An approval beside a
    field that answers against it did not weigh that answer. A key naming a state that has
    passed ('Issues addressed: yes') is a yes's. The line, or None."""
    found = _field(raw)
    if found is None or TEMPLATE_KEY.search(found[0]) is not None:
        return None
    key, value = found
    answer = _BARE_ANSWER.fullmatch(value)
    if answer is None:
        return None
    words = WORD.findall(key)
    problem = names_a_problem(words) and not any(w.endswith("ed") for w in words)
    yes = answer.group(1) in _YES
    if not yes and _asks_what_it_has(words):
        return None
    return raw.strip()[:60] if yes == problem else None


def _asks_what_it_has(words: list[str]) -> bool:
    """A key that opens with a verb in the third person before its object ('Needs a
    migration', 'Adds dependencies', 'Requires a restart'): it asks whether the change has
    a thing, and a no says there is none of it. A key naming a state the work should be in
    ('Rollback safe', 'Backward compatible') opens with no such verb, and one that ends in a
    past participle ('Tests added') names a state whatever its first word."""
    opens = words[0].endswith("s") and not words[0].endswith("ss") if words else False
    return len(words) >= 2 and opens and not words[-1].endswith("ed")


def _names_a_state(key: str) -> bool:
    """The key names a state the work is in: a word the verdict vocabulary reads ('Ready',
    'Done', 'Mergeable') or a past participle ('Tested', 'Reviewed'). A key naming a thing
    ('Breaking changes', 'New dependencies', 'Requires migration') is answered no when there
    is none of it, which is no unfinished work."""
    words = WORD.findall(key)
    if not words or names_a_problem(words):
        return False
    return words[-1].endswith("ed") or bool(hits(clean_value(key)))


def _counts_part(value: str) -> bool:
    return any(_number(m.group(1)) < _number(m.group(2)) for m in _PART_COUNT.finditer(_now(value)))


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_VALUE[text]


# A key naming how far the work has got: a percentage under whole answering it is a part
# ('Review progress: 14%', 'Completion: 60%'). Grades are `low_grade_field`'s (a coverage
# or a confidence is a grade, read against its middle).
_PROGRESS_KEY = compile_lazily(r"(?<![a-z])(?:progress|completion|complete|completeness)(?![a-z])")
_WHOLE = 100
# The value is the percentage itself, with at most a note after it ('60% (3 of 5 tasks)',
# '80% — docs left'); a percentage inside a longer value measures something else ('50 min
# actual vs 12h estimated = 95% efficiency gain', the shared corpus's r047).
_PERCENT_VALUE = compile_lazily(
    r"[ \t~≈]*(\d{1,3})(?:\.\d+)?[ \t]*%[ \t.]*(?:\(.*\)|[—–-][ \t].*)?[ \t.]*"
)


def _part_percent(key: str, value: str) -> bool:
    """A percentage under whole as the whole value of a key naming progress or a state of
    the work (`Review progress: 14%`, `Done: 80%`); not a grade's (`_GRADED_KEY`)."""
    if _GRADED_KEY.search(key) is not None:
        return False
    if _PROGRESS_KEY.search(key) is None and not _names_a_state(key):
        return False
    found = _PERCENT_VALUE.fullmatch(_now(value).lstrip("→->=⇒ \t"))
    return found is not None and int(found.group(1)) < _WHOLE


# The arrow between a value's state before and after a fix ('3/5 → 5/5').
_ARROW = ("→", "->", "⇒", "=>")


def _now(value: str) -> str:
    """The value's current state: after its last arrow ('0% → 92%', '3/5 → 5/5')."""
    at = max(value.rfind(arrow) for arrow in _ARROW)
    return value if at < 0 else value[at:]


# A field that grades the change or the review (a closed vocabulary of a grade's names).
_GRADED_KEY = compile_lazily(
    rf"(?<![a-z])(?:{_GRADE_NAMES}|confidence|certainty|coverage|quality)(?![a-z])"
)
# The levels of a grade below its middle (closed class: the values such a field takes).
_LOW_LEVELS = word_set("low poor weak bad minimal")
_PERCENT = compile_lazily(r"(?<![\w.,])(\d{1,3})(?:\.\d+)?[ \t]*%")
_HALF = 50
# A mark out of its maximum, either with a decimal part ('4.5/10', '2.5 out of 5'): a grade's
# scale is not a count of parts, so a decimal is a mark here, not a version or a date.
_MARK = compile_lazily(
    r"(?<![\w/.,-])(\d{1,4}(?:\.\d{1,3})?)[ \t]*(?:/|of|out of)[ \t]*(\d{1,4}(?:\.\d{1,3})?)"
    r"(?![\w/,-]|\.\d)"
)
# Stars drawn as a scale: filled ones out of all drawn ('★★☆☆☆' is 2 of 5).
_FILLED_STARS, _EMPTY_STARS = "★", "☆"
# A letter grade standing alone as the value (A best, F worst): below the middle C, or C
# with a minus ('Grade: D', 'Grade: C-'); 'Grade: A-' is above it.
_LOW_LETTER = compile_lazily(r"[ \t]*(?:[d-f][+-]?|c-|c−)(?:[ \t]*\(.*\))?[ \t.]*")


def low_grade_field(raw: str) -> str | None:
    """A field that grades (`_GRADED_KEY`) with a value below the middle of its scale: a
    mark under half its stated maximum (`Score: 4/10`, `Score: 4.5/10`), stars drawn on a
    scale that are fewer than half filled (`Rating: ★★☆☆☆`), a letter grade below C
    (`Grade: D`, `Grade: C-`), a percentage under half (`Coverage: 12%`) or a low level
    (`Confidence: low`). The approval beside it was given to work its own grade calls poor.
    The line, or None."""
    found = _field(raw)
    if found is None or _GRADED_KEY.search(found[0]) is None:
        return None
    value = _now(found[1])
    marks = [2 * float(m.group(1)) < float(m.group(2)) for m in _MARK.finditer(value)]
    percents = [int(m.group(1)) < _HALF for m in _PERCENT.finditer(value)]
    levels = [w in _LOW_LEVELS for w in WORD.findall(value)[:2]]
    low = any(marks + percents + levels) or _few_stars(value)
    letter = _GRADE_KEY.search(found[0]) is not None and _LOW_LETTER.fullmatch(value)
    return raw.strip()[:60] if low or letter else None


def _few_stars(value: str) -> bool:
    filled, empty = value.count(_FILLED_STARS), value.count(_EMPTY_STARS)
    return empty > 0 and 2 * filled < filled + empty


# A key naming work still open (closed vocabulary of such a field's names): 'Outstanding
# work', 'TODO', 'Unresolved threads' ('Remaining' also names a risk: 'Remaining risk: low').
_OPEN_WORK_KEY = compile_lazily(
    r"(?<![a-z])(?:outstanding|unresolved|unfinished|todos?|to-?do|left to do|"
    # 'Remaining' with a noun of work ('Remaining work', 'Work remaining'), not of a risk
    r"remaining (?:work|tasks?|items?|steps?|todos?)|(?:work|tasks?|items?) (?:remaining|left))"
    r"(?![a-z])"
)
# A value that holds nothing: the open work is none.
_NOTHING = compile_lazily(r"[ \t]*(?:none|nothing|n/a|na|no|0|-|—|–)?[ \t.!]*(?:\(.*\))?[ \t.]*")


def open_work_field(raw: str) -> str | None:
    """A field whose key names work still open (`Outstanding work: rollback script`) and
    whose value names some: the approval beside it was given with work left. Not when the
    key is advice (`Remaining nits: …`, non-blocking by the labelling rule) or
    the value holds nothing (`Remaining issues: none`). The line, or None."""
    found = _field(raw)
    if found is None or _OPEN_WORK_KEY.search(found[0]) is None:
        return None
    if ADVISORY_LABEL.search(found[0]) is not None:
        return None
    return None if _NOTHING.fullmatch(found[1]) else raw.strip()[:60]


def _field(raw: str) -> tuple[str, str] | None:
    """A field line's key and value, lower-cased, or None."""
    match = _FIELD.match(CODE_SPAN.sub(" code ", raw))
    if match is None or len(match.group(1).split()) > _MOST_KEY_WORDS:
        return None
    return norm(match.group(1)).lower(), norm(match.group(2).translate(UNMARKED)).lower()


# A check line's marks and list markers before its words ('- [x] ', '* ', '1. ').
_ITEM = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])?[ \t]*(?:\[[ xX]\][ \t]*)?")
_MOST_CHECK_WORDS = 12


def failing_mark(raw: str) -> str | None:
    """A short check line that opens or ends with a failing mark (`Spec ❌`, `- ❌ e2e
    suite`, `🔴 Migration rollback`), or None. A mark before an arrow is the state before a
    fix (`❌→✅ flaky retry fixed`)."""
    item = _ITEM.match(raw)
    text = raw[item.end() if item else 0 :].translate(UNMARKED).strip()
    if not text or len(text.split()) > _MOST_CHECK_WORDS:
        return None
    if text[0] in _FAIL_MARKS and not text[1:].lstrip().startswith(_ARROW):
        return text[:60]
    return text[:60] if text[-1] in _FAIL_MARKS else None


def _cells(raw: str) -> list[str]:
    """The row's cells without emphasis; a code span is a name, not a value ('`errors.go`')."""
    row = CODE_SPAN.sub(" code ", raw).strip().strip("|")
    return [c.strip().translate(UNMARKED).strip() for c in row.split("|")]


@dataclass(slots=True)
class ResultTable:
    """The table open at the line being read, fed one line at a time (`read`)."""

    _header: list[str] | None = None
    _earlier: frozenset[int] = field(default_factory=frozenset)

    def read(self, raw: str) -> str | None:
        """Feed the next line below the verdict; the failing cell of a data row, or None."""
        if not is_table_row(raw):
            self._header = None
            return None
        cells = _cells(raw)
        if self._header is None:
            self._header = cells
            self._earlier = frozenset(
                i for i, c in enumerate(cells) if _EARLIER_HEADER.match(norm(c).lower())
            )
            return None
        if all(_DELIMITER_CELL.fullmatch(c) or not c for c in cells):
            return None
        return self._failing(cells)

    def _failing(self, cells: list[str]) -> str | None:
        for index, cell in enumerate(cells):
            if index in self._earlier or (index == 0 and len(cells) > 1):
                continue  # the row's name ('Failing tests', 'Error handling') is no result
            value = norm(cell).lower()
            if _failing(value) or _counts_part(value):
                return cell[:60]
        return None
