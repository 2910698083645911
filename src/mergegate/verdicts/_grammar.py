"""Dialect grammars: each finds verdict *sites* on live lines, with their line and scope.

Every grammar reads the same structured document (`_lines.Doc`) and yields `Site`s; what a
site answers is read by `_answer.read_answer`, and the decision rules live in `_decide`.
Grammars never look inside non-live lines. The forms:

* `label: answer` lines in every spelling: `Verdict: APPROVE`, `**Verdict:** **Approved**`,
  `verdict=approve`, `| Verdict | APPROVE |`, `## Verdict: PASS`, `结论：通过`, `综合判定: …`,
  a label standing alone with its answer on the next line (or a `- [x]` checklist);
* a verdict question anywhere on a line (`… "Is it safe to merge?" **Answer:** NO`) — a
  question without an answer is a site that does not approve;
* a table whose header names a verdict column (`| Reviewer | Verdict |`);
* a heading, or a whole line, that is a verdict (`## Ready to merge`, `Not approved.`), a
  line starting with LGTM/ACK/NACK, a line opening a verdict section (`## Verdict` → `Merge`);
* a recorded submit command `… --verdict pass`;
* YAML frontmatter keys (`_frontmatter`) and JSON documents (`_jsonverdict`) have their own
  modules.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import NamedTuple

from mergegate.decisions import Decision
from mergegate.verdicts import _signals as sig
from mergegate.verdicts._answer import Answer, after_approval, read_answer
from mergegate.verdicts._bare import bare_site, cli_flag, heading_phrase, opens_with_verdict_word
from mergegate.verdicts._lines import Doc, Line, is_table_row
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import reported_before
from mergegate.verdicts._site import (
    LIST_MARK,
    Site,
    drop_parens,
    make_site,
    strip_label,
    without_list_mark,
)
from mergegate.verdicts._tables import table_head
from mergegate.verdicts._templates._none import says_none
from mergegate.verdicts._text import CODE_SPAN, norm
from mergegate.verdicts._vocab import (
    LabelKind,
    clean_value,
    hits,
    label_kind,
    phrases,
    word_set,
)

__all__ = ["DIALECTS", "Site", "depth_of", "find_sites", "unread_fields"]

DIALECTS: tuple[str, ...] = (
    "superpowers", "verdict-line", "status-line", "frontmatter", "megazord", "json", "bmad",
    "lgtm", "cli-flag", "verdict-section", "gerrit", "github", "review-log", "gsd", "spectacular",
)  # fmt: skip

_A, _F, _R, _M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


# --------------------------------------------------------------------------- entry point


def find_sites(doc: Doc) -> list[Site]:
    """Every verdict site on live lines, in document order (frontmatter excluded)."""
    found: list[Site] = []
    table = _Table()
    # The loop runs once a line (half a million on short lines): the common case is kept
    # to attribute reads and one search (`table.close` only when a table is open).
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank:
            if table.header_seen:
                table.close(found)
            continue
        raw = line.raw
        if raw[:1] in _ROW_STARTS and raw.lstrip().startswith("|"):
            found.extend(table.row(doc, index, line))
            continue
        if table.header_seen:
            table.close(found)
        low = line.low
        if line.heading_level or line.section is not None or _MAYBE.search(low):
            found.extend(_line_sites(doc, index, line))
        elif len(raw) <= 80 and opens_with_verdict_word(low):
            site = bare_site(doc, index, line)  # 'Not approved.', 'LGTM'
            if site is not None:
                found.append(site)
    table.close(found)
    return found


_ROW_STARTS = frozenset("| \t")
_MAYBE = compile_lazily(r"[:?=|*_`#\[]|--verdict|(?:^|\s)(?:lgtm|n?ack|nak|ship)")


def _line_sites(doc: Doc, index: int, line: Line) -> Iterator[Site]:
    text = line.low
    section = line.section
    in_verdict = section is not None and section.verdict_like
    if not (line.heading_level or in_verdict or _MAYBE.search(text)):
        # No separator, emphasis, heading or verdict section: only a short line that opens
        # with a verdict word can be one ('Not approved.', 'LGTM').
        if len(text) <= 80 and opens_with_verdict_word(text):
            site = bare_site(doc, index, line)
            if site is not None:
                yield site
        return
    flag = cli_flag(index, line, text)
    if flag is not None:
        yield flag
        return
    for finder in (_labelled, _question_anywhere, bare_site):
        site = finder(doc, index, line)
        if site is not None:
            yield site
            return


# --------------------------------------------------------------------------- labelled lines

_SEPARATOR = compile_lazily(r"[:?=]|[ \t][—–-][ \t]|[—–]")
_CHECKBOX = compile_lazily(r"[ \t]*(?:[-*+][ \t]+)?\[([ xX✓✔])\][ \t]*(.*)")
_KEY_VALUE = compile_lazily(r"([a-z][a-z0-9_.-]{0,40})=([^\s,;]{1,80})")
# Labels about one part of the change: their no counts, their yes alone does not approve.
_PART_LABELS = frozenset(
    phrases(
        """security|performance|correctness|tests|testing|test coverage|coverage|documentation|
docs|architecture|maintainability|readability|style|frontend|backend|api|database|migration|
migrations|accessibility|ux|ui|build|ci|lint|linting|types|typing|type check|safety|
reliability|observability|compatibility|error handling|concurrency|privacy|scope|
安全|性能|测试|文档|架构|セキュリティ|テスト|보안|성능|테스트|seguridad|pruebas|segurança|testes|
sécurité|sicherheit"""
    )
)


class _Pair(NamedTuple):
    """One way a line reads as 'label: value'."""

    label: str
    kind: LabelKind | None
    """None for a part label ('Security: FAIL')."""
    value: str
    sep: str


def _labelled(doc: Doc, index: int, line: Line) -> Site | None:
    body = norm(line.heading_text) if line.heading_level else line.low
    for pair in _label_values(body):
        site = _labelled_site(doc, index, line, pair)
        if site is not None:
            return site
    if line.heading_level:
        site = heading_phrase(index, line)
        if site is not None and site.decision is not _A and _section_says_none(doc, index):
            return None  # '### Issues Found' over 'None.': the title of an empty section
        if site is not None and site.decision is not _A and _titles_closed_items(doc, index):
            return None  # '## Issues Found' over items each told fixed: a findings log
        return site
    return None


_NONE_SECTION_LINES = 6


def _section_says_none(doc: Doc, index: int) -> bool:
    """The section under heading `index` holds only "nothing here" items ('None.', '- N/A',
    '无'), and at least one: a findings title over an empty list is not a finding."""
    level = doc.lines[index].heading_level
    seen = 0
    for line in itertools.islice(doc.lines, index + 1, None):
        if line.heading_level and line.heading_level <= level:
            break
        if line.blank or not line.raw.strip():
            continue
        seen += 1
        if seen > _NONE_SECTION_LINES or line.heading_level or not _opens_with_none(line.raw):
            return False
    return seen > 0


# The end of a line's first sentence, with the emphasis that closes around it ('**None.**').
_FIRST_SENTENCE_END = compile_lazily(r"[.。!！][*_`]*(?=\s|$)")


# The closed words of an appraisal that restates the none ('Clean, complete replacement
# with no regressions introduced.'): what the change is, that it is sound, and that nothing
# was found. A word outside it ('but', 'one', 'wrong', 'missing', a name) is no restatement.
_NONE_APPRAISAL = word_set(
    "clean complete correct solid sound tidy minimal straightforward direct faithful "
    "careful good fine well-tested tested covered the a an this it is and with no nothing "
    "zero regressions regression issues issue problems problem findings concerns side "
    "effects introduced found observed change changes replacement refactor implementation "
    "diff code patch fix as expected all checks pass passed"
)
_APPRAISAL_CHARS = 120


def _opens_with_none(raw: str) -> bool:
    """The line is a "nothing here" item, or its first sentence is one and what follows
    only restates it in the closed words of `_NONE_APPRAISAL` ('**None.** Clean, complete
    replacement with no regressions introduced.'). Anything else after the none ('None.
    But the pool leaks', 'None. Well, one: …') keeps the section a findings section."""
    if says_none(raw):
        return True
    end = _FIRST_SENTENCE_END.search(raw)
    if end is None or not says_none(raw[: end.end()]):
        return False
    rest = raw[end.end() :].lower()
    words = _APPRAISAL_WORD.findall(rest)
    return (
        len(rest) <= _APPRAISAL_CHARS
        and bool(words)
        and all(w in _NONE_APPRAISAL for w in words)
        and not _APPRAISAL_OTHER.search(rest)
    )


_APPRAISAL_WORD = compile_lazily(r"[^\W\d_][\w'-]*")
# Besides words, only a comma and a sentence end: a colon, a number or a bracket adds to
# the none what the closed words cannot say.
_APPRAISAL_OTHER = compile_lazily(r"[^\w\s,.!*_`'-]|\d")


# A heading that names a findings section ('## Issues Found', '### Problems found (2)').
_FINDINGS_TITLE = compile_lazily(
    r"(?:issues|problems|concerns|findings|defects|bugs)(?: found| identified)?"
    r"(?: \(\d{1,3}\))?"
)
# A finding's closing state, as a review log writes it beside each item: the values of a
# finding's status field ('Fixed in a1b2c3d', '✅ Resolved', '| Addressed |').
_CLOSED_STATE = compile_lazily(
    r"(?<!\w)(?:fixed|resolved|addressed|closed|corrected|done)(?!\w)|✅|✔|☑"
)
_CLOSED_ITEMS_LINES = 40
# Closed-class words that put a state ahead or make it an obligation: modals, 'to be'.
_MODAL_BEFORE = compile_lazily(
    r"(?<!\w)(?:will|would|shall|should|must|can|could|may|might|need|needs|to be|"
    r"going to|has to|have to)(?!\w)"
)


# A negation after the state, in the same item or cell, takes the state back: 'fixed on a
# branch, not in this PR', 'fixed in #415 (not merged yet)', 'resolved upstream, never
# released'. Not a bare 'no', which denies a problem after a fix ('fixed, no regressions').
_NEGATED_AFTER = compile_lazily(r"(?<!\w)(?:not|never|yet)(?!\w)|n't(?!\w)")


def _tells_closed(text: str) -> bool:
    """A list item or a table cell that gives its finding a closing state: not negated
    before it or after it in the item, not after a modal ('will be fixed', 'to be
    addressed'), and in no question ('fixed?')."""
    state = _CLOSED_STATE.search(text)
    if state is None or "?" in text or sig.negated_before(text, state.start()):
        return False
    if _NEGATED_AFTER.search(text, state.end()) is not None:
        return False
    return _MODAL_BEFORE.search(text, 0, state.start()) is None


def _titles_closed_items(doc: Doc, index: int) -> bool:
    """The heading names a findings section (`_FINDINGS_TITLE`) whose every item — a list
    item, or a table row below its header — gives its finding a closing state, not negated:
    the section is a log of findings the change has fixed, not a verdict that asks for
    fixes. The items are still read by every other reader (a stated defect, an obligation,
    a blocking severity). A paragraph in the section, or an item without a closing state,
    leaves the heading a verdict."""
    title = strip_label(clean_value(norm(doc.lines[index].heading_text)))
    if _FINDINGS_TITLE.fullmatch(title) is None:
        return False
    level = doc.lines[index].heading_level
    items = 0
    for below in range(index + 1, len(doc.lines)):
        line = doc.lines[below]
        if line.heading_level and line.heading_level <= level:
            break
        if below > index + _CLOSED_ITEMS_LINES:
            return False  # a section longer than the window is not read as a log
        if line.blank or not line.raw.strip() or table_head(doc, below):
            continue
        if line.heading_level or not (LIST_MARK.match(line.raw) or is_table_row(line.raw)):
            return False
        if not any(_tells_closed(cell) for cell in line.low.strip().strip("|").split("|")):
            return False
        items += 1
    return items > 0


def _label_values(text: str) -> Iterator[_Pair]:
    """Each way the line reads as 'label: value'. A label standing alone (its answer on the
    next line) yields an empty value."""
    stripped = without_list_mark(text).strip()
    if " | " in stripped and not stripped.startswith("|"):
        # '**Date:** 2026-03-28 | **Result: ZERO FINDINGS**': cells on one line.
        for cell in stripped.split(" | ")[:6]:
            yield from _label_values(cell)
        return
    for seen, sep in enumerate(_SEPARATOR.finditer(stripped, 0, 120)):
        if seen >= 4:
            return
        pos, char = sep.start(), sep.group(0).strip()
        if stripped.count("(", 0, pos) > stripped.count(")", 0, pos):
            continue  # inside a parenthesis: '**APPROVE** (confidence: high)'
        if _OTHER_SCOPE.search(stripped[:pos]) or reported_before(stripped[:pos]):
            return  # 'Verdict (PR #12): …', 'For PR #12: Ready to merge? …', 'X said: …'
        label = drop_parens(strip_label(stripped[:pos])).rstrip("?: ")
        kind = label_kind(label)
        if kind is None and label not in _PART_LABELS:
            continue
        if char == "?" and kind is not LabelKind.QUESTION:
            continue
        if kind is _QUESTION and char in _DASHES:
            # '**APPROVED** — no blockers': the word is the answer and the dash brings its
            # reason; 'Approved: yes' and 'Approved? yes' are the question form.
            continue
        value = stripped[sep.end() :].lstrip(":")
        if char == "=":
            pair = _KEY_VALUE.match(stripped)
            value = pair.group(2) if pair is not None else value
        yield _Pair(label, kind, value, char)
        return
    alone = drop_parens(strip_label(stripped)).rstrip("?:. ")
    kind = label_kind(alone) if len(stripped) <= 80 else None
    # Without a question mark, 'Ready to merge' is a statement, read as a verdict phrase.
    if kind in (LabelKind.VERDICT, LabelKind.OPINION) or (kind is _QUESTION and "?" in text):
        yield _Pair(alone, kind, "", "")


def _labelled_site(doc: Doc, index: int, line: Line, pair: _Pair) -> Site | None:
    label, kind, value, sep = pair
    heading = line.heading_level
    where = f"'{label}'"
    if not clean_value(value).strip(" -"):
        if not (heading or "*" in line.raw or "_" in line.raw or sep or kind is _QUESTION):
            return None
        answer = _next_answer(doc, index, kind or LabelKind.STATUS)
        if kind is not _QUESTION and (answer is None or answer.decision is _M):
            return None  # '## Verdict' opens a section; its lines speak for themselves
        if answer is None:
            answer = Answer(_M, "", "a verdict question without an answer")
        where += " (answer on the next line)"
    else:
        answer = _answer_of(value, kind, heading=heading)
        if answer is None:
            answer = _unreadable(value, kind)
            if answer is None:
                return None
    dialect = _dialect_of(kind)
    # a table column is a field of each row, not the document's field: no label
    field = label if sep != "|" else ""
    site = make_site(index, line, answer, dialect=dialect, where=where, kind=kind, label=field)
    if kind is None:
        site = replace(site, part=True)
        if site.decision is _R and answer.phrase in _FAILED_CHECK:
            # 'Tests: FAIL', '| types | FAIL |': one part's check failed — that asks for
            # fixes; it is not the reviewer rejecting the change ('Security: Rejected' is).
            site = replace(site, decision=_F, reason=site.reason + " (a failed check)")
    if not clean_value(value).strip(" -"):
        site = replace(site, answer_below=True)
    if _nested_key(line):
        site = replace(site, local=True)  # a nested key ('  security:\n    status: PASS')
    if label.startswith(("overall", "final")):
        site = replace(site, local=False, part=False)
    return site


def unread_fields(doc: Doc, wanted: Mapping[str, frozenset[int]]) -> Iterator[tuple[int, str, str]]:
    """(line index, label, value) of each live `label: value` line whose status or verdict
    label is one of `wanted`'s, under a heading of one of its levels, and whose value the
    reader cannot read as a verdict ('**状态**: 失败' where the reader knows '通过' but not
    '失败'; 'Status: partial').

    The same field written again, at the same depth of the document, with a value outside
    the vocabulary means the field's values are not all understood: an approval read from one
    of its instances is not the document's (`_decide`). A field one heading level deeper
    belongs to a sub-item (a risk's own 'Status:'), and a long value is prose."""
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank or not _MAYBE.search(line.low) or _nested_key(line):
            continue
        for label, kind, value, _sep in _label_values(line.low):
            if kind not in (LabelKind.STATUS, LabelKind.VERDICT):
                continue
            if depth_of(line) not in wanted.get(label, ()):
                continue
            cleaned = clean_value(value).strip(" -")
            if not cleaned or len(cleaned) > _SHORT_VALUE:
                continue
            answer = _answer_of(value, kind, heading=line.heading_level)
            if answer is None and _unreadable(value, kind) is None:
                yield index, label, cleaned


def _nested_key(line: Line) -> bool:
    """A key indented under another ('  security:\n    status: PASS'): an item's field."""
    return line.indent >= 2 and not LIST_MARK.match(line.raw) and not line.heading_level


def depth_of(line: Line) -> int:
    """The level of the heading the line sits under (0 above the first heading)."""
    return line.section.level if line.section is not None else 0


_SHORT_VALUE = 40
_QUESTION = LabelKind.QUESTION
_DASHES = frozenset("—–-")
_FAILED_CHECK = frozenset({"fail", "failed", "failing", "fails", "nicht bestanden", "不合格"})
_NEGATED_OR_HEDGED = compile_lazily(
    r"(?<![a-z])(?:not|no|none|cannot|can't|won't|isn't|aren't|doesn't|never|yet|but|until|"
    r"unless|pending|if|maybe|perhaps|probably|unsure)(?![a-z])|不|没|未|但|ない|없"
)


def _unreadable(value: str, kind: LabelKind | None) -> Answer | None:
    """A verdict or a question whose answer holds no verdict word. A question without an
    answer never approves; a verdict label with descriptive praise ('Architecturally sound
    evolution') is no site, but one that negates, hedges or names problems is a verdict that
    does not approve."""
    if kind is _QUESTION:
        return Answer(_M, "", "a verdict question without an answer")
    text = clean_value(value)
    if kind in (LabelKind.VERDICT, LabelKind.OPINION) and _NOT_YET.search(text):
        return Answer(_F, "not yet", "not done yet: a request for more work")
    need = sig.obligation_in(text) if kind is LabelKind.VERDICT else None
    if need is not None:
        return Answer(_F, "", f"the verdict names work still to do ('{need}')")
    if kind is LabelKind.VERDICT and _NEGATED_OR_HEDGED.search(text):
        return Answer(_M, "", "the verdict holds no verdict word but negates or hedges")
    return None


_NOT_YET = compile_lazily(
    r"(?<![a-z])not(?: [^ .;,]{1,12}){0,3} yet(?![a-z])|尚未|还没|还不|まだ|아직"
)


# A YAML scalar followed by a comment: 'status: "PASS" # once CI is green' (a BMAD gate
# line is its recogniser's, `_templates/bmad`).
_SCALAR_COMMENT = compile_lazily(r"""[ \t]*("[^"]*"|'[^']*'|[^\s#"']+)[ \t]+#(.*)""")


def _answer_of(value: str, kind: LabelKind | None, *, heading: int) -> Answer | None:
    box = _checkbox_answer([value])
    if box is not None:
        return box
    scalar = _SCALAR_COMMENT.fullmatch(value)
    if scalar is not None:
        # The scalar is the answer; the comment after it is read like any text after an
        # answer, so '# once CI passes' still conditions an approval.
        answer = read_answer(clean_value(scalar.group(1)), kind or LabelKind.STATUS)
        if answer is None or answer.decision is not _A:
            return answer
        problem = after_approval(clean_value(scalar.group(2)), heading=heading)
        return Answer(problem[0], answer.phrase, problem[1]) if problem else answer
    return read_answer(clean_value(value), kind or LabelKind.STATUS, heading=heading)


def _next_answer(doc: Doc, index: int, kind: LabelKind) -> Answer | None:
    """The answer on the next live lines for a label standing alone ('**Ready to merge?**'):
    the next paragraph line, or the one ticked box of a checklist."""
    boxes: list[str] = []
    for nxt in doc.lines[index + 1 : index + 12]:
        if nxt.blank and not boxes:
            continue
        if not nxt.live or nxt.heading_level or nxt.blank:
            break
        if _CHECKBOX.match(nxt.low):
            boxes.append(nxt.low)
            continue
        if boxes:
            break
        if any(True for _ in _label_values(nxt.low)):
            return None  # the next line speaks for itself
        return read_answer(nxt.clean, kind)
    return _checkbox_answer(boxes) if boxes else None


def _checkbox_answer(items: list[str]) -> Answer | None:
    """Exactly one ticked box is the answer; none or several is no answer."""
    boxes = [_CHECKBOX.match(item) for item in items]
    if not boxes or any(box is None for box in boxes):
        return None
    ticked = [box.group(2) for box in boxes if box is not None and box.group(1) != " "]
    if len(ticked) != 1:
        return Answer(_M, "", f"{len(ticked)} ticked answers in the checklist")
    return read_answer(clean_value(ticked[0]), _QUESTION) or Answer(
        _M, "", "the ticked answer is not a verdict"
    )


def _dialect_of(kind: LabelKind | None) -> str:
    if kind is _QUESTION:
        return "superpowers"
    if kind in (LabelKind.VERDICT, LabelKind.OPINION):
        return "verdict-line"
    return "status-line"


# --------------------------------------------------------------------------- questions

_QUESTION_RE = compile_lazily(
    r"(?<![a-z])(?:ready to (?:complete|proceed|release|commit|ship|land|merge)[^?]{0,40}|"
    r"ready for merge|safe to merge|ok to merge|okay to merge|"
    r"good to merge|mergeable|merge ready|can (?:this|it|we) (?:be )?merged?|should (?:this|it|we)"
    r" (?:be )?merged?|is (?:this|it) ready(?: to merge)?|ready to ship|ready to land|"
    r"listos? para (?:fusionar|merge|mergear|integrar)|pronto para (?:merge|mesclar|integrar)|"
    r"prêt à (?:fusionner|merger|intégrer)|bereit (?:zum|für den) (?:merge|mergen)|"
    r"(?:可以|能否|是否可以|是否可)合并吗?|マージ(?:可能|して(?:も)?(?:いい|よい))(?:ですか)?|"
    r"병합(?:해도 될까요| 가능한가요))[ \t*_`]*\?"
)
_ANSWER_LEAD = compile_lazily(r"[\s\"'“”*_`:)\]]*(?:(?:my |the |final )?answer[\s*_`]*:)?[\s*_`]*")


def _question_anywhere(doc: Doc, index: int, line: Line) -> Site | None:
    """A verdict question later on a line ('… "Is it safe to merge?" **Answer:** NO')."""
    text = line.low
    if "?" not in text:
        return None
    match = _QUESTION_RE.search(text)
    if match is None:
        return None
    before = text[: match.start()]
    after = text[match.end() :]
    scoped = _OTHER_SCOPE.search(before) is not None or reported_before(before)
    quoted = before.count('"') % 2 == 1 or before.count("“") > before.count("”")
    lead = _ANSWER_LEAD.match(after)
    answer_text = after[lead.end() :] if lead is not None else after
    if quoted and not re.match(r"\s*[\"”]", after):
        return None  # the question and its answer are both inside a quotation
    if answer_text.strip():
        answer = _answer_of(answer_text, _QUESTION, heading=line.heading_level)
    else:
        answer = _next_answer(doc, index, _QUESTION)
    if answer is None:
        answer = Answer(_M, "", "a verdict question without an answer")
    site = make_site(index, line, answer, dialect="superpowers", where="question", kind=_QUESTION)
    return replace(site, local=True) if scoped else site


# A verdict scoped to another change or part: 'For PR #12: Ready to merge? Yes',
# 'Verdict (previous round): APPROVE'. Not this document's verdict.
_OTHER_SCOPE = compile_lazily(
    r"(?<![a-z])(?:for|re|regarding|about|on)\b[^:?]{0,40}(?:#\d|pr\b|mr\b|pull request|"
    r"merge request|issue|ticket|branch)|#\d{1,7}|(?<![a-z])(?:previous|earlier|prior|last|old|"
    r"other|another|yesterday)(?:[ \t]+[a-z]{1,12}(?:'s)?){0,2}[ \t]+(?:round|review|pr|mr|"
    r"version|draft|commit|change|branch)"
)


# --------------------------------------------------------------------------- tables


# First header cells that name who gave each row's verdict: a table of per-reviewer results
# ('| Reviewer | Verdict |'), not of checks of the change.
_REVIEWER_HEADERS = frozenset(
    phrases(
        """reviewer|reviewers|review agent|reviewer agent|agent|agents|persona|lens|perspective|
specialist|voter|model|审查者|评审人|レビュアー|리뷰어|revisor|revisora|relecteur|prüfer|gutachter"""
    )
)


_STATE_MARKUP = " \t*_`~\ufe0f"


def _unread_state(cell: str) -> bool:
    """A reviewer's state that says something no rule reads (`🔁`, `🤔`, `re-review asked`):
    not blank, not a dash or a none, and no check mark in it (`✅`, `Lead pass — ✅`)."""
    text = cell.strip(_STATE_MARKUP)
    if not text.strip("-—–") or any(mark in text for mark in "✅✔☑"):
        return False
    return not says_none(text)


# First header cells that name each row as one round of the same review ('| Run | Date |
# Status |', a GSD verification audit trail): the rows are successive verdicts on the whole
# change, not parts of it, and the last review decides (README). Only when the rows count up
# ('1 (initial)', '2 (re-verify)'): a log whose order is not shown keeps every row.
_ROUND_HEADERS = frozenset(
    phrases(
        """run|round|iteration|attempt|cycle|pass|review round|review cycle|verification run|
re-review|revision|ronda|rodada|tour|durchgang|轮次|轮|回合"""
    )
)
_ROUND_NUMBER = compile_lazily(r"[ \t*_`#]*(?:round |run |r|v)?(\d{1,4})(?!\d)")


def _round_number(cell: str) -> int | None:
    """The round a log row's first cell numbers ('2 (re-verify)', 'Round 3', '**R2**')."""
    found = _ROUND_NUMBER.match(cell)
    return int(found.group(1)) if found is not None else None


def _row_site(site: Site, *, by_reviewer: bool = False) -> Site:
    """A row of a table with several rows speaks for one part. In a status column it is one
    check's result: a failed check asks for fixes, it is not the reviewer rejecting the
    change ('| Biome overall | FAIL (pre-existing) |'). A row of a per-reviewer table is a
    local verdict (README: local verdicts are not the document's verdict) unless it says no:
    its yes, or an answer it words so that no rule reads it ('Lead pass — ✅'), never decides;
    its no still keeps the document from approving (fail closed)."""
    if by_reviewer and site.decision in (_A, _M):
        return replace(site, local=True)
    if site.kind is LabelKind.STATUS and site.decision is _R:
        return replace(site, part=True, decision=_F, reason=site.reason + " (a failed check)")
    return replace(site, part=True)


def _with_notes(cells: list[str], col: int, evidence: frozenset[int] = frozenset()) -> str:
    """A verdict cell read with the worded cells to its right: a note beside a pass ('| Quality
    | PASS | once the lockfile is regenerated |') qualifies it exactly as the same words in the
    cell would; a third cell is not a place a condition can hide. A cell of an *evidence*
    column (`evidence`: their indexes) is not read as the answer going on: it describes what
    was verified, and is read like any sentence by `_evidence_condition`."""
    notes = [
        CODE_SPAN.sub(_code_as_prose, c)
        for i, c in enumerate(cells[col + 1 :], start=col + 1)
        if i not in evidence
    ]
    return " — ".join([cells[col], *(c for c in notes if any(ch.isalpha() for ch in c))])


# A column header naming the proof of a row's result ('| # | Truth | Status | Evidence |', GSD's
# verification table): its cells say what was verified and how ('returns 401 when the token
# is missing'), so its words are not conditions on the row's pass. A qualifier that keeps
# that meaning may come first ('Relevant Evidence'); one that would name other content
# ('Pending evidence', 'Remaining …') is not on the list, so its column is still notes.
_EVIDENCE_HEADER = compile_lazily(
    r"(?:(?:relevant|supporting|key|test|run|verification) )?"
    r"(?:evidence|proof|how verified|verified by|verification|location|file|files|source|"
    r"test|tests|output|command|artifacts?|evid[eê]ncias?|prueba|证据|依据|근거)"
)


def _evidence_condition(cells: list[str], evidence: frozenset[int]) -> str | None:
    """A condition tied to the merge in an evidence cell ('… safe once the key is rotated
    before merge'): read as any sentence is, not as the answer's own clause."""
    for i in sorted(evidence):
        if i < len(cells):
            text = clean_value(CODE_SPAN.sub(_code_as_prose, cells[i]))
            found = sig.condition_in(text, answer_clause=False) or sig.blocking_in(text)
            if found is not None:
                return found
    return None


# An inline code span in a note cell: `exec-once = qs`, `try/except`.


def _code_as_prose(span: re.Match[str]) -> str:
    """A code span of a note cell renders as code, not the reviewer's English: its words are
    not conditions ('`exec-once = …`', '`retry_until_ready()`'). A span that holds a no is
    kept (fail closed: `` `FAIL` ``, `` `do not merge` `` beside a pass are still read)."""
    found = hits(clean_value(span.group(0)))
    return span.group(0) if any(h.decision not in (None, _A) for h in found) else " "


class _Table:
    """Tables: a row whose first cell is a label, or a column whose header is one."""

    def __init__(self) -> None:
        self.columns: dict[int, tuple[str, LabelKind | None]] = {}
        self.header_seen = False
        self.by_reviewer = False
        self.rows = 0
        self.sites: list[Site] = []
        self.unread: list[Site] = []
        self.evidence: frozenset[int] = frozenset()
        self.by_round = False
        self.round_numbers: list[int | None] = []
        self.last_row_start = 0

    def row(self, doc: Doc, index: int, line: Line) -> Iterator[Site]:
        cells = [c.strip() for c in line.low.strip().strip("|").split("|")]
        if all(set(c) <= set(":- ") for c in cells):
            return  # the separator row
        label = drop_parens(strip_label(clean_value(cells[0]))).rstrip("?: ")
        kind = label_kind(label)
        header = not self.header_seen
        self.header_seen = True
        if len(cells) >= 2 and not self.by_reviewer and (kind is not None or label in _PART_LABELS):
            # A stage's or part's notes qualify its pass ('| Quality | PASS | once … |'); a
            # verdict row's third cell is the accounting's (`_accounting`).
            value = _with_notes(cells, 1) if kind in (None, LabelKind.STATUS) else cells[1]
            site = _labelled_site(doc, index, line, _Pair(label, kind, value, "|"))
            if site is not None:
                yield site
                return
        if header:
            self.by_reviewer = label in _REVIEWER_HEADERS
            self.by_round = label in _ROUND_HEADERS
            evidence: set[int] = set()
            for col, cell in enumerate(cells):
                name = drop_parens(strip_label(clean_value(cell))).rstrip("?: ")
                col_kind = label_kind(name)
                if col_kind not in (None, LabelKind.OPINION) and col > 0:
                    self.columns[col] = (name, col_kind)
                elif col > 0 and _EVIDENCE_HEADER.fullmatch(name):
                    evidence.add(col)
            self.evidence = frozenset(evidence)
            return
        self.rows += 1 if self.columns else 0
        self.round_numbers.append(_round_number(cells[0]))
        self.last_row_start = len(self.sites)
        self._columns(index, line, cells)

    def _columns(self, index: int, line: Line, cells: list[str]) -> None:
        """The sites of a body row's verdict columns."""
        for col, (name, col_kind) in self.columns.items():
            if col < len(cells):
                notes = _with_notes(cells, col, self.evidence)
                answer = _answer_of(notes, col_kind, heading=0)
                condition = _evidence_condition(cells, self.evidence)
                if answer is not None and answer.decision is _A and condition is not None:
                    answer = Answer(_F, answer.phrase, f"qualified by '{condition}'")
                unread = answer is None and self.by_reviewer and _unread_state(cells[col])
                if unread:
                    why = f"no rule reads the reviewer's state '{cells[col][:40]}'"
                    answer = Answer(_M, "", why)
                if answer is not None:
                    where = f"table column '{name}'"
                    site = make_site(
                        index, line, answer, dialect="verdict-line", where=where, kind=col_kind
                    )
                    (self.unread if unread else self.sites).append(site)

    def close(self, found: list[Site]) -> None:
        """End of a table: a verdict column with several rows holds per-part verdicts."""
        if not self.header_seen:
            return
        several = self.rows > 1
        if several and self._counts_rounds():
            # A log of rounds: the rows above the last are superseded rounds (like a verdict
            # under '## Round 1' above '## Round 2'). The last row is the newest round's
            # record, a history entry beside the document's own verdict: it alone never
            # approves, and its no still counts.
            older, last = self.sites[: self.last_row_start], self.sites[self.last_row_start :]
            found.extend(replace(s, local=True) for s in older)
            found.extend(replace(s, local=s.decision is _A) for s in last)
        else:
            found.extend(
                _row_site(s, by_reviewer=self.by_reviewer) if several else s for s in self.sites
            )
        # A reviewer whose state no rule reads: that verdict is unknown, and an unknown
        # verdict is not a yes (a part's malformed answer keeps the document from approving).
        found.extend(replace(s, part=True) for s in self.unread)
        self.unread = []
        self.columns = {}
        self.header_seen = False
        self.by_reviewer = False
        self.rows = 0
        self.sites = []
        self.evidence = frozenset()
        self.by_round = False
        self.round_numbers = []
        self.last_row_start = 0

    def _counts_rounds(self) -> bool:
        """The table is a log of rounds whose rows count up, one round a row."""
        numbers = [n for n in self.round_numbers if n is not None]
        if not self.by_round or not numbers or len(numbers) < len(self.round_numbers):
            return False
        return all(a < b for a, b in itertools.pairwise(numbers))
