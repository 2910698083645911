"""What an approval has not weighed: findings written after it, defects stated beside it,
a part named in a cell beside it (rules (c) and (e) of `docs/verdicts.md`).

A verdict weighs what the review says before it. A document whose verdict is not its last
word must not hide a finding after it:

* **a finding after the approval** — under a heading that names findings without grading
  them (`Issues`, `Findings`, `Concerns`, `Security note`, `Caveats`, `Known issues` …), or
  on a line labelled as one (`**Issue:** …`, `Bug:`, `Warning:`), or an open task box
  (`- [ ] fix …`): unless it says none, is marked done, or stands under a heading that says
  its items do not block; when the verdict closes a body above it (it is not the document's
  opening statement), also an `Important` / `Major` / `High` item after it, and a paragraph
  under a `Critical` / `Blocker` heading (`fixes`) anywhere after it;
* **a defect stated in the reviewer's voice** anywhere in the deciding round, before or after
  the verdict (`Does not compile.`, `The migration drops the users table.`, `Tests fail on
  CI.` — `_defects`), except under a heading that tells the problem the change fixes
  (`Background`, `Root cause` …);
* **a cell beside the verdict** on a line of ` | `-separated cells (`Approve | backend`);
* **a part the reviewer says they did not read**, anywhere in the round, the verdict's line
  included (`the other 7 files were not reviewed`, `… outside this review` — `_scope`).

Each makes an approving document `malformed` (the hook asks for the verdict object), with
that line as evidence. One pass over the round: linear in the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mergegate.decisions import Decision
from mergegate.verdicts._accounting import check_not_passed
from mergegate.verdicts._awaited import awaited_event
from mergegate.verdicts._composed_phrases import DONE
from mergegate.verdicts._defects import stated_defect
from mergegate.verdicts._lines import Doc, Line, is_delimiter_row, is_table_row
from mergegate.verdicts._names import prose_of
from mergegate.verdicts._passed_reports import reports_pass
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._scope import named_part, unreviewed_part
from mergegate.verdicts._signals import NONE_ITEM, only_scope_in
from mergegate.verdicts._site import Site
from mergegate.verdicts._statement import LIST_ITEM
from mergegate.verdicts._tables import cells_say_none
from mergegate.verdicts._vocab import clean_value, hits

__all__ = ["ADVISORY_LABEL", "opens_document", "unweighed"]

_F, _M, _A = Decision.FIXES, Decision.MALFORMED, Decision.APPROVE
Refusal = tuple[Decision, int, str]

# 'Residual risk' (also 'Residual test risk'): by the term's meaning what is left once the
# change is accepted and nothing more will be fixed, so its section is advisory, not findings
# (unless a severity word grades it: 'Residual critical risks', 'Residual risk: high').
ADVISORY_LABEL = compile_lazily(
    r"(?<![a-z])(?:residual(?:[ \t]+(?!critical|blocking|blockers?|high|major|important|"
    r"severe|unresolved|unmitigated)[a-z-]+)?[ \t]+risks?(?![ \t:：—–()*_-]*(?:critical|blocking|"
    r"high|major|important|severe|medium|moderate))(?![a-z])|"
    r"minor|nits?|nitpicks?|suggestions?|suggested|recommendations?|improvements?|"
    r"optional|low|info|informational|praise|strengths?|nice[ -]to[ -]have|polish|cosmetic|"
    r"style|non[ -]?blocking|advisory|deferred|follow[ -]?ups?|future|post[ -]merge|later|"
    r"next steps?|out of scope)(?![a-z])|次要|建议|可选|非阻塞|menores?|opcional\w*|mejoras?"
)
_DONE_HEADING = compile_lazily(
    r"(?<![a-z])(?:closed|resolved|fixed|addressed|verified|confirmed|done|completed|"
    r"applied|previous|prior|earlier|round 1)(?![a-z])|已修复|已解决"
)
_IMPORTANT = compile_lazily(
    r"(?<![a-z])(?:important|major|high|medium|should[ -]fix|p1|p2)(?![a-z])|重要|중요"
)
_CRITICAL = compile_lazily(
    r"(?<![a-z])(?:critical|blockers?|blocking|must[ -]?fix|p0|showstoppers?)(?![a-z])|严重|阻塞|"
    r"重大|致命|심각|치명"
)
# GSD's gaps are its recogniser's (`_templates.gsd` reads them from the frontmatter).
_FINDINGS = compile_lazily(
    r"(?<![a-z])(?:issues?|findings?|problems?|concerns?|bugs?|defects?|risks?|caveats?|"
    r"warnings?|security (?:notes?|issues?|concerns?|findings?|risks?)|vulnerabilit(?:y|ies)|"
    r"regressions?|limitations?|errors?|flaws?|weaknesses)(?![a-z])|问题|风险|警告|指摘|문제|hallazgos|"
    r"problemas|riesgos|problèmes|risques|probleme|risiken|проблемы|замечания"
)
# Headings that tell the problem the change fixes: a defect stated there is its subject.
_CONTEXT = compile_lazily(
    r"(?<![a-z])(?:background|context|problem statement|the problem|motivation|root cause|"
    r"bug report|original (?:issue|bug|problem)|reproduction|steps to reproduce|symptoms?|"
    r"before|what was wrong|why)(?![a-z])"
)
# A finding's label, with the words that say it is still there before its noun ('Open bugs:',
# 'Known issues:', 'Unresolved security vulnerabilities:'); 'Fixed bugs:' names a record.
_FINDING_LABEL = compile_lazily(
    r"[ \t>*_+-]*(?:\d{1,3}[.)][ \t]*)?[*_`]*"
    r"(?:(?:open|known|remaining|outstanding|unresolved|unfixed|new|existing|critical|major|"
    r"high|blocking)[ \t]+){0,2}"
    r"(?:issue|problem|bug|defect|concern|risk|warning|gap|"
    r"caveat|finding|security[ \t]+(?:note|issue|concern|finding|risk)|vulnerabilit(?:y|ie)|"
    r"regression|limitation|flaw|todo|fixme|error|gotcha|failure)s?[*_`]*[ \t]*[:：]"
)
# A label value that grades rather than names: 'Risk: low', 'Security: none'.
_GRADE = compile_lazily(
    r"[ \t*_`]*(?:none|n/a|no|nothing|low|minimal|negligible|minor|0|zero|ok|fine|clean|"
    r"passed|pass|✅)(?![a-z0-9])"
)
_FINDING_NOUN = (
    r"(?:issues?|findings?|problems?|blockers?|concerns?|gaps?|bugs?|defects?|risks?|"
    r"vulnerabilit(?:y|ies)|regressions?|errors?|warnings?|caveats?|limitations?)"
)
# 'No blocking gaps found.': a finding noun negated, and nothing else.
_NO_FINDING = compile_lazily(
    rf"(?:no|zero|0)[ \t]+(?:[\w-]+,?[ \t]+){{0,5}}?{_FINDING_NOUN}(?:[ \t]+(?:found|identified|"
    r"reported|remaining|detected|observed|introduced|left))?"
    # where none was found: 'in scoped review targets', 'in the changed files'
    r"(?:[ \t]+(?:in|across|within)(?:[ \t]+[\w/.`-]{1,40}){1,5})?[ \t.!]*"
)
# The same told at length, read only as the whole item (a sentence after it is not read as
# explaining it): the participle in the passive, more modifiers and a longer place ('No
# phase-scoped correctness, security, or regression issues were identified in the reviewed
# Phase 8 source and test changes.').
_NO_FINDING_AT_LENGTH = compile_lazily(
    rf"(?:no|zero|0)[ \t]+(?:[\w-]+,?[ \t]+){{0,8}}?{_FINDING_NOUN}"
    r"(?:[ \t]+(?:(?:were|was|have been|has been)[ \t]+)?(?:found|identified|reported|"
    r"detected|observed|introduced))?"
    # the place: words, but no subordinator, time word or exception (closed classes) that
    # would make the none wait for something ('… in the parser until the fix lands')
    r"(?:[ \t]+(?:in|across|within)(?:[ \t]+(?!(?:yet|until|till|after|once|unless|if|when|"
    r"before|pending|but|except|only|so far)(?![\w-]))[\w/`-]{1,40}){1,10})?[ \t.!]*"
)
# A finding noun a heading negates ('Verification of scope items (no findings)'): the
# heading names what was checked, not findings, and is graded as if the words were not
# there. Nothing is trusted from it: its items are read as under any neutral heading.
_NEGATED_FINDING = compile_lazily(
    r"(?<![a-z])(?:no|zero|0|without)[ \t]+(?:(?:new|open|other|remaining|outstanding)[ \t]+)?"
    r"(?:issues?|findings?|problems?)(?![a-z])(?:[ \t]+(?:found|identified|reported))?"
)
_OPEN_BOX = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\[ \][ \t]+\S")
_CHECK_MARKS = ("✅", "✔", "☑")
_KEY_VALUE = compile_lazily(r"[^:：]{1,40}[:：]")
_LETTER = compile_lazily(r"[^\W\d_]")
_FIRST_SENTENCE = compile_lazily(r"[^.;!?。；]*")
# 'None blocking': none of the findings blocks (the item a blocking section holds when it has
# only non-blocking ones, or none at all).
_NONE_BLOCKING = compile_lazily(r"[*_ \t]*none[ \t]+blocking[*_ \t]*")


@dataclass(slots=True)
class _Heading:
    """The grade of the section a line stands in, from its nearest headings."""

    kind: str = ""
    """'' (neutral), 'advisory', 'done', 'context', 'important', 'critical' or 'findings'."""
    level: int = 0


@dataclass(slots=True)
class _Scan:
    """What the walk over the round knows about where it stands."""

    anchor: int | None
    leading: bool
    front: bool
    heading: _Heading = field(default_factory=_Heading)
    table: str | None = None
    """The grade a findings table gives its rows ('findings', 'graded'), None elsewhere."""
    alert: str | None = None
    """The kind of the GitHub alert quote the line stands in ('warning' …), None elsewhere."""
    paragraph: bool = False
    """The line continues the verdict's own paragraph (a hard line break)."""
    low_list: int | None = None
    """Inside the list under a label that grades it low ('Suggestions:', '- Minor:'): the
    label's indent (-1 for a label that is not itself an item), None elsewhere."""
    evidence_list: int | None = None
    """Inside the list under a label that introduces evidence ('**Evidence:**', 'Result:'):
    the label's indent (-1 for a label that is not itself an item), None elsewhere."""
    passed_item: int | None = None
    """Inside a list item that reports a passed check (`_passed_report`): its indent, so
    the lines that continue it are read with it; None elsewhere."""


def unweighed(
    doc: Doc, in_scope: list[Site], start: int, covered: frozenset[int]
) -> Refusal | None:
    """The first thing in the deciding round that the approval has not weighed, as a
    refusal (decision, line index, why), or None. `in_scope` are its approving sites."""
    sites = {s.index for s in in_scope if not s.frontmatter}
    # The prose verdict of the whole change (a trailer sums up the prose above it, a part's
    # yes never approves alone); a frontmatter verdict is stated before the whole body.
    body = sorted(
        s.index for s in in_scope if not s.frontmatter and s.dialect != "json" and not s.part
    )
    anchor = body[-1] if body else None
    front = any(s.frontmatter for s in in_scope)
    if front:
        found = _frontmatter_scope(doc)
        if found is not None:
            return found
    scan = _Scan(anchor, anchor is None or opens_document(doc, anchor, sites), front)
    for index in range(max(start, doc.frontmatter_end + 1), len(doc.lines)):
        problem = _step(doc, index, scan, sites, covered)
        if problem is not None:
            return _refusal(problem[0], doc.lines[index], index, problem[1])
    return None


def _step(
    doc: Doc, index: int, scan: _Scan, sites: set[int], covered: frozenset[int]
) -> tuple[Decision, str] | None:
    """Read one line of the round, keeping `scan` up to date."""
    line = doc.lines[index]
    after = index > scan.anchor if scan.anchor is not None else scan.front
    if line.blank:
        scan.table, scan.alert, scan.paragraph = None, None, False
        return None
    scan.paragraph = scan.paragraph or index - 1 == scan.anchor
    unread = unreviewed_part(line.low) if line.live and index not in covered else None
    if unread is not None:  # on the verdict's line too: 'APPROVED up to `a1b2`; … outside …'
        return _M, f"the line says part of the change was not reviewed ('{unread}')"
    return _structured(doc, index, scan, sites, covered, after=after)


def _structured(
    doc: Doc, index: int, scan: _Scan, sites: set[int], covered: frozenset[int], *, after: bool
) -> tuple[Decision, str] | None:
    line = doc.lines[index]
    if scan.alert is not None or _ALERT.match(line.raw):
        return _alert_line(line, scan, after=after)
    if line.heading_level and line.live:
        scan.heading, scan.low_list = _grade(line, scan.heading), None
        return None if scan.heading.kind == "context" else _said(line.prose, "a heading")
    shown = line.live or line.instruction_like  # 'Output:' also introduces examples
    if after and shown and _evidence_label(doc, index, scan):
        # before the lines other readers cover: an 'Output:' they account for still has
        # its block read
        return _failed_result(doc, index)
    if not line.live or index in covered or not _LETTER.search(line.raw):
        return None
    if is_table_row(line.raw):
        scan.table = _table_grade(doc, index, scan.table)
    if index in sites:
        return _beside_verdict(doc, index)
    passed = after and _passed_report(doc, index, scan)
    return _paragraph_part(line, scan, after=after) or _body_line(
        line, scan, after=after, passed=passed
    )


# How many lines an item is read over for a passed report: a wrapped item ('- Phase 1
# tests (in `a.py`, `b.py`):' / '  pass.') is one report; a longer one is read as written.
_ITEM_REACH = 4


def _passed_report(doc: Doc, index: int, scan: _Scan) -> bool:
    """The line reports a check that passed (`reports_pass`), read with the lines that
    continue its list item; or it is one of those lines."""
    line = doc.lines[index]
    item = LIST_ITEM.match(line.raw) is not None
    if scan.passed_item is not None and not item and line.indent > scan.passed_item:
        return True
    scan.passed_item = None
    text = line.prose
    if item:
        more = []
        for follow in doc.lines[index + 1 : index + 1 + _ITEM_REACH]:
            if follow.blank or LIST_ITEM.match(follow.raw) or follow.indent <= line.indent:
                break
            more.append(follow.prose.strip())
        text = " ".join([text, *more])
    if not reports_pass(text):
        return False
    scan.passed_item = line.indent if item else None
    return True


def _paragraph_part(line: Line, scan: _Scan, *, after: bool) -> tuple[Decision, str] | None:
    if not (scan.paragraph and after):
        return None
    part = only_scope_in(line.clean) or named_part(line.clean)
    if part is None:
        return None
    return _M, f"the verdict's paragraph goes on to name a part ('{part}')"


def _body_line(
    line: Line, scan: _Scan, *, after: bool, passed: bool
) -> tuple[Decision, str] | None:
    """A line of the body: an item of an evidence list is a result (only a defect it
    states refuses); any other line is read for a finding (`_line_problem`)."""
    graded_low = _in_low_list(line, scan)
    if after and _passed_evidence_item(line, scan):
        return _said(line.prose, "the line")
    return _line_problem(line, scan, after=after, graded_low=graded_low, passed=passed)


# A label that names the block below it as evidence of a run, alone on its line: 'Command:',
# '**Evidence:**', 'Output:', 'Test results:', '- Commands run:'. It introduces that block
# (its fenced output or its list of results); it states no finding. Closed: the names of
# what a verification section shows, as in a check table's evidence column.
_EVIDENCE_LABEL = compile_lazily(
    r"[ \t>]*(?:[-*+][ \t]+)?[*_`]{0,2}(?:(?:test|tests|build|lint|ci|verification|"
    r"regression|command|check)[ \t]+)?(?:commands?(?:[ \t]+(?:run|used|executed))?|"
    r"results?|outputs?|evidence|proof|logs?|runs?|ran)[*_`]{0,2}[ \t]*[:：][*_`]{0,2}[ \t]*"
)
_FENCE = compile_lazily(r"[ \t]*(?:`{3,}|~{3,})")
_COMMAND_LABEL = compile_lazily(r"[^:：]*(?<![a-z])(?:commands?|ran)(?![a-z])")
# How far a label's fenced block is read for a failed result (a block longer than this is
# read that far; the rest of it is code, as any fence is).
_BLOCK_REACH = 200


def _evidence_label(doc: Doc, index: int, scan: _Scan) -> bool:
    """The line is an evidence label (`_EVIDENCE_LABEL`) and the next line that is not
    blank opens the fenced block or the list it introduces. Its list's items are then read
    as results (`_passed_evidence_item`)."""
    line = doc.lines[index]
    if _EVIDENCE_LABEL.fullmatch(line.low) is None:
        return False
    following = next((doc.lines[i] for i in range(index + 1, len(doc.lines))
                      if not doc.lines[i].blank), None)  # fmt: skip
    if following is None:
        return False
    if LIST_ITEM.match(following.raw):
        scan.evidence_list = line.indent if LIST_ITEM.match(line.raw) else -1
        return True
    return _FENCE.match(following.raw) is not None


# A result in a run's output that did not pass: a failure, an error, a failure mark or a
# non-zero exit, unless counted zero ('0 failed', 'no errors').
_FAILED_RESULT = compile_lazily(
    r"(?<![a-z0-9])(?<!\b0 )(?<!no )(?<!zero )(?:fail(?:s|ed|ures?|ing)?|errors?|err!|"
    r"exceptions?|traceback|panic(?:ked)?|abort(?:ed)?|timed out|timeout)(?![a-z])|[✗✘❌]|"
    r"exit (?:code|status)[ \t:=]*[1-9]"
)


def _failed_result(doc: Doc, index: int) -> tuple[Decision, str] | None:
    """What an evidence label's fenced block says: a command label's block is the command;
    any other label's is the result, and a failure in it refuses the approval beside it."""
    if _COMMAND_LABEL.match(doc.lines[index].low):
        return None
    start = next(i for i in range(index + 1, len(doc.lines)) if not doc.lines[i].blank)
    if _FENCE.match(doc.lines[start].raw) is None:
        return None
    for i in range(start + 1, min(len(doc.lines), start + 1 + _BLOCK_REACH)):
        raw = doc.lines[i].raw
        if _FENCE.match(raw):
            return None
        failed = _FAILED_RESULT.search(raw.lower())
        if failed is not None:
            return _M, f"the result below an evidence label did not pass ('{raw.strip()[:60]}')"
    return None


# An item of an evidence list that reports a pass: its value (after its last colon, or the
# whole item) ends on a passing state ('- Phase 2 tests: pass.', '- pytest: 14 passed',
# '- ruff ✅').
_PASSED_ITEM = compile_lazily(
    r"(?:pass|passed|passes|passing|ok|clean|green|succeeded|success|verified)[ \t.!*_`]*$|"
    r"[✅✔✓☑][ \t.!*_`\ufe0f]*$"
)


def _passed_evidence_item(line: Line, scan: _Scan) -> bool:
    """An item of the list under an evidence label that reports a pass and states no
    failure: a result, not a finding (a failing result is left to the finding readers)."""
    if scan.evidence_list is None or not LIST_ITEM.match(line.raw):
        scan.evidence_list = None
        return False
    if line.indent <= scan.evidence_list:
        scan.evidence_list = None
        return False
    text = line.low.rstrip()
    return _PASSED_ITEM.search(text) is not None and _FAILED_RESULT.search(text) is None


def _low_label_alone(text: str) -> bool:
    """A low label with nothing after it on its line ('- Suggestions:', '**Minor:**')."""
    label = _LOW_LABEL.match(text)
    return label is not None and not text[label.end() :].strip(" \t*_`")


def _in_low_list(line: Line, scan: _Scan) -> bool:
    """The line is a label that grades the list below it low, or an item of that list: a
    list item deeper than an item label, or any item after a label that is not one. The list
    ends at the first other line."""
    if _low_label_alone(line.low):
        scan.low_list = line.indent if LIST_ITEM.match(line.raw) else -1
        return True
    if scan.low_list is not None and LIST_ITEM.match(line.raw) and line.indent > scan.low_list:
        return True
    scan.low_list = None
    return False


def _said(text: str, where: str, *, part: bool = False) -> tuple[Decision, str] | None:
    """A defect stated in `text` (or, with `part`, a part of the change named there)."""
    defect = stated_defect(text)
    if defect is not None and not _done(text):
        return _M, f"{where} states a defect ('{defect}')"
    named = only_scope_in(text) or named_part(text) if part else None
    return (_M, f"{where} names a part ('{named}')") if named is not None else None


_ALERTS_THAT_WARN = ("warning", "caution", "important")
_ALERT = compile_lazily(
    r"[ \t]{0,3}>[ \t]*\[!(note|tip|important|warning|caution)\]", re.IGNORECASE
)


def _alert_line(line: Line, scan: _Scan, *, after: bool) -> tuple[Decision, str] | None:
    """A GitHub alert (`> [!WARNING]`) renders as the writer's own callout, not as a quote:
    its text is read like any prose, and a warning, caution or important one after the
    approval is a finding of its own."""
    opened = _ALERT.match(line.raw)
    if opened is not None:
        scan.alert = opened.group(1).lower()
        return None
    if not line.raw.lstrip().startswith(">"):
        scan.alert = None
        return None
    text = prose_of(clean_value(line.low.lstrip(" >")))
    if not _LETTER.search(text):
        return None
    found = _said(text, "an alert", part=True)
    if found is None and after and scan.alert in _ALERTS_THAT_WARN and not _says_none(text):
        found = _M, f"a {scan.alert} callout after the approval ('{text[:60]}')"
    return found


def _refusal(decision: Decision, line: Line, index: int, why: str) -> Refusal:
    return (
        decision,
        index,
        f"line {line.number}: {why}; the approval has not weighed it, so it is not an "
        "unconditional approval of the change",
    )


def opens_document(doc: Doc, anchor: int, sites: set[int]) -> bool:
    """The verdict is the document's opening statement: no heading stands above it but the
    document's title and its own section's heading, and no prose of its section before it
    (other verdict lines and 'Key: value' lines aside)."""
    own = doc.lines[anchor].section
    headings = [i for i in range(anchor) if doc.lines[i].heading_level and doc.lines[i].live]
    if own is not None:
        headings = [i for i in headings if i != own.line_index]
    if headings and not (len(headings) == 1 and doc.lines[headings[0]].heading_level == 1):
        return False
    begin = own.line_index + 1 if own is not None else doc.frontmatter_end + 1
    return not any(_is_prose(doc.lines[i]) for i in range(begin, anchor) if i not in sites)


def _is_prose(line: Line) -> bool:
    if not line.live or line.blank or line.heading_level or not _LETTER.search(line.raw):
        return False
    passed_check = (
        line.raw.rstrip(" *_\ufe0f").endswith(_CHECK_MARKS) and len(line.raw.split()) <= 4
    )
    return _KEY_VALUE.match(line.clean) is None and not passed_check


def _grade(line: Line, current: _Heading) -> _Heading:
    text = line.clean
    kind = ""
    if (line.section is not None and line.section.advisory) or ADVISORY_LABEL.search(text):
        kind = "advisory"
    elif _DONE_HEADING.search(text):
        kind = "done"
    elif _CONTEXT.search(text):
        kind = "context"
    elif _CRITICAL.search(text):
        kind = "critical"
    elif _IMPORTANT.search(text):
        kind = "important"
    elif _FINDINGS.search(_NEGATED_FINDING.sub(" ", text)):
        kind = "findings"
    # A neutral subheading inherits its parent's grade ('## Issues' / '### auth.py').
    if not kind and current.kind and line.heading_level > current.level:
        return _Heading(current.kind, current.level)
    return _Heading(kind, line.heading_level)


def _line_problem(
    line: Line, scan: _Scan, *, after: bool, graded_low: bool = False, passed: bool = False
) -> tuple[Decision, str] | None:
    text = line.prose
    kind = scan.heading.kind
    found = _open_check(line) or (
        _said(text, "the line") if kind not in ("context", "done") else None
    )
    if found is None and after and kind == "done":
        found = _not_told_done(line, text)
    if found is not None or not after or kind in ("advisory", "done"):
        return found
    if passed or graded_low or _cleared(line, text):
        return None  # a check reported as passed ('- Workspace tests passed.'), or cleared
    if scan.table is not None:
        return _table_row_problem(line, scan)
    if kind == "critical" and not line.raw.lstrip().startswith(("-", "*", "+", "|")):
        return _F, f"a blocking section after the approval says '{text[:60]}'"
    graded = kind == "findings" or (kind == "important" and not scan.leading)
    if graded or (kind == "" and _finding_label(line)) or _OPEN_BOX.match(line.raw):
        return _M, f"a finding or an open task after the approval ('{text[:60]}')"
    return None


def _cleared(line: Line, text: str) -> bool:
    """A none, a fixed item, or one graded 'Minor:' / 'Nit:' by its label."""
    return bool(_says_none(text) or _done(text) or _LOW_LABEL.match(text) or _empty_row(line))


def _open_check(line: Line) -> tuple[Decision, str] | None:
    """A check marked as passed whose words say it is not (`check_not_passed`)."""
    unchecked = check_not_passed(line.raw)
    if unchecked is None:
        return None
    return _M, f"a check marked as passed says it is not ('{unchecked[:60]}')"


_NOT_DONE = compile_lazily(
    r"(?<![a-z])(?:not|never|n't)[ \t]+(?:yet[ \t]+|been[ \t]+|fully[ \t]+|actually[ \t]+)*"
    r"(?:fixed|resolved|addressed|corrected|remediated|closed|done|completed|implemented|"
    r"applied|landed)(?![a-z])|(?<![a-z])(?:unresolved|unfixed|unaddressed|reopened|"
    r"still open|remains open|still present|still fails)(?![a-z])"
)


def _not_told_done(line: Line, text: str) -> tuple[Decision, str] | None:
    """An item under a heading of work done ('## Resolved', '## Previous findings') after
    the approval must itself be told as done; the heading is the reviewer's word, and an
    item that is not done is a finding the approval has not weighed."""
    if not LIST_ITEM.match(line.raw):
        return None
    graded = _CRITICAL.search(text) or _IMPORTANT.search(text)
    if _NOT_DONE.search(text) is None and (_done(text) or not graded):
        return None
    return _M, f"an item under a heading of work done is not told as done ('{text[:60]}')"


def _empty_row(line: Line) -> bool:
    """A table row of nothing but blanks and "none"s: the row a template keeps in a table
    with no finding (`| — | — | None. | |`)."""
    return is_table_row(line.raw) and cells_say_none(line.low)


def _finding_label(line: Line) -> bool:
    """'**Issue:** …', 'Bug: …' with a value that names something ('Risk: low' grades)."""
    label = _FINDING_LABEL.match(line.low)
    if label is None or _yaml_key(line.raw):
        return False
    value = clean_value(line.low[label.end() :])
    return bool(value.strip()) and _GRADE.match(value) is None


def _yaml_key(raw: str) -> bool:
    """'finding: Slow' under a YAML list ('top_issues:'): a key of its recogniser's block,
    not a label the reviewer wrote ('Issue:', '**Bug:**')."""
    return raw.lstrip(" -")[:1].islower()


_SEVERITY_HEADER = compile_lazily(r"(?<![a-z])(?:severity|priority|level|impact|grade)(?![a-z])")
# The words that grade an item below blocking, as a label or in a table's severity cell.
_LOW = (
    "minor|nits?|suggestions?|optional|trivial|cosmetic|info|改善提案|提案|建议|推奨|任意|제안|권장"
)
# An item the reviewer grades below blocking, by its label: 'Minor: …', '- Nit: …'.
_LOW_LABEL = compile_lazily(rf"[ \t>*_+-]*[*_`]*(?:{_LOW}|nitpicks?)[*_`]*[ \t]*[:：]")
# A severity cell below blocking; a cell also says 'Low', 'P3' or 'Style'.
_GRADED_LOW = compile_lazily(rf"(?<![a-z])(?:{_LOW}|low|informational|p3|style)(?![a-z])")


def _table_grade(doc: Doc, index: int, current: str | None) -> str | None:
    """At a table's header row (the row above a delimiter row): 'findings' when its header
    names findings without a severity column, 'graded' when it has one, else None. Other
    rows keep the grade of their table."""
    below = doc.lines[index + 1].raw if index + 1 < len(doc.lines) else ""
    if not is_delimiter_row(below):
        return current
    header = doc.lines[index].clean
    if _FINDINGS.search(header) is None:
        return None
    return "graded" if _SEVERITY_HEADER.search(header) else "findings"


def _table_row_problem(line: Line, scan: _Scan) -> tuple[Decision, str] | None:
    """A row of a findings table after the approval: ungraded, or (when the verdict closes
    a body above it) graded above minor."""
    if is_delimiter_row(line.raw) or _FINDINGS.search(line.clean):
        return None  # the delimiter or the header row
    text = line.clean
    if scan.table == "graded" and (scan.leading or _GRADED_LOW.search(text)):
        return None
    return _M, f"a finding after the approval ('{text[:60]}')"


# A tally line: a grade or a finding noun as its label, then its count ('Critical: 0',
# '**Blocking issues:** none'). The value is read whole by `NONE_ITEM`.
_TALLY = compile_lazily(r"[*_`]*((?:[\w-]+[ \t]+){0,2}[\w-]+)[*_`]*[ \t]*[:：][*_`]*[ \t]*(.*)")


def _says_none(text: str) -> bool:
    item = text.strip(" -*+>")
    first = _FIRST_SENTENCE.match(item)
    if first is None:
        return False
    sentence = first.group(0).strip()
    if awaited_event(sentence) is not None:
        return False  # 'No issues left once the flag is off': none only after an event
    if _NONE_BLOCKING.fullmatch(sentence):
        # 'None blocking.' answers a blocking slot only as the whole item: it says some
        # findings exist, so a sentence after it is one of them, not an explanation.
        return not item[first.end() :].strip(" .!*_")
    if _NO_FINDING_AT_LENGTH.fullmatch(item):
        return True
    return (
        NONE_ITEM.fullmatch(sentence) is not None
        or _NO_FINDING.fullmatch(sentence) is not None
        or _zero_tally(text.strip(" -*+>"))
    )


def _zero_tally(text: str) -> bool:
    """A count of zero under its grade or finding noun ('- Critical: 0' in a superpowers
    review's `## Finding counts`): an empty section, told as a number. The whole value must
    be the zero; anything beside it ('0 (one open in auth.py)') is read as written."""
    tally = _TALLY.fullmatch(text)
    if tally is None or NONE_ITEM.fullmatch(tally.group(2)) is None:
        return False
    label = tally.group(1)
    return any(
        p.search(label) is not None for p in (_CRITICAL, _IMPORTANT, _FINDINGS, ADVISORY_LABEL)
    )


# A subordinate clause tells the event of a condition or a cause, not work done: 'never
# terminates when the socket closes', 'crashes because the handle is closed', 'fails once the
# job is completed'. Closed-class subordinators; the clause runs to its punctuation.
_SUBORDINATE_CLAUSE = compile_lazily(
    r"(?<![\w-])(?:when|whenever|if|once|after|before|until|till|while|because|unless|"
    r"as soon as)(?![\w-])[^,;:.!?—–()]*"
)


def _done(text: str) -> bool:
    """`text` tells work as done (`DONE`) in a main clause."""
    return DONE.search(_SUBORDINATE_CLAUSE.sub(" ", text)) is not None


def _beside_verdict(doc: Doc, index: int) -> tuple[Decision, str] | None:
    line = doc.lines[index]
    found = _cell_beside(line)
    if found is None and is_table_row(line.raw):
        found = _scope_in_table(doc, index)
    return (_M, f"a cell beside the verdict says '{found}'") if found is not None else None


def _cell_beside(line: Line) -> str | None:
    """On a line of ` | `-separated cells (not a table row), a worded cell after the one
    that holds the approving verdict, other than a 'Key: value' cell."""
    raw = line.raw.strip()
    if " | " not in raw or raw.startswith("|"):
        return None
    cells = [clean_value(c) for c in line.low.split(" | ")]
    verdict = next((i for i, c in enumerate(cells) if any(h.decision is _A for h in hits(c))), None)
    if verdict is None:
        return None
    for cell in cells[verdict + 1 :]:
        if _LETTER.search(cell) and ":" not in cell:
            return cell.strip()[:60]
    return None


_SCOPE_LABEL = compile_lazily(
    r"[ \t*_`]*(?:scope|scoped to|applies to|covers|coverage|component|components|area|part|"
    r"parts|package|packages|module|modules|paths?|subsystem|limited to)[ \t*_`:]*"
)
_WHOLE_VALUE = compile_lazily(
    r"[ \t*_`]*(?:all|everything|whole|entire|full|the whole change|whole change|whole pr|"
    r"all changes|the pr|this pr|n/a|none|-|—)?[ \t*_`.]*"
)
_TABLE_REACH = 40


def _scope_in_table(doc: Doc, index: int) -> str | None:
    """In the table that holds the verdict, a row or a column labelled as a scope ('| Scope |
    frontend |', '| Verdict | Scope |' over '| APPROVE | backend |') that names a part."""
    rows = _table_rows(doc, index)
    header = [clean_value(c) for c in doc.lines[rows[0]].low.strip().strip("|").split("|")]
    scope_columns = [i for i, c in enumerate(header) if _SCOPE_LABEL.fullmatch(c)]
    for row in rows[1:]:
        cells = [clean_value(c) for c in doc.lines[row].low.strip().strip("|").split("|")]
        if is_delimiter_row(doc.lines[row].raw):
            continue
        if len(cells) >= 2 and _SCOPE_LABEL.fullmatch(cells[0]) and not _whole(cells[1]):
            return cells[1].strip()[:60]
        for column in scope_columns:
            if column < len(cells) and not _whole(cells[column]):
                return cells[column].strip()[:60]
    return None


def _table_rows(doc: Doc, index: int) -> list[int]:
    first = index
    while first > 0 and index - first < _TABLE_REACH and is_table_row(doc.lines[first - 1].raw):
        first -= 1
    last = index
    while (
        last + 1 < len(doc.lines)
        and last - index < _TABLE_REACH
        and is_table_row(doc.lines[last + 1].raw)
    ):
        last += 1
    return list(range(first, last + 1))


def _whole(value: str) -> bool:
    return _WHOLE_VALUE.fullmatch(value) is not None


_FRONT_SCOPE = compile_lazily(
    r"[ \t]*(?:scope|applies_to|applies-to|covers|coverage|components?|paths?|packages?|"
    r"modules?|area|parts?)[ \t]*:[ \t]*(.*)"
)


def _frontmatter_scope(doc: Doc) -> Refusal | None:
    """A frontmatter verdict beside a top-level scope key that names a part."""
    for index in range(max(doc.frontmatter_end, 0)):
        line = doc.lines[index]
        found = _FRONT_SCOPE.fullmatch(line.raw.casefold())
        if (
            found is not None
            and found.group(1).strip(" '\"[]")
            and not _whole(found.group(1).strip(" '\""))
        ):
            return _refusal(
                _M, line, index, f"the frontmatter scopes the verdict ('{line.raw[:60]}')"
            )
    return None
