"""BMAD's QA gate, and a BMAD story file read from its templates (`_bmad_story`: the story's
sections, v6's `Senior Developer Review (AI)` Outcome and action items).

The gate: `gate: PASS | CONCERNS | FAIL | WAIVED` (the gate yaml, the story's
`Gate: X → docs/qa/gates/….yml` line, or a gate written in Markdown: `## Gate Status: PASS`,
its `Top Issues` blocks and `Risk Summary` counts read as a gate file's `top_issues` and
`risk_summary.totals`). Only PASS approves: CONCERNS asks for fixes, FAIL
rejects, and WAIVED is a person setting the gate aside, not the reviewer approving (fixes).

A field is the gate line with its value, optionally the path of the gate file, and optionally
a YAML comment. The template's own comment listing the values (`# PASS|CONCERNS|FAIL|WAIVED`)
is scaffolding; any other comment after PASS is read like text after an approval on the same
line (`# once CI is green` → fixes, `# final` stays an approval): whoever reads the file sees it
beside the value.

The gate's `top_issues` list is blocking content when it holds an issue of medium severity or
above, or one whose severity it cannot read: BMAD's own rule sets the gate to CONCERNS (medium)
or FAIL (high) for those, so a PASS beside them is inconsistent and does not approve (fails
closed to fixes). An item whose own `status:` or `resolution:` says it is resolved (closed,
fixed, done; perhaps with the fix after a dash) is a record of an issue the reviewer closed in
a later pass, not an open one.

A gate file's whole-line `#` comments are YAML comments, not Markdown headings: accounted for,
unless one states a problem beside the gate (blocking work, a defect now, another verdict).

A gate file's `status_reason` ("1-2 sentence summary of why this gate decision", the
template says) is the gate's own reason wherever it stands in the file (YAML key order and
blank lines mean nothing): each sentence's first clause, and every clause that opens with a
contrast, is read like the verdict's own line; its other clauses like text after it
(`_reason_problem`). Two shapes of a PASS's reason are read as what they say, not as
conditions: a fix told as done (`criteria met after fixing the bug`: a reached state, a
completion participle with no modal before it, then `after` and a gerund), and an obligation
the reason itself declares non-blocking in its clause (`clarification needed but not
blocking`; not `must`, and a merge-tied condition beside it still counts).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from mergegate.decisions import Decision
from mergegate.verdicts._answer import after_approval
from mergegate.verdicts._block import clauses_problem
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._model import Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import LIST_MARK, Site
from mergegate.verdicts._statement import CLAUSES, other_verdict
from mergegate.verdicts._templates._base import Recognised, mask
from mergegate.verdicts._templates._bmad_story import StoryReading, read_story
from mergegate.verdicts._templates._checks import states_problem
from mergegate.verdicts._templates._fields import field_site, line_fields, load_yaml
from mergegate.verdicts._templates._gate_yaml import (
    blocking_severity,
    open_top_issue,
    shape_problem,
)
from mergegate.verdicts._templates.superpowers import read_sections
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["NAME", "recognise"]

NAME = "bmad"

_GATE = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+|#{1,6}[ \t]+)?[*_]*(?:qa[ \t]+)?gate(?:[ \t]+status)?[*_]*"
    r"[ \t]*:[ \t]*[*_\"']*"
    r"[ \t]*(pass|concerns|fail|waived)[*_\"']*(?:[ \t]*(?:→|->)[ \t]*`?[\w./{}-]{1,200}`?)?[ \t]*"
    r"(?:#(.{0,200}))?",
    re.IGNORECASE,
)
_VALUES_COMMENT = compile_lazily(
    r"[ \t]*(?:pass|concerns|fail|waived)(?:[ \t]*[|,/][ \t]*(?:pass|concerns|fail|waived)){3}"
    r"[ \t]*",
    re.IGNORECASE,
)
_DECISION = {
    "pass": (Decision.APPROVE, "the QA gate is PASS"),
    "concerns": (Decision.FIXES, "the QA gate is CONCERNS"),
    "fail": (Decision.REJECT, "the QA gate is FAIL"),
    "waived": (Decision.FIXES, "the QA gate is WAIVED: set aside by a person, not passed"),
}
_TOP_ISSUES = compile_lazily(r"top_issues[ \t]*:(.*)")
_SEVERITY = compile_lazily(r"(?<![a-z_])severity[ \t]*:[ \t]*[\"']?([a-z]{0,20})")
_MAX_ISSUE_LINES = 2_000
# An item's own status field closing it ('status: "RESOLVED"'): the values that say done.
# Its `resolution:` may explain the fix after a dash ('resolution: "FIXED - added checks"').
_CLOSED_ISSUE = compile_lazily(
    r"(?<![a-z_])(?:status|resolution)[ \t]*:[ \t]*[\"']?(?:resolved|closed|fixed|done)"
    r"(?:[\"']?[ \t]*(?:$|[,}#])|[ \t]+[-—–][ \t])"
)


def recognise(doc: Doc) -> Recognised | None:
    """Every gate line as a verdict field, or None when there is none. In a gate file's
    `history:` list only the last entry is read (the list is appended to, so the earlier
    entries are older records the top-level `gate:` already replaced); a top-level `gate:`
    whose value is none of the four makes the file `malformed`."""
    found = line_fields(doc, _GATE, _gate_decision, name=NAME, max_chars=460)
    whole = _is_gate_file(doc)
    story = None if whole else read_story(doc, dialect=NAME)
    found = _with_story(found, story)  # YAML read whole by this recogniser: no prose in it
    unknown = _unknown_gate(doc) or ((_prose_line(doc) or shape_problem(doc)) if whole else None)
    if whole:
        # In YAML a '#' line is a comment, not the Markdown heading `_GATE` also reads.
        found = _without_comment_fields(doc, found)
        found, nested_problem = _nested_gate(doc, found)
        unknown = unknown or nested_problem
    if found is None and whole and unknown is None:
        # A gate file without its gate field (commented out: '# gate: PASS' is a YAML comment)
        unknown = (0, "the gate file has no gate field")
    if found is None:
        return None if unknown is None else Recognised(name=NAME, unanswered=unknown, whole=whole)
    rounds = _older_rounds(doc, found.sites)
    older = _older_history(doc, {s.index for s in found.sites}) | rounds
    # A story's QA Results may list a Critical Issues section (outside the lifted rounds).
    listed = read_sections(mask(doc, rounds), NAME, blocking=frozenset({Severity.CRITICAL}))
    data = _loads(doc) if whole else None  # a YAML mapping: its '#' lines are comments
    comments, said = _comments(doc) if data is not None else (frozenset(), None)
    reason, conditioned = _status_reason(doc, data)
    entries = _older_entries(doc, older) if data is not None else frozenset()
    recommended, advised = _recommended_status(doc)
    if not whole:
        issues, open_issue = _markdown_top_issues(doc)
        risks, critical = _markdown_risk_summary(doc)
        recommended |= issues | risks
        advised = advised or open_issue or critical
    told = story if story is not None else StoryReading()
    return replace(
        found,
        sites=tuple(s for s in found.sites if s.index not in older),
        superseded=frozenset(older) | told.superseded,
        accounted=(
            found.accounted | older | entries | comments | reason | recommended | told.accounted
        ),
        blocking=(
            told.blocking
            or (listed.blocking if listed is not None else None)
            or advised
            or _top_issue(doc)
            or open_top_issue(doc, data)
            or said
            or conditioned
            or _last_history(doc, data)
            or _open_fields(doc, data)
        ),
        unanswered=unknown,
        whole=whole,
    )


def _with_story(found: Recognised | None, story: StoryReading | None) -> Recognised | None:
    """`found` with the story's Senior Developer Review outcome as one more field."""
    if story is None or not story.sites:
        return found
    base = found if found is not None else Recognised(name=NAME)
    return replace(
        base,
        sites=(*base.sites, *story.sites),
        accounted=base.accounted | {s.index for s in story.sites},
    )


# A gate written in Markdown lists its top issues under a `Top Issues` heading, one block
# each ('### 1. TEST-001: Coverage not automated' and its field lines '- **Severity**: …',
# '- **Finding**: …', '- **Resolution**: …').
_TOP_ISSUES_HEADING = compile_lazily(r"[\W\d_]*top[ \t]+issues?[\W_]*")
_SEVERITY_FIELD = compile_lazily(r"[ \t]*(?:[-*+][ \t]+)?[*_]*severity[*_]*[ \t]*:[*_ \t]*(\w+)")
_CLOSED_SEVERITY = frozenset({"resolved", "closed", "fixed", "done"})


def _markdown_top_issues(doc: Doc) -> tuple[frozenset[int], tuple[int, str] | None]:
    """(lines, blocking) of a Markdown gate's `Top Issues` section: an issue block whose
    `Severity` field closes it (resolved, closed, fixed, done: BMAD's record of an issue a
    later pass closed) or grades it low is accounted for, unless a line of it states a
    problem; one graded medium or above, or with no readable severity, is blocking content
    (BMAD's rule makes that gate CONCERNS or FAIL), as in a gate file's `top_issues`. A
    section with text outside its issue blocks is left to the generic reader."""
    start = _heading_named(doc, _TOP_ISSUES_HEADING)
    blocks = _issue_blocks(doc, start) if start is not None else None
    if start is None or not blocks:
        return frozenset(), None
    accounted: set[int] = {start}
    for block in blocks:
        problem = _open_issue(doc, block)
        if problem is not None:
            return frozenset(), problem
        if any(doc.lines[i].live and states_problem(norm(doc.lines[i].raw).lower()) for i in block):
            break  # the block states a problem: its lines stay with the generic reader
        accounted.update(block)
    return frozenset(accounted), None


def _heading_named(doc: Doc, name: re.Pattern[str]) -> int | None:
    """The index of the first live heading whose text is `name`, or None."""
    return next(
        (
            i
            for i, line in enumerate(doc.lines)
            if line.live
            and line.heading_level
            and name.fullmatch(norm(line.heading_text).lower()) is not None
        ),
        None,
    )


def _issue_blocks(doc: Doc, start: int) -> list[list[int]] | None:
    """The blocks under the heading at `start`, each a deeper heading and its lines, up to a
    heading at its level or above; None when a visible line stands outside every block."""
    level = doc.lines[start].heading_level
    blocks: list[list[int]] = []
    for index in range(start + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level and line.heading_level <= level:
            break
        if line.heading_level:
            blocks.append([index])
        elif blocks:
            blocks[-1].append(index)
        elif line.live and not line.blank:
            return None
    return blocks


def _open_issue(doc: Doc, block: list[int]) -> tuple[int, str] | None:
    """(line index, why) when the issue block's first `Severity` field is missing or grades
    it above low without closing it."""
    grades = [
        found.group(1)
        for i in block
        if (found := _SEVERITY_FIELD.match(norm(doc.lines[i].raw).lower())) is not None
    ]
    if not grades:
        return block[0], "a top issue whose severity is not given"
    if grades[0] in _CLOSED_SEVERITY:
        return None
    try:
        severity = Severity.from_word(grades[0])
    except ValueError:
        return block[0], f"a top issue whose severity '{grades[0]}' is unreadable"
    if severity is not Severity.MINOR:
        return block[0], f"the gate lists a {grades[0]}-severity top issue"
    return None


# A Markdown gate's `Risk Summary`: one count per grade ('- Critical risks: 0', '- High
# risks: 1 (TECH-001: Expression parsing)'), the counts `risk_summary.totals` holds in a gate
# file, with at most the risks' ids and names in parentheses.
_RISK_SUMMARY_HEADING = compile_lazily(r"[\W\d_]*risk[ \t]+summary[\W_]*")
_RISK_COUNT = compile_lazily(
    r"[ \t]*[-*+][ \t]+[*_]*(critical|high|medium|low)[ \t]+risks?[*_]*[ \t]*:[*_ \t]*"
    r"(\d{1,3})[ \t]*(?:\([^()]{0,200}\))?[ \t.]*"
)


def _markdown_risk_summary(doc: Doc) -> tuple[frozenset[int], tuple[int, str] | None]:
    """(lines, blocking) of a Markdown gate's `Risk Summary` section made only of risk counts
    (`_RISK_COUNT`): accounted for, as `risk_summary.totals` is in a gate file — unless it
    counts a critical risk, which BMAD's rule makes a FAIL (blocking content). A section with
    any other line is left to the generic reader."""
    start = _heading_named(doc, _RISK_SUMMARY_HEADING)
    if start is None:
        return frozenset(), None
    counted: list[int] = []
    for index in range(start + 1, len(doc.lines)):
        line = doc.lines[index]
        if line.heading_level:
            break
        if line.blank or not line.raw.strip():
            continue
        count = _RISK_COUNT.fullmatch(norm(line.raw).lower())
        if count is None or not line.live:
            return frozenset(), None
        if count.group(1) == "critical" and int(count.group(2)) > 0:
            why = "the risk summary counts a critical risk: BMAD's rule says FAIL"
            return frozenset(), (index, why)
        counted.append(index)
    return (frozenset({start, *counted}) if counted else frozenset()), None


# The QA Results template's last section: '### Recommended Status' and one of its two values,
# '[✓ Ready for Done]' or '[✗ Changes Required - See unchecked items above]'.
_RECOMMENDED = compile_lazily(r"[#*_ \t]*recommended[ \t]+status[*_: \t]*")
_READY = compile_lazily(r"[\[(*_ \t]*(?:✓|✔|✅)?[ \t]*ready for done[\])*_ \t.]*")
# The template's own note under its values: '(Story owner decides final status)'.
_OWNER_NOTE = r"[(\[*_ \t]*story owner decides(?: the)? final status[)\]*_ \t.]*"
_NOTE = compile_lazily(_OWNER_NOTE)
_READY_NOTED = compile_lazily(rf"{_READY.pattern}{_OWNER_NOTE}")

# The value, then the reviewer's reason after a dash or colon: '✓ Ready for Done - the
# implementation is complete'.
_READY_GIVING_REASON = compile_lazily(
    r"[\[(*_ \t]*(?:✓|✔|✅)?[ \t]*ready for done[\])*_]*[ \t]*(?:[-–—:][ \t]+)(?=\w)"
)

_OTHER_VALUE = compile_lazily(r"changes required(?![a-z])")
_CHANGES = compile_lazily(r"[\[(*_ \t]*(?:✗|✘|❌)?[ \t]*changes required(?![a-z]).*")


def _recommended_status(doc: Doc) -> tuple[frozenset[int], tuple[int, str] | None]:
    """(lines, blocking) of the template's `Recommended Status` section: its heading and a
    sole 'Ready for Done' are accounted for (the gate decides); 'Changes Required' blocks.
    Anything else in the section is left to the generic reader."""
    for index, line in enumerate(doc.lines):
        if not (line.heading_level and _RECOMMENDED.fullmatch(line.clean)):
            continue
        body: list[int] = []
        notes: set[int] = set()
        for below in range(index + 1, len(doc.lines)):
            line_below = doc.lines[below]
            # the structure reads a bracketed '[✓ Ready for Done]' as a heading of its own
            valued = _READY.fullmatch(line_below.clean) or _CHANGES.fullmatch(line_below.clean)
            if line_below.heading_level and not (valued and not body):
                break
            if body and line_below.live and _NOTE.fullmatch(line_below.clean):
                notes.add(below)  # the template's own note under the value
            elif not line_below.blank:
                body.append(below)
        if len(body) != 1 or not doc.lines[body[0]].live:
            return frozenset(), None
        value = doc.lines[body[0]].clean
        if _CHANGES.fullmatch(value):
            number = doc.lines[body[0]].number
            return frozenset(), (
                body[0],
                f"line {number}: the recommended status is Changes Required",
            )
        if _READY.fullmatch(value) or _READY_NOTED.fullmatch(value):
            return frozenset({index, body[0], *notes}), None
        if not notes and _reason_after_ready(value):
            # The value with the reviewer's reason after it: the heading is the template's,
            # the line is read like any text after the approval too.
            return frozenset({index}), None
        return frozenset(), None
    return frozenset(), None


def _reason_after_ready(value: str) -> bool:
    """'✓ Ready for Done - every criterion is met': the value, then a reason that the answer
    reader lets stand beside it as it would beside any approving answer on its line (no
    condition, contrast, obligation or other verdict), and that is not the template's other
    value ('Changes Required')."""
    found = _READY_GIVING_REASON.match(value)
    if found is None or _OTHER_VALUE.search(value, found.end()):
        return False
    return after_approval(" - " + value[found.end() :]) is None


# A story's QA Results round: '### Review Date: …', '### Follow-up Review Date: …'.
_ROUND = compile_lazily(r"(?:[a-z-]{1,20}[ \t]+){0,3}review date[ \t]*:.*")
_GATE_FILE = compile_lazily(
    r"[ \t*_-]*(?:qa[ \t]+)?gate[*_]*[ \t]*:[^→>]{0,80}(?:→|->)[ \t]*`?([\w./{}-]{1,200})"
)
# A later round's record of the earlier blocking items: '**Critical Issues Resolved:**'.
_RESOLVED = compile_lazily(r"[ \t#*_]*critical(?:[ \t]+issues?)?[ \t]+resolved[ \t*_:：]*")
_CHECKED_ITEM = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:✅|\[x\])")


def _older_rounds(doc: Doc, gates: Sequence[Site]) -> frozenset[int]:
    """The lines of a story's QA Results rounds that the last round replaced. Rounds are
    appended, so only the last one lifts those above it, and only when it is the same whole
    story reviewed again and answers what they blocked on: it holds a gate line naming a gate
    file an earlier round's gate field named (the gate file is the story's one decision
    record), and when an earlier round lists Critical items, a `Critical Issues Resolved`
    record whose every item is checked (✅)."""
    rounds = [
        i
        for i, line in enumerate(doc.lines)
        if line.live and line.heading_level and _ROUND.fullmatch(norm(line.heading_text))
    ]
    if len(rounds) < 2:
        return frozenset()
    first, last = rounds[0], rounds[-1]
    earlier = {_gate_file(doc, s.index) for s in gates if first <= s.index < last}
    later = {_gate_file(doc, i) for i in range(last, len(doc.lines)) if doc.lines[i].live}
    if not (earlier - {None}) & (later - {None}):
        return frozenset()
    outside = frozenset(range(first)) | frozenset(range(last, len(doc.lines)))
    listed = read_sections(mask(doc, outside), NAME, blocking=frozenset({Severity.CRITICAL}))
    if listed is not None and listed.blocking is not None and not _resolved(doc, last):
        return frozenset()
    return frozenset(range(first, last))


def _resolved(doc: Doc, start: int) -> bool:
    """Whether the round from `start` holds a Critical Issues Resolved record: the label,
    then list items (at the indent of the first), each checked."""
    for index in range(start, len(doc.lines)):
        line = doc.lines[index]
        if line.live and _RESOLVED.fullmatch(norm(line.raw)):
            return _all_checked(doc, index + 1)
    return False


def _all_checked(doc: Doc, start: int) -> bool:
    items = 0
    indent: int | None = None
    for line in doc.lines[start:]:
        if line.blank or not line.raw.strip():
            continue
        if line.heading_level or not LIST_MARK.match(line.raw):
            if indent is not None and line.indent > indent:
                continue  # an item's own continuation
            break
        indent = line.indent if indent is None else indent
        if line.indent > indent:
            continue  # a nested detail of the item above
        if not _CHECKED_ITEM.match(line.raw):
            return False
        items += 1
    return items > 0


def _gate_file(doc: Doc, index: int) -> str | None:
    found = _GATE_FILE.match(norm(doc.lines[index].raw))
    return found.group(1) if found is not None else None


# A top-level key naming a history list: `history:`, and any key that ends so
# (`gate_history:`, `review_history:`), the same keys `_last_history` reads.
_HISTORY = compile_lazily(r"(?:[A-Za-z_][\w.-]{0,60}[_-])?history[ \t]*:[ \t]*(?:#.*)?", re.I)
_TOP_GATE = compile_lazily(r"gate[ \t]*:[ \t]*[\"']?([^\s\"'#]*)")


def _older_history(doc: Doc, gates: set[int]) -> frozenset[int]:
    """The gate lines of a top-level history list (`history:`, `gate_history:` …) but its
    last entry's."""
    older: list[int] = []
    inside = False
    for index, line in enumerate(doc.lines):
        raw = line.raw
        if raw.strip() and raw[:1] not in (" ", "\t", "-", "#"):
            inside = _HISTORY.fullmatch(raw.rstrip()) is not None
            continue
        if inside and index in gates:
            older.append(index)
    return frozenset(older[:-1])


def _older_entries(doc: Doc, older: frozenset[int]) -> frozenset[int]:
    """Every line of the history entries whose gate line is in `older`: an older entry is
    a record the later ones replaced, so its `note:` speaks for its own gate, not for the
    latest entry's beside it ('Re-review after …' above the last `gate: PASS`). Read only in
    a gate file (YAML: an entry is its `- ` line and the deeper lines under it)."""
    lines: set[int] = set()
    for gate in older:
        start = _entry_start(doc, gate)
        if start is not None:
            lines.update(range(start, _entry_end(doc, start) + 1))
    return frozenset(lines)


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip(" "))


def _entry_start(doc: Doc, gate: int) -> int | None:
    """The `- ` line of the list entry that holds the gate line at `gate` (itself, or the
    nearest item line above it indented less), or None when there is none."""
    depth = _indent(doc.lines[gate].raw) + 1
    for index in range(gate, -1, -1):
        raw = doc.lines[index].raw
        if raw.strip() and _indent(raw) < depth:
            if raw.lstrip(" ").startswith("- "):
                return index
            depth = _indent(raw)
            if depth == 0:
                return None
    return None


def _entry_end(doc: Doc, start: int) -> int:
    """The last line of the list entry that opens at `start`: the lines indented deeper
    than its `- `."""
    indent = _indent(doc.lines[start].raw)
    end = start
    for index in range(start + 1, len(doc.lines)):
        raw = doc.lines[index].raw
        if not raw.strip():
            continue
        if _indent(raw) <= indent:
            break
        end = index
    return end


def _is_gate_file(doc: Doc) -> bool:
    """A BMAD gate file: YAML from its first lines (`schema: 1`, or the `gate:` key itself as
    the first line that is not a comment: a generated gate file opens with a comment header),
    so its `#` lines are YAML comments, not Markdown headings, and its prose is the
    recogniser's fields."""
    first = next(
        (
            line.raw
            for line in doc.lines
            if line.raw.strip() and not _COMMENT_LINE.fullmatch(line.raw)
        ),
        "",
    )
    return first.startswith("gate:") or any(
        line.raw.startswith("schema:") for line in doc.lines[:40]
    )


# A gate given as a mapping ('gate:' / '  decision: "PASS"'): the key under it that holds the
# gate's value, then the value and an optional comment (groups as `_GATE`'s, so
# `_gate_decision` reads it alike).
_GATE_KEY_ALONE = compile_lazily(r"gate[ \t]*:[ \t]*(?:#.*)?")
_NESTED_VALUE = compile_lazily(
    r"[ \t]+(?:decision|status|result|gate|gate_status|gate_decision)[ \t]*:[ \t]*[\"']?"
    r"(pass|concerns|fail|waived)[\"']?[ \t]*(?:#(.{0,200}))?",
    re.IGNORECASE,
)
# The reason a gate mapping gives beside its value, read like `status_reason`.
_NESTED_REASON_KEYS = ("status_reason", "decision_rationale", "rationale", "reason")


def _nested_gate(
    doc: Doc, found: Recognised | None
) -> tuple[Recognised | None, tuple[int, str] | None]:
    """`found` with the value of a gate file's top-level `gate:` mapping as one more field,
    and (line index, why) when the mapping holds no gate value: the field is there, its
    answer is not. The value is read from the first level under the key (YAML nests the
    mapping's own keys there); a reason beside it (`decision_rationale:`) is read like
    `status_reason`, and a problem it states is blocking content."""
    key = next((i for i, line in enumerate(doc.lines) if _GATE_KEY_ALONE.fullmatch(line.raw)), None)
    if key is None:
        return found, None
    children = _mapping_children(doc, key)
    site_index = next((i for i in children if _NESTED_VALUE.fullmatch(doc.lines[i].raw)), None)
    if site_index is None:
        return found, (key, "the QA gate's mapping holds no PASS, CONCERNS, FAIL or WAIVED")
    match = _NESTED_VALUE.fullmatch(doc.lines[site_index].raw)
    assert match is not None
    decision, reason = _gate_decision(match)
    site = field_site(site_index, doc.lines[site_index], decision, dialect=NAME, reason=reason)
    blocking = _nested_reason(doc, key)
    if found is None:
        found = Recognised(name=NAME)
    return (
        replace(
            found,
            sites=(*found.sites, site),
            accounted=found.accounted | {key, site_index},
            blocking=found.blocking or blocking,
        ),
        None,
    )


def _without_comment_fields(doc: Doc, found: Recognised | None) -> Recognised | None:
    """`found` without the fields read on whole-line comments, or None when none is left."""
    if found is None:
        return None
    sites = tuple(s for s in found.sites if _COMMENT_LINE.fullmatch(doc.lines[s.index].raw) is None)
    if not sites:
        return None
    return replace(found, sites=sites, accounted=frozenset(s.index for s in sites))


def _mapping_children(doc: Doc, key: int) -> list[int]:
    """The lines of the first level under the top-level key at `key`."""
    children: list[int] = []
    level: int | None = None
    for index in range(key + 1, len(doc.lines)):
        raw = doc.lines[index].raw
        if not raw.strip() or _COMMENT_LINE.fullmatch(raw):
            continue
        if raw[:1] not in (" ", "\t"):
            break
        indent = _indent(raw)
        level = indent if level is None else level
        if indent == level:
            children.append(index)
    return children


def _nested_reason(doc: Doc, key: int) -> tuple[int, str] | None:
    """(line index, why) when the gate mapping's reason states a condition or a problem."""
    data = _loads(doc)
    gate = data.get("gate") if data is not None else None
    if not isinstance(gate, dict):
        return None
    for name in _NESTED_REASON_KEYS:
        value = gate.get(name)
        if isinstance(value, str):
            problem = _reason_problem(norm(value))
            if problem is not None:
                return key, f"the gate's {name}: {problem}"
    return None


_COMMENT_LINE = compile_lazily(r"[ \t]*#+[ \t]*(.*)")
# The whole-line comments of BMAD's `qa-gate-tmpl.yaml` (English, and its Chinese
# translation), compared after `_template_text`: the template's fixed text, which a gate file
# copies with its fields. They say what a field is for, never how this gate came out, so they
# are structure; any other comment is still read (an allow-list: a near copy is not one).
_TEMPLATE_COMMENTS = frozenset(
    {
        "required fields (keep these first)",
        "always present but only active when waived",
        "issues (if any) - use fixed severity: low | medium | high",
        "risk summary (from risk-profile task if run)",
        "examples section using block scalars for clarity",
        "============ optional extended fields ============",
        "uncomment and use if your team wants more detail",
        "'highest' is emitted only when risks exist",
        "必填字段(保持这些在最前面)",
        "始终存在,但仅在waived时激活",
        "问题(如果有) - 使用固定的严重性:low | medium | high",
        "风险摘要(如果运行了risk-profile任务)",
    }
)


def _comments(doc: Doc) -> tuple[frozenset[int], tuple[int, str] | None]:
    """A gate file's whole-line comments: YAML comments, not Markdown headings ('# Issues
    found during review (ALL RESOLVED)' names a section of the file, not a verdict). They
    are accounted for, and the first that states a problem beside the gate (blocking work,
    a defect now, another verdict, a condition on the merge) is blocking content."""
    lines: set[int] = set()
    said: tuple[int, str] | None = None
    for index, line in enumerate(doc.lines):
        comment = _COMMENT_LINE.fullmatch(line.raw)
        if comment is None:
            continue
        lines.add(index)
        if _template_text(comment.group(1)) in _TEMPLATE_COMMENTS:
            continue  # the template's own words about its fields
        text = clean_value(norm(comment.group(1)))
        if said is None and (states_problem(text) or _says_another_verdict(text)):
            said = index, f"line {line.number}: a comment beside the gate states a problem"
    return frozenset(lines), said


def _template_text(comment: str) -> str:
    """A comment as compared with the template's: width-folded (NFKC: the Chinese template's
    full-width punctuation), lower case, runs of blanks as one space."""
    return " ".join(unicodedata.normalize("NFKC", comment).lower().split())


_REASON_KEY = compile_lazily(r"status_reason[ \t]*:")
_TRAILING_COMMENT = compile_lazily(r"[ \t]#+(.*)")
# A state reached, told with how it was reached: 'criteria met after fixing the bug'. A
# modal or a future before the participle keeps it ahead ('will be met after fixing …').
_NARRATED_AFTER = compile_lazily(
    r"(?<!\w)(?:met|passed|completed|resolved|verified|satisfied|addressed|achieved|"
    r"implemented|fixed|confirmed|validated|corrected) (after)(?= \w+ing(?!\w))"
)
_NOT_REACHED = compile_lazily(
    r"(?<!\w)(?:will|shall|would|could|can|may|might|must|should|to|be|being|get|gets|once|"
    r"when|if|until|unless)(?: be| have been| been)?[ \t]*$"
)
# The reason declaring its own obligation non-blocking: 'needed but not blocking'.
_DECLARED_NON_BLOCKING = compile_lazily(
    r"(?<!\w)(?:not blocking|non[- ]?blocking|not a blocker)(?!\w)"
)
_SOFT_OBLIGATION = compile_lazily(
    r"(?<!\w)(?:needed|needs|need|required|recommended|suggested|should)(?!\w)"
)
_OBLIGATION_CLAUSE_EDGE = compile_lazily(r"[,;:—–]")


def _status_reason(
    doc: Doc, data: dict[object, object] | None
) -> tuple[frozenset[int], tuple[int, str] | None]:
    """The lines of a gate file's one top-level `status_reason` (accounted for: this reads
    them), and (line index, why) when its value conditions or blocks the gate. A file with no
    such string, or with the key twice, is left to the generic reading."""
    value = data.get("status_reason") if data is not None else None
    starts = [i for i, line in enumerate(doc.lines) if _REASON_KEY.match(line.raw)]
    if not isinstance(value, str) or len(starts) != 1:
        return frozenset(), None
    start = end = starts[0]
    while end + 1 < len(doc.lines) and doc.lines[end + 1].raw[:1] in (" ", "\t"):
        end += 1  # a folded or quoted value continued on deeper lines
    lines = frozenset(range(start, end + 1))
    # A comment after the value is beside it for whoever reads the file: read as the reason's
    # too ('# merge once CI is green'); a '#' inside the value only makes more text read.
    comments = [c.group(1) for i in lines if (c := _TRAILING_COMMENT.search(doc.lines[i].raw))]
    problem = _reason_problem(norm(" ".join([value, *(f"{c}." for c in comments)])))
    if problem is None:
        return lines, None
    return lines, (start, f"the gate's status_reason: {problem}")


def _reason_problem(text: str) -> str | None:
    """Why the reason keeps the gate from approving, or None (see the module docstring)."""
    found = clauses_problem(text, strict_per_sentence=True, read=_as_read)
    return None if found is None else found[1]


def _as_read(sentence: str) -> str:
    """The sentence without the two shapes that only look like conditions: the `after` of
    a fix told as done, and an obligation its clause declares non-blocking."""
    kept = [
        m.start(1)
        for m in _NARRATED_AFTER.finditer(sentence)
        if _NOT_REACHED.search(sentence, 0, m.start()) is None
    ]
    for at in reversed(kept):
        sentence = f"{sentence[:at]}by{sentence[at + len('after') :]}"
    mark = _DECLARED_NON_BLOCKING.search(sentence)
    if mark is None:
        return sentence
    edge = max(
        (m.end() for m in _OBLIGATION_CLAUSE_EDGE.finditer(sentence, 0, mark.start())), default=0
    )
    clause = _SOFT_OBLIGATION.sub("", sentence[edge : mark.start()])
    return f"{sentence[:edge]}{clause}{sentence[mark.start() :]}"


_HISTORY_VALUE_KEYS = ("gate", "gate_status", "status", "result", "decision")


def _says_another_verdict(text: str) -> bool:
    """A comment clause that opens with a verdict other than PASS ('do not merge until …')."""
    return any(other_verdict(c.strip()) for c in CLAUSES.split(text))


def _loads(doc: Doc) -> dict[object, object] | None:
    """The gate file through `yaml.safe_load`, when it is one YAML mapping (not too large);
    else None: Markdown beside `gate:` lines is read line by line, its headings as headings."""
    data = load_yaml("\n".join(line.raw for line in doc.lines))
    return data if isinstance(data, dict) else None


def _last_history(doc: Doc, data: dict[object, object] | None) -> tuple[int, str] | None:
    """(line index, why) when a gate file's history list (`history:`, `gate_history:` …, any
    spelling YAML allows: flow mappings, quoted keys) ends with an entry whose gate is not
    PASS: the newest record disagrees with the top-level PASS. `data`: the file as YAML, or
    None (the line readers still read it: `_older_history`)."""
    if data is None:
        return None
    for key, value in data.items():
        if not str(key).lower().endswith("history") or not isinstance(value, list) or not value:
            continue
        last = value[-1]
        gate = _entry_gate(last) if isinstance(last, dict) else None
        if gate is not None and gate != "pass":
            index = next((i for i, line in enumerate(doc.lines) if str(key) in line.raw), 0)
            return index, f"the last entry of '{key}' says {gate.upper()}, not PASS"
    return None


_NFR_FAILED = frozenset({"fail", "failed"})


def _open_fields(doc: Doc, data: dict[object, object] | None) -> tuple[int, str] | None:
    """(line index, why) when a field of the gate file says the PASS is not whole: an NFR
    whose `status` is FAIL (BMAD's rules make the gate FAIL then), `waiver.active: true` (a
    person set issues aside), a critical risk counted in `risk_summary.totals` (BMAD's rule
    makes the gate FAIL then), a non-empty `risk_summary.recommendations.must_fix` or
    `recommendations.immediate` (work the template says must be done before production).
    An NFR at CONCERNS or uncovered `ac_gaps` beside PASS are the reviewer's call, as real
    gates write them. `data`: the file as YAML, or None."""
    if data is None:
        return None
    waiver = _at(data, "waiver")
    if isinstance(waiver, dict) and waiver.get("active") is True:
        why = "a waiver is active: issues set aside by a person"
        return _key_line(doc, "waiver", "active"), why
    nfrs = _at(data, "nfr_validation")
    for name, nfr in nfrs.items() if isinstance(nfrs, dict) else ():
        status = nfr.get("status") if isinstance(nfr, dict) else None
        if status is not None and str(status).strip().lower() in _NFR_FAILED:
            why = f"the NFR '{str(name)[:30]}' is FAIL"
            return _key_line(doc, "nfr_validation", str(name)), why
    critical = _critical_risks(data)
    if critical:
        why = f"'risk_summary.totals' counts {critical} critical risk(s): BMAD's rule says FAIL"
        return _key_line(doc, "risk_summary", "totals"), why
    for path, what in (
        (("risk_summary", "recommendations", "must_fix"), "work that must be fixed"),
        (("recommendations", "immediate"), "immediate work (before production)"),
    ):
        listed = _at(data, *path)
        if listed not in (None, [], {}, ""):
            return _key_line(doc, *path), f"'{path[-1]}' lists {what}"
    return None


def _critical_risks(data: dict[object, object]) -> int:
    """The count of critical risks in `risk_summary.totals` (0 when absent or unreadable).
    BMAD's review task scores a risk 1–9 and counts a score of 9 as critical; its gate rule
    makes any such risk FAIL unless waived, so a PASS beside one contradicts itself."""
    totals = _at(data, "risk_summary", "totals")
    count = totals.get("critical") if isinstance(totals, dict) else None
    if isinstance(count, bool) or not isinstance(count, int | str):
        return 0
    text = str(count).strip()
    return int(text) if text.isdigit() else 0


def _at(data: object, *path: str) -> object:
    """The value at `path` in nested mappings, or None."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _key_line(doc: Doc, *path: str) -> int:
    """The line of the last key of `path`, found in order below its parents (0 if none)."""
    index = 0
    for key in path:
        found = next(
            (i for i in range(index, len(doc.lines)) if doc.lines[i].raw.strip().startswith(key)),
            None,
        )
        if found is None:
            return index
        index = found
    return index


def _entry_gate(entry: dict[object, object]) -> str | None:
    for name in _HISTORY_VALUE_KEYS:
        value = entry.get(name)
        if isinstance(value, str):
            return value.strip().lower()
    return None


# What a line at the left margin of a YAML mapping can be: a comment, a `key:` (BMAD's keys
# are identifiers), a sequence item, a document marker. A value's continuation lines are
# indented (a plain or block scalar must be; the gate files seen indent quoted ones too).
_TOP_KEY = compile_lazily(r"[A-Za-z_][\w.-]{0,80}[ \t]*:(?:[ \t]|$)")
_TOP_KEY_OPENS_LIST = compile_lazily(r"[A-Za-z_][\w.-]{0,80}[ \t]*:[ \t]*(?:#.*)?")
_TOP_ITEM = compile_lazily(r"-(?:[ \t]|$)")
_TOP_MARKER = compile_lazily(r"(?:---|\.\.\.)[ \t]*")


def _prose_line(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) of the first line of a gate file that is no YAML of a mapping: text
    at the left margin that is neither a comment, a `key:`, a marker, nor an item of a list a
    key just opened ('Merging waits for the DBA.' after the last key). YAML would not load
    it, and a person sees a sentence outside every field: the file is not fully accounted
    for."""
    last = "key"  # what the last margin line was: 'key', 'opens' (`key:` alone) or 'item'
    indented_since = False
    trailer = _json_fences(doc)  # a structured verdict object after the gate: JSON's to read
    for index, line in enumerate(doc.lines):
        raw = line.raw.lstrip("\ufeff")
        if not raw.strip() or raw.lstrip().startswith("#") or index in trailer:
            continue
        if raw[0] in " \t":
            indented_since = True
            continue
        if _TOP_ITEM.match(raw):
            if not (last == "item" or (last == "opens" and not indented_since)):
                return index, f"a list item outside every gate field ('{raw.strip()[:60]}')"
            last = "item"
        elif _TOP_KEY.match(raw) or _TOP_MARKER.fullmatch(raw):
            last = "opens" if _TOP_KEY_OPENS_LIST.fullmatch(raw) else "key"
        else:
            return index, f"text outside every gate field ('{raw.strip()[:60]}')"
        indented_since = False
    return None


def _json_fences(doc: Doc) -> frozenset[int]:
    """The line indexes of every fenced JSON block, fences included."""
    return frozenset(
        index
        for block in doc.blocks
        if block.info.strip().lower() == "json"
        for index in range(block.start - 1, block.end + 1 if block.closed else len(doc.lines))
    )


def _unknown_gate(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) of a top-level YAML `gate:` key whose value is not a gate value
    (`gate: EXCELLENT`): the template's verdict field answered outside its vocabulary."""
    if not _is_gate_file(doc):
        return None  # not a gate file: a story's `Gate:` line is read by `_GATE` alone
    for index, line in enumerate(doc.lines):
        match = _TOP_GATE.match(line.raw)
        if match is None:
            continue
        value = match.group(1).lower()
        if value and value not in _DECISION:
            why = f"the QA gate's value '{value[:40]}' is not PASS, CONCERNS, FAIL or WAIVED"
            return index, why
    return None


def _gate_decision(gate: re.Match[str]) -> tuple[Decision, str]:
    """The gate's decision: its value's, unless a comment after PASS keeps it from approving."""
    decision, reason = _DECISION[gate.group(1).lower()]
    comment = gate.group(2)
    if decision is not Decision.APPROVE or comment is None or not comment.strip():
        return decision, reason
    if _VALUES_COMMENT.fullmatch(comment):
        return decision, reason + " (the comment only lists the gate's values)"
    problem = after_approval(norm(comment))
    if problem is not None:
        return problem[0], f"{reason}, but the comment after it: {problem[1]}"
    return decision, reason


def _top_issue(doc: Doc) -> tuple[int, str] | None:
    """(line index, why) of the first open `top_issues` item of medium severity or above, or
    whose severity is unreadable; None when the list is absent, empty, only low or only
    closed. Every line is read, rendered or not: hiding an issue must not help a PASS."""
    lines = doc.lines
    for start, line in enumerate(lines):
        head = _TOP_ISSUES.fullmatch(norm(line.raw).rstrip())
        if head is None or line.raw[:1] in (" ", "\t"):
            continue
        # flow style on the key's line ('[{…}, {…}]'): each '}' ends one item
        for item in head.group(1).lower().split("}"):
            issue = _severity_on(start, item)
            if issue is not None and _CLOSED_ISSUE.search(item) is None:
                return issue
        issue = _open_item(lines, start + 1, min(len(lines), start + 1 + _MAX_ISSUE_LINES))
        if issue is not None:
            return issue
    return None


def _open_item(lines: Sequence[Line], first: int, stop: int) -> tuple[int, str] | None:
    """The first blocking item of a block-style list (items start at '- '): an item's own
    `status: resolved` (closed, fixed, done) says the reviewer closed it in a later pass."""
    pending: tuple[int, str] | None = None
    closed = False
    for index in range(first, stop):
        raw = lines[index].raw
        if raw.strip() and raw[:1] not in (" ", "\t", "-"):
            break  # the next top-level key
        text = norm(raw).lower()
        if text.lstrip().startswith("- "):  # the next item: settle the last one
            if pending is not None and not closed:
                return pending
            pending, closed = None, False
        pending = pending or _severity_on(index, text)
        closed = closed or _CLOSED_ISSUE.search(text) is not None
    return pending if not closed else None


def _severity_on(index: int, text: str) -> tuple[int, str] | None:
    """A blocking issue named on one line of the list (block or flow style), or None."""
    for match in _SEVERITY.finditer(text.lower()):
        found = blocking_severity(index, match.group(1))
        if found is not None:
            return found
    return None
