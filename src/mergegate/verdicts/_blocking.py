"""Blocking content in the deciding part of a document (rule (c) of `docs/verdicts.md`).

An approval next to blocking content is not an approval. Blocking content is:

* a section headed Critical / Blocker(s) / Blocking / Must fix / P0 (in any listed language;
  a heading or a bold line standing alone) that lists at least one item which is neither a
  "none" (`(none)`, `None.`, `无。`) nor marked as already fixed;
* a list item tagged that way (`- **Critical**: …`, `- [BLOCKER] …`, `- MUST FIX: …`), a
  `Blocking: <something>` line, or blocking prose ("must be fixed before merge", "blocks the
  merge"), unless negated in its clause;
* a count above zero: `Critical: 2`, `blockers: 1`, `| Critical | 2 |`, `**2 Blocking** /
  3 Important`, or in the frontmatter (`findings: critical: 1`). (GSD's open `gaps:` list is
  its recogniser's, `_templates.gsd`.)

The scan is one pass over the live lines, linear in them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mergegate.verdicts._answer import strip_decor
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._awaited import awaited_event
from mergegate.verdicts._composed_phrases import DONE, negated_before
from mergegate.verdicts._frontmatter import VerdictFrontmatter
from mergegate.verdicts._lines import Doc, Line, is_table_row
from mergegate.verdicts._passed_reports import reports_pass
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import (
    BLOCKING_SECTION,
    COUNT_LABEL,
    NONE_ITEM,
    blocking_in,
    in_taxonomy,
    merge_tied,
    withdrawal_in,
)
from mergegate.verdicts._statement import CLAUSES, clause_problem
from mergegate.verdicts._tables import cells_say_none, table_head
from mergegate.verdicts._text import CODE_SPAN, norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["find_blocking", "other_unit_waits", "own_unit", "says_nothing", "text_blocking"]

_ITEM = compile_lazily(r"[ \t]{0,8}(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)")
_TAG = compile_lazily(
    r"[\[(*_`🔴❗⛔ ]*(critical|blocker|blocking|must[ -]?fix|p0|showstopper|严重|阻塞|致命)"
    r"[\])*_`]*[ \t]*(?:[:—–\]-]|\(|$)"
)
# A YAML key with an empty value, then an optional comment: `must_fix: []  # none`.
_EMPTY_VALUE = compile_lazily(
    r"(?:[-*+][ \t]+)?[\w.-]{1,60}[ \t]*:[ \t]*(?:\[[ \t]*\]|\{[ \t]*\}|~|null|''|\"\")"
    r"[ \t]*(?:#[ \t]*(.*))?"
)
# A finding's location before its tag: '`Foo.java:12` — **Critical:** NPE', 'a.py:3 - P0 …'
# (the location, the why and the fix of a DevoxxGenie-style finding).
# A finding's location, then a dash, a colon or an arrow (`path.py:42 → **Blocker** — …`).
_LOCATION = compile_lazily(
    r"[\w./\\-]{1,200}\.\w{1,10}(?::\d{1,6}(?:[-–]\d{1,6})?)?[ \t]*[—–:→⇒⟶➜➔-][ \t]*"
)
_COUNT = compile_lazily(r"[ \t]*(?:[:|=][ \t*_`]*)?(\d{1,6})(?![\d/.])")
# A count of blocking findings, not of things that are merely important to the project
# ('All 9 critical files exist', '3 critical paths covered').
_TALLY = compile_lazily(
    r"(?:^|[|·/,(;]|\*\*|\s)[ \t*_`]*(\d{1,6})[ \t*_`]+(critical|blocking|blockers?|p0)(?![a-z])"
    r"(?![ \t*_`]+(?:files?|paths?|modules?|components?|tests?|test cases?|dependencies|"
    r"requirements?|criteria|sections?|areas?|functions?|routes?|endpoints?|services?|checks?|"
    r"steps?|flows?|invariants?|tables?|fields?|paths?|features?|user journeys?)(?![a-z]))"
)
_STILL_OPEN = compile_lazily(r"(?<![a-z])(?:not|un|still open|remains|remaining|reopened)")
_OTHER_SEVERITY = compile_lazily(
    r"(?:important|major|high|medium|minor|low|nit|nits|info|suggestions?|warnings?|"
    r"strengths?|recommendations?|p[1-3]|重要|次要|建议)(?![a-z])"
)


_COUNTED = "counted: zero"
# A label that carries its own value is complete, not a section opener: 'must_fix: []',
# 'Critical: none' (a bare '**Critical:**' opens a list).
_INLINE_VALUE = compile_lazily(r"[:：][ \t*_`]*[^\s*_`]")


@dataclass(slots=True)
class _Section:
    open: bool = False
    heading_level: int = 0
    said_none: bool = False
    """The open section said "none": statements after it only explain that."""


def find_blocking(
    doc: Doc, start: int, front: VerdictFrontmatter, covered: frozenset[int] = frozenset()
) -> tuple[int, str] | None:
    """(line index, why) of the first blocking content from line `start` on, or None.

    Lines in `covered` (inside JSON verdicts) are left to the JSON reader."""
    for index, label, count in front.counts:
        if count > 0:
            return index, f"the frontmatter reports {label}: {count}"
    section = _Section()
    own = own_unit(doc)
    for index in range(start, len(doc.lines)):
        line = doc.lines[index]
        # An instruction- or example-like line still shows: it may not approve, but what
        # it lists against the change counts ('templates/email.html:14 leaks …' under
        # Critical is a finding, not a template).
        if not line.shows or line.blank or index in covered:
            continue
        if section.open and table_head(doc, index):
            continue  # its column names ('| # | Finding |'), not an item it holds
        why = _line_blocking(line, section)
        if why is not None and not other_unit_waits(line.low, own):
            return index, why
    return None


# The document's own unit of work, as a BMAD gate or story file names it at the top level
# (`story_id: "2.1"`, `story: 1.3`): the id of the story the verdict is about.
_OWN_UNIT = compile_lazily(
    r"(?:story_id|story|story_key)[ \t]*:[ \t]*[\"']?(\d{1,4}(?:\.\d{1,4}){0,2})[\"']?[ \t]*"
)
_OWN_UNIT_LINES = 40
# A list item that only notes that another story waits on something ('- Story 1.4 blocked
# on Story 2.2 (real data collection)'): one clause, the waiting story named by its id.
_UNIT_WAITS = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?story[ \t]+(\d{1,4}(?:\.\d{1,4}){0,2})[ \t]+"
    r"(?:is[ \t]+|remains[ \t]+)?blocked[ \t]+(?:on|by)[ \t]+"
    r"(?:[^.;,:!?\n]|(?<=\d)\.(?=\d)){1,80}[.]?[ \t]*"
)


def own_unit(doc: Doc) -> str | None:
    """The id of the story the document is about (`_OWN_UNIT`, a top-level key in its first
    lines), or None when it names none."""
    for line in doc.lines[:_OWN_UNIT_LINES]:
        found = _OWN_UNIT.fullmatch(line.raw.rstrip())
        if found is not None:
            return found.group(1)
    return None


def other_unit_waits(low: str, own: str | None) -> bool:
    """The line only notes a dependency of another story than the document's own
    (`_UNIT_WAITS`): that story waits, not this change. Without a known own id, or when
    the waiting story is the document's own, the line blocks as before."""
    found = _UNIT_WAITS.fullmatch(low)
    if own is None or found is None:
        return False
    waiting = found.group(1)
    return waiting != own and not waiting.startswith(f"{own}.")  # '3.2.1' is part of '3.2'


def text_blocking(text: str) -> str | None:
    """Why one piece of text standing alone is blocking content (a tagged item, a count, a
    `Blocking:` label, blocking prose), or None: what `find_blocking` reads on a line."""
    return _line_blocking(Line(number=0, raw=text), _Section())


def _line_blocking(line: Line, section: _Section) -> str | None:
    text = line.clean
    body = strip_decor(text)
    if line.heading_level:
        return _heading(line, section)
    if BLOCKING_SECTION.match(body) and len(body) <= 60 and not _INLINE_VALUE.search(line.low):
        section.open, section.heading_level = True, 7  # a bold line standing alone as heading
        return None
    if section.heading_level == 7 and _OTHER_SEVERITY.match(body) and body.endswith(":"):
        section.open = False
    empty = _EMPTY_VALUE.fullmatch(line.low.strip())
    if empty is not None:
        # 'must_fix: []  # 无必须修复项' (no must-fix items): the list is empty; its key names
        # no work, and its comment only explains it unless the comment names blocking work.
        return _empty_list_comment(clean_value(empty.group(1) or ""), _TAG.match(body))
    count = _count(text, body)
    if count is not None:
        return None if count is _COUNTED else count
    advisory = line.section is not None and line.section.advisory
    return _item_blocking(line, body, section) or _stated_blocking(text, body, advisory)


def _empty_list_comment(comment: str, blocking_key: re.Match[str] | None) -> str | None:
    """Why the comment of an empty YAML list blocks: under a blocking key (`must_fix`,
    `blockers`) anything but a "none", a report of work done or a negated phrase ('no
    must-fix items', '无必须修复项') is an item written as a comment; under any key, blocking
    prose is."""
    found = blocking_in(comment)
    if found is not None:
        return f"the comment of an empty list says '{found}'"
    if blocking_key is None or _open_item(comment) is None:
        return None  # empty, a "none", or a report of work done ('all issues resolved')
    opening = comment.split(" ", 1)[0]
    if negated_before(opening + " ", len(opening) + 1, words=1):
        return None  # it opens with a negation: 'no must-fix items', '无必须修复项'
    return f"the comment of an empty '{blocking_key.group(1)}' list names '{comment[:60]}'"


def _stated_blocking(text: str, body: str, advisory: bool = False) -> str | None:
    """'Blocking: <x>', 'Severity: Critical', a table row of blocking severity, or blocking
    prose ('must be fixed before merge'). Under an advisory heading ('Follow-ups
    (Non-Blocking)') prose blocks only when it is tied to the merge."""
    if _BLOCKING_LABEL.match(body):
        return _blocking_label(body)
    if _SEVERITY_CELL.search(text) and _open_item(body) is not None:
        return f"a table row of blocking severity: '{body[:60]}'"
    if advisory:
        # An advisory heading grades findings, not requests: 'do not merge yet' under it still
        # asks not to merge (elsewhere the readers after the verdict name it a withdrawal).
        withdrawn = withdrawal_in(CODE_SPAN.sub(" ", text))
        if withdrawn is not None:
            return f"'{withdrawn}'"
        if not merge_tied(text):
            return None
    phrase = blocking_in(text)
    return f"'{phrase}'" if phrase is not None else None


def _heading(line: Line, section: _Section) -> str | None:
    title = strip_decor(clean_value(norm(line.heading_text)))
    if section.open and line.heading_level > section.heading_level:
        found = _open_item(title)  # a finding written as a sub-heading
        return f"a blocking section lists '{found[:60]}'" if found else None
    section.open = bool(BLOCKING_SECTION.match(title))
    section.heading_level = line.heading_level
    section.said_none = False
    return None


def _item_blocking(line: Line, body: str, section: _Section) -> str | None:
    """An item of an open blocking section, or an item tagged as blocking."""
    item = _ITEM.fullmatch(line.low)
    content = clean_value(item.group(1)) if item is not None else body
    if section.open and is_table_row(line.raw) and cells_say_none(line.low):
        return None
    if section.open and (item is not None or line.raw.lstrip().startswith(("|", "**"))):
        found = _open_item(content)
        if found and not (item is not None and says_nothing(content)):
            return f"a blocking section lists '{found[:60]}'"
    if item is None and section.heading_level == 7 and line.indent == 0:
        section.open = False  # a paragraph ends a bold pseudo-heading's list
    elif item is None and section.open:
        # Under a blocking heading every line must say none (an allow-list): a paragraph,
        # '(1) …' or '• …' renders as text the section holds, not as nothing.
        found = _paragraph_item(content, section)
        if found:
            return f"a blocking section holds '{found[:60]}'"
    located = _LOCATION.match(content)
    tagged = _TAG.match(content, located.end() if located is not None else 0)
    if tagged is None or _nones_tallied(content[tagged.end() :]):
        return None
    found = _open_item(content[tagged.end() :])
    return f"an item tagged '{tagged.group(1)}': '{found[:60]}'" if found else None


# 'Critical: None. Important: None.' on one line: each sentence a (severity-labelled) none.
_TALLY_SENTENCE = compile_lazily(r"(?<=[.;])[ \t]+")
_SEVERITY_LEAD = compile_lazily(
    r"[ \t]*(?:critical|important|major|minor|high|medium|low|nits?|suggestions?|blockers?|"
    r"warnings?|info)[ \t]*:[ \t]*"
)


def _nones_tallied(value: str) -> bool:
    """Every sentence of `value` says none, the first bare, the others after a severity
    label: a tally of empty severities, not an item. Any other sentence keeps it an item."""
    sentences = [s for s in _TALLY_SENTENCE.split(value.strip()) if s]
    if len(sentences) < 2:
        return False  # one sentence: `_open_item` reads it
    rest = [_SEVERITY_LEAD.sub("", s, count=1) for s in sentences[1:]]
    return all(
        NONE_ITEM.fullmatch(strip_decor(s.rstrip(";"))) for s in [sentences[0], *rest]
    ) and all(_SEVERITY_LEAD.match(s) for s in sentences[1:])


# A line that opens by saying there is nothing: 'None.', 'No critical issues were found', '无'.
_OPENS_NEGATED = compile_lazily(
    r"(?:none|no|nothing|not any|zero|n/a|nil|无|没有|没|なし|特になし|없음|keine?|kein|aucune?|"
    r"ningun[oa]|ninguna|nenhuma?|нет)(?![a-z])"
)


# After a none, a word that turns it ('None — but …', 'one thing, though', 'Actually one: …').
_TURN = compile_lazily(
    r"(?<![a-z])(?:but|though|although|however|except|actually|apart from|other than)(?![a-z])|"
    r"但|但是|不过|然而|ただし|しかし|하지만|pero|sin embargo|mas|porém|mais|aber|jedoch|но"
)


def _paragraph_item(text: str, section: _Section) -> str | None:
    """A paragraph line of an open blocking section, when it names something: not a "none"
    ('None.', 'No critical issues were found.'), a report of work done, or — after a none —
    a statement that explains it ('The change only renames a flag.')."""
    text = strip_decor(text)
    if says_nothing(text, after_none=section.said_none):
        section.said_none = True
        return None
    return text


def says_nothing(text: str, *, after_none: bool = False) -> bool:
    """A blocking section's line that holds nothing: a "none" item, a report of work done, or
    a line that opens with a negation ('No blocking issues were found in this diff.', 'None.
    The branch breaks nothing.') — or, `after_none`, any line — whose sentences only explain:
    none turns ('None. But rotate the key first.', 'one thing, though'), gives an order or a
    condition, or names blocking work. `text` is cleaned (`clean_value`)."""
    text = strip_decor(text)
    negated = _OPENS_NEGATED.match(text)
    # 'None once the flag is off': nothing only after an event, a condition
    if awaited_event(text.lower()) is not None or (
        negated is not None and not _explained(text[negated.end() :])
    ):
        return False
    if _open_item(text) is None:
        return True
    if negated is None and not after_none:
        return False
    rest = text[negated.end() :] if negated is not None else text
    if _TURN.search(rest) or blocking_in(text):
        return False
    if any(clause_problem(c) for c in CLAUSES.split(rest) if c.strip(" .")):
        return False
    # A line after the none explains it only by appraising, as the none's own sentences must.
    return negated is not None or unappraised(text) is None


_NONE_SENTENCE_END = compile_lazily(r"[.!?。！？;；][*_)\]]*\s+")


def _explained(rest: str) -> bool:
    """The sentences after a none's own ('None found. …') only explain it: each appraises
    the change (`_appraisal`: 'The branch breaks nothing.', 'No regressions.'). A plain
    statement there ('None. The token leaks into the logs.') is content the section holds,
    whatever it says."""
    end = _NONE_SENTENCE_END.search(rest)
    return end is None or unappraised(rest[end.end() :]) is None


def _open_item(text: str) -> str | None:
    """The item's text when it names something still to do, else None."""
    text = strip_decor(text)
    if not text or NONE_ITEM.fullmatch(text):
        return None
    done = DONE.search(text)
    if done is not None and not _STILL_OPEN.search(text[: done.start()][-20:]):
        return None
    # a report that a check passed or that every criterion holds ('All acceptance criteria
    # fully met') names nothing still to do
    return None if reports_pass(text) else text


def _count(text: str, body: str) -> str | None:
    """A count above zero: 'Critical: 2', '| Blockers | 1 |', '**2 Blocking** / 3 Important',
    also later on the line ('Findings — Critical: 2, Minor: 0') and in words ('两个', 'two')."""
    label_end = _count_label_end(body)
    if label_end:
        counted = _labelled_count(body, label_end)
        if counted is not None:
            return counted
        if body[label_end : label_end + 2].strip(" ").startswith(":"):
            return None
    for separator in _COUNT_PIECE.finditer(body):
        piece = body[separator.end() :]
        later = _count_label_end(piece)
        counted = _labelled_count(piece, later) if later else None
        if counted is not None and counted is not _COUNTED:
            return counted
    if DONE.search(text):
        return None  # 'all 3 critical issues are fixed'
    for tally in _TALLY.finditer(text):
        if int(tally.group(1)) > 0 and not in_taxonomy(text, tally.start(1)):
            return f"{tally.group(1)} {tally.group(2)}"
    return None


# Where a later count may start on a line: after a dash, a comma, a bar, a semicolon …
_COUNT_PIECE = compile_lazily(r"[ \t]+[—–-][ \t]+|[,;|·(（，；][ \t*_`]*")
# A count in words after a count label: what the digits reader cannot see.
_COUNT_WORD = compile_lazily(
    r"[ \t]*[:：=][ \t*_`]*(one|two|three|four|five|six|seven|eight|nine|ten|several|many|"
    r"一|二|两|三|四|五|六|七|八|九|十|多)"
)


def _labelled_count(body: str, label_end: int) -> str | None:
    """The count after the label ending at `label_end`: its text when above zero, `_COUNTED`
    when zero, None when no number follows."""
    number = _COUNT.match(body, label_end)
    if number is not None:
        count = int(number.group(1))
        return f"{body[:label_end].strip()}: {count}" if count > 0 else _COUNTED
    word = _COUNT_WORD.match(body, label_end)
    if word is not None:
        return f"{body[:label_end].strip()}: {word.group(1)}"
    return None


def _count_label_end(body: str) -> int:
    match = COUNT_LABEL.match(body)
    if match is None:
        return 0
    end = match.end()
    rest = body[end:]
    if rest[:1].isalnum():
        return 0
    return end


_BLOCKING_LABEL = compile_lazily(
    r"(?:critical|blocking|blockers?|must fix|must-fix|merge blockers?|p0)"
    r"(?: issues?| findings?)?[ \t]*:|(?:severity|priority|level)[ \t]*:[ \t]*"
    r"(?=(?:critical|blocker|blocking|p0|must fix)(?![a-z]))"
)
# A table row naming a blocking severity in a cell of its own: '| 1 | Critical | leak |'.
_SEVERITY_CELL = compile_lazily(
    r"\|[ \t]*[^\w|]*(?:critical|blocker|blocking|p0|must fix|showstopper)[^\w|]*[ \t]*\|"
)


def _blocking_label(body: str) -> str | None:
    """'Blocking: the migration drops a column.' — a label whose value names something."""
    match = _BLOCKING_LABEL.match(body)
    if match is None or negated_before(body, match.start()):
        return None
    if _nones_tallied(body[match.end() :]):
        return None
    value = _open_item(body[match.end() :])
    if value is None or value[:1].isdigit():
        return None
    return f"'{body[: match.end()]} {value[:60]}'"
