"""A BMAD story file read from BMAD-METHOD's own template definitions, not from examples.

BMAD's agents write a story from a template that names every section and who owns it (v4's
`story-tmpl.yaml`, v6's `create-story/template.md`); the reviewer appends its record to the
same file: v4's QA agent a `## QA Results` round (`review-story` task, with a gate line and a
gate file), v6's `code-review` workflow a `Senior Developer Review (AI)` section with an
`Outcome: Approve | Changes Requested | Blocked` field and checkbox `Action Items`, and (v6 and
later) `[AI-Review]` / `[Review]` follow-up checkboxes under Tasks / Subtasks, which the dev
agent ticks when it resolves them.

`STORY_PARTS` and `REVIEW_PARTS` are that inventory as data: every section, its owner, the
template versions that define it, and whether it *decides* (a field or list whose value can
keep the story from Done) or *describes* (what the story is and how it was built). A
describing section of the story written before the review (Story, Acceptance Criteria, Dev
Notes, Change Log, Dev Agent Record, File List) is accounted for whatever its prose says: the
reviewer's record decides, and the story's own text is not a second verdict. A describing
section of the reviewer's record (Summary, Security Notes …) is accounted for unless a line of
it states a problem (`states_problem`): the reviewer's own words beside the outcome. A
deciding part is read by its rule; a line no rule reads is left to the generic reader (an
allow-list: what is not known is not waved through).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from mergegate.decisions import Decision
from mergegate.verdicts._answer import after_approval
from mergegate.verdicts._blocking import text_blocking
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._statement import CLAUSES, other_verdict
from mergegate.verdicts._templates._checks import states_problem
from mergegate.verdicts._templates._fields import field_site
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import clean_value

__all__ = ["REVIEW_PARTS", "STORY_PARTS", "Part", "Role", "StoryReading", "read_story"]


class Role(StrEnum):
    """What a template section does for the decision."""

    DECIDES = "decides"
    """Its value can keep the story from Done: read by its rule."""
    DESCRIBES = "describes"
    """The story's own text, written before the review: accounted for whatever it says."""
    REVIEWER_DESCRIBES = "reviewer describes"
    """The reviewer's prose beside its outcome: accounted for unless a line states a problem."""


@dataclass(frozen=True, slots=True)
class Part:
    """One section of a BMAD template."""

    title: str
    """Its heading, as words (lower case, punctuation dropped: 'tasks subtasks')."""
    role: Role
    owner: str
    versions: str
    rule: str = ""
    """For a deciding part: the rule that reads it (see `_READERS`)."""
    aliases: tuple[str, ...] = ()


STORY_PARTS: tuple[Part, ...] = (
    Part("status", Role.DECIDES, "scrum master, dev agent, v6 code review", "v4 v6", "status"),
    Part("story", Role.DESCRIBES, "scrum master", "v4 v6"),
    Part("acceptance criteria", Role.DESCRIBES, "scrum master", "v4 v6"),
    Part(
        "tasks subtasks",
        Role.DECIDES,
        "scrum master, dev agent; v6 review follow-ups",
        "v4 v6",
        "tasks",
        aliases=("tasks", "tasks and subtasks"),
    ),
    Part("dev notes", Role.DESCRIBES, "scrum master", "v4 v6"),
    Part("testing", Role.DESCRIBES, "scrum master", "v4"),
    Part("project structure notes", Role.DESCRIBES, "scrum master", "v6"),
    Part("references", Role.DESCRIBES, "scrum master", "v6"),
    Part("change log", Role.DESCRIBES, "scrum master, dev agent, qa agent", "v4 v6"),
    Part("dev agent record", Role.DESCRIBES, "dev agent", "v4 v6"),
    Part("agent model used", Role.DESCRIBES, "dev agent", "v4 v6"),
    Part("debug log references", Role.DESCRIBES, "dev agent", "v4 v6"),
    Part(
        "completion notes list", Role.DESCRIBES, "dev agent", "v4 v6", aliases=("completion notes",)
    ),
    Part("context reference", Role.DESCRIBES, "dev agent", "v6"),
    Part("file list", Role.DESCRIBES, "dev agent", "v4 v6"),
)
"""The story template's sections (v4 `story-tmpl.yaml` v2, v6 `create-story/template.md`).
QA Results and Senior Developer Review (AI) are the reviewer's: `REVIEW_HEADINGS`."""

REVIEW_HEADINGS: tuple[str, ...] = (
    "qa results",
    "senior developer review ai",
    "senior developer review",
)

REVIEW_PARTS: tuple[Part, ...] = (
    # v6 code-review: 'Senior Developer Review (AI)'
    Part("outcome", Role.DECIDES, "v6 code review", "v6", "outcome"),
    Part("key findings", Role.DECIDES, "v6 code review", "v6", "findings"),
    Part(
        "acceptance criteria coverage",
        Role.DECIDES,
        "v6 code review",
        "v6",
        "coverage",
        aliases=("ac coverage", "acceptance criteria validation"),
    ),
    Part("task completion validation", Role.DECIDES, "v6 code review", "v6", "tasks verified"),
    Part("action items", Role.DECIDES, "v6 code review", "v6", "action items"),
    Part("summary", Role.REVIEWER_DESCRIBES, "v6 code review", "v6"),
    Part("test coverage and gaps", Role.REVIEWER_DESCRIBES, "v6 code review", "v6"),
    Part("architectural alignment", Role.REVIEWER_DESCRIBES, "v6 code review", "v6"),
    Part("security notes", Role.REVIEWER_DESCRIBES, "v6 code review", "v6"),
    Part("best practices and references", Role.REVIEWER_DESCRIBES, "v6 code review", "v6"),
    # v4 review-story: '## QA Results' (the gate line and Recommended Status: `bmad`)
    Part("compliance check", Role.DECIDES, "v4 qa agent", "v4", "compliance"),
    Part("code quality assessment", Role.REVIEWER_DESCRIBES, "v4 qa agent", "v4"),
    Part("refactoring performed", Role.REVIEWER_DESCRIBES, "v4 qa agent", "v4"),
    Part("security review", Role.REVIEWER_DESCRIBES, "v4 qa agent", "v4"),
    Part("performance considerations", Role.REVIEWER_DESCRIBES, "v4 qa agent", "v4"),
    Part("files modified during review", Role.REVIEWER_DESCRIBES, "v4 qa agent", "v4"),
)
"""The reviewer's record: v6 `code-review` (Senior Developer Review (AI)) and v4
`review-story` (QA Results). v4's Gate Status, Recommended Status, Improvements Checklist
and rounds are read by `bmad` itself."""

# The header fields of a v6 review ('Reviewer: Alex', 'Date: …') and of a v4 round.
_HEADER_FIELDS = frozenset(
    {
        "reviewer",
        "date",
        "review date",
        "reviewed by",
        "review type",
        "files reviewed",
        "review focus",
    }
)


@dataclass(frozen=True, slots=True)
class StoryReading:
    """What the story's template sections say: lines accounted for, the first blocking
    content, and the Senior Developer Review outcome fields (the last round's as sites, the
    earlier rounds' as superseded)."""

    accounted: frozenset[int] = frozenset()
    blocking: tuple[int, str] | None = None
    sites: tuple[Site, ...] = ()
    superseded: frozenset[int] = frozenset()


def words(text: str) -> str:
    """A heading or label as words: lower case, markup and punctuation dropped."""
    return " ".join(_WORD.findall(norm(text).lower()))


_WORD = compile_lazily(r"[a-z0-9]+")


def _part(title: str, parts: tuple[Part, ...], *, prefix: bool = False) -> Part | None:
    """The part whose title (or alias) `title` is; with `prefix`, also one it opens with
    ('key findings by severity'): a reviewer's heading may qualify the template's."""
    for part in parts:
        names = (part.title, *part.aliases)
        if title in names or (prefix and any(title.startswith(f"{n} ") for n in names)):
            return part
    return None


def _review_part(title: str) -> Part | None:
    return _part(title, REVIEW_PARTS, prefix=True)


@dataclass(frozen=True, slots=True)
class _Section:
    heading: int
    end: int  # exclusive
    title: str
    level: int


def _sections(doc: Doc) -> list[_Section]:
    """Every heading with its extent (to the next heading at its level or above), in one
    pass from the end: a stack holds the headings below, deepest on top."""
    found: list[_Section] = []
    below: list[tuple[int, int]] = []  # (index, level) of later headings, levels rising to the top
    for index in range(len(doc.lines) - 1, -1, -1):
        line = doc.lines[index]
        if not (line.live and line.heading_level):
            continue
        while below and below[-1][1] > line.heading_level:
            below.pop()
        end = below[-1][0] if below else len(doc.lines)
        found.append(_Section(index, end, words(line.heading_text), line.heading_level))
        below.append((index, line.heading_level))
    return found[::-1]


def _one_after_another(reviews: list[_Section]) -> list[_Section]:
    """The reviewer's sections, each ending where the next opens (a review nested in
    another is read once, as its own round)."""
    return [
        _Section(s.heading, min(s.end, after.heading), s.title, s.level)
        if (after := next(iter(reviews[i + 1 : i + 2]), None)) is not None
        else s
        for i, s in enumerate(reviews)
    ]


def read_story(doc: Doc, *, dialect: str) -> StoryReading | None:
    """The story read from its template (see the module docstring), or None when the
    document is no BMAD story: it needs a reviewer's section and two of the story's own."""
    sections = _sections(doc)
    reviews = _one_after_another([s for s in sections if s.title in REVIEW_HEADINGS])
    story = [s for s in sections if _part(s.title, STORY_PARTS) is not None]
    if not reviews or len({s.title for s in story}) < 2:
        return None
    inside_review = {i for s in reviews for i in range(s.heading, s.end)}
    starts = sorted(s.heading for s in reviews)
    accounted: set[int] = set()
    blocking: list[tuple[int, str]] = []
    for section in story:
        if section.heading in inside_review:
            continue  # a heading inside the reviewer's record is the reviewer's
        part = _part(section.title, STORY_PARTS)
        assert part is not None
        # A story section ends where a reviewer's section opens, even one nested under it:
        # the story's own text is accounted for, never the reviewer's record.
        at = bisect.bisect_right(starts, section.heading)
        stop = starts[at] if at < len(starts) else len(doc.lines)
        lines = list(range(section.heading, min(section.end, stop)))
        _read_story_part(doc, part, lines, accounted, blocking)
    status_line = _status_line(doc, sections)
    if status_line is not None:
        _read_status(doc, status_line, accounted, blocking)
    sdr = [s.heading for s in reviews if s.title.startswith("senior developer review")]
    sites: list[Site] = []
    superseded: set[int] = set()
    for review in reviews:
        is_sdr = review.title.startswith("senior developer review")
        older = is_sdr and review.heading != sdr[-1]
        outcome = _read_review(doc, review, older, accounted, blocking)
        if not is_sdr or outcome is None:
            continue  # no Outcome field: the section's other lines are the generic reader's
        index, value = outcome
        decided = _outcome_decision(value)
        if older:
            accounted.add(index)
            superseded.add(index)  # an earlier round's outcome: the last round's replaced it
        elif decided is not None:
            accounted.add(index)
            decision, reason = decided
            site = field_site(index, doc.lines[index], decision, dialect=dialect, reason=reason)
            sites.append(site)
        # an Outcome outside the template's values is left to the generic reader
    return StoryReading(
        accounted=frozenset(accounted),
        blocking=min(blocking) if blocking else None,
        sites=tuple(sites),
        superseded=frozenset(superseded),
    )


# --- the story's own sections ------------------------------------------------------------

# A review follow-up the reviewer put under Tasks / Subtasks: '- [ ] [AI-Review][High] …'
# (v6 code-review) or '- [ ] [Review][Patch] …' (later code-review); a deferred one is
# pre-existing work the review does not hold the story for.
_FOLLOW_UP = compile_lazily(
    r"[ \t]*[-*+][ \t]+\[([ xX])\][ \t]*\[(ai-review|review)\]", re.IGNORECASE
)
_DEFERRED = compile_lazily(r"[ \t]*\[(?:ai-review|review)\][ \t]*\[defer", re.IGNORECASE)


def _read_story_part(
    doc: Doc, part: Part, lines: list[int], accounted: set[int], blocking: list[tuple[int, str]]
) -> None:
    if part.rule == "status":
        accounted.add(lines[0])
        value = next((i for i in lines[1:] if doc.lines[i].raw.strip()), None)
        if value is not None and not doc.lines[value].heading_level:
            _classify_status(value, words(doc.lines[value].raw), accounted, blocking)
        return
    for index in lines:
        if part.rule == "tasks":
            follow_up = _FOLLOW_UP.match(doc.lines[index].raw)
            rest = doc.lines[index].raw[follow_up.end(1) + 1 :] if follow_up else ""
            if follow_up and follow_up.group(1) == " " and not _DEFERRED.match(rest):
                blocking.append((index, "a review follow-up is not done"))
                continue
        accounted.add(index)


# A story Status that says the work is not through review, beside a reviewer's approval.
_NOT_DONE_STATUS = frozenset(
    {
        "draft",
        "drafted",
        "backlog",
        "ready for dev",
        "ready for development",
        "in progress",
        "inprogress",
        "blocked",
        "changes requested",
        "rejected",
        "failed",
        "on hold",
    }
)
# Status values of a story through development and at or past review (v4: Review, Done; v6:
# review, done).
_DONE_STATUS = frozenset(
    {"done", "review", "ready for review", "in review", "complete", "completed", "ready for done"}
)
_STATUS_FIELD = compile_lazily(r"[ \t*_]*status[*_]*[ \t]*:[ \t]*(.{1,80})", re.IGNORECASE)


def _status_line(doc: Doc, sections: list[_Section]) -> int | None:
    """The v6 template's `Status: …` line under the title (before the first section), or
    None."""
    first = min((s.heading for s in sections if s.level >= 2), default=len(doc.lines))
    return next(
        (
            i
            for i in range(first)
            if doc.lines[i].live and _STATUS_FIELD.fullmatch(doc.lines[i].raw)
        ),
        None,
    )


def _read_status(
    doc: Doc, index: int, accounted: set[int], blocking: list[tuple[int, str]]
) -> None:
    found = _STATUS_FIELD.fullmatch(doc.lines[index].raw)
    assert found is not None
    _classify_status(index, words(found.group(1)), accounted, blocking)


def _classify_status(
    index: int, value: str, accounted: set[int], blocking: list[tuple[int, str]]
) -> None:
    """A Status value that says not done blocks; one at or past review is accounted for;
    any other is left to the generic reader."""
    if value in _NOT_DONE_STATUS:
        blocking.append((index, f"the story's Status is '{value}'"))
    elif value in _DONE_STATUS:
        accounted.add(index)


# --- the reviewer's record ---------------------------------------------------------------

_OUTCOME = compile_lazily(r"(?:[-*+][ \t]+)?(?:review[ \t]+)?outcome[ \t]*:[ \t]*(.{1,300})")
_LABEL = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]{2}([^*_:]{1,60}?)[ \t]*:?[ \t]*[*_]{2}[ \t]*:?[ \t]*(.*)"
)


def _read_review(
    doc: Doc, review: _Section, older: bool, accounted: set[int], blocking: list[tuple[int, str]]
) -> tuple[int, str] | None:
    """Read one reviewer's section part by part; returns (line, value) of its Outcome."""
    accounted.add(review.heading)
    outcome: tuple[int, str] | None = None
    part: Part | None = None
    state = _Round()
    last = _last_heading_of_each_part(doc, review)
    again = False  # the part's heading is written again later: this one is an older round's
    for index in range(review.heading + 1, review.end):
        line = doc.lines[index]
        if not line.live:
            continue
        if line.heading_level:
            found = _OUTCOME.fullmatch(norm(line.heading_text).lower())
            if outcome is None and found is not None:
                outcome = index, found.group(1).strip()  # '### Outcome: Approve'
                continue
            if part is not None and part.rule == "findings" and _grade_heading(line.heading_text):
                state.grade = _grade_heading(line.heading_text)  # '#### HIGH Severity'
                accounted.add(index)
                continue
            part = _review_part(words(line.heading_text))
            again = part is not None and last[part.title] > index
            if part is not None or words(line.heading_text) in _HEADER_FIELDS:
                accounted.add(index)
            continue
        text = norm(line.clean)
        if outcome is None and (found := _OUTCOME.fullmatch(text)) is not None:
            outcome = index, found.group(1).strip()
            continue
        if outcome is None and part is not None and part.rule == "outcome" and text.strip():
            outcome = index, text.strip()  # '### Outcome' and the value on the next line
            continue
        label = _LABEL.fullmatch(line.raw)
        named = _review_part(words(label.group(1))) if label else None
        if label and named is not None and not label.group(2).strip() and named is not part:
            part = named  # a bold label opening a part ('**Key Findings:**')
            accounted.add(index)
            continue
        _read_line(
            doc,
            index,
            part,
            older=older or again,
            state=state,
            accounted=accounted,
            blocking=blocking,
        )
    return outcome


def _last_heading_of_each_part(doc: Doc, review: _Section) -> dict[str, int]:
    """The line of each part's last heading in the review. A v4 QA agent re-reviewing in the
    same QA Results section writes its parts again ('### Compliance Check - RE-REVIEW'): the
    later part replaces the earlier, as a later Senior Developer Review replaces an earlier
    one (an earlier round's action items still decide, `_read_line`)."""
    last: dict[str, int] = {}
    for index in range(review.heading + 1, review.end):
        line = doc.lines[index]
        if line.live and line.heading_level:
            part = _review_part(words(line.heading_text))
            if part is not None:
                last[part.title] = index
    return last


def _read_line(
    doc: Doc,
    index: int,
    part: Part | None,
    *,
    older: bool,
    state: _Round,
    accounted: set[int],
    blocking: list[tuple[int, str]],
) -> None:
    line = doc.lines[index]
    if not line.raw.strip():
        accounted.add(index)
        return
    text = norm(line.clean)
    head = words(text.split(":", 1)[0]) if ":" in text else ""
    if part is None:
        if head in _HEADER_FIELDS:
            accounted.add(index)
        elif (
            named := _part(head, REVIEW_PARTS)
        ) is not None and named.role is Role.REVIEWER_DESCRIBES:
            _describes(doc, index, accounted, blocking)
        return
    if older and part.rule != "action items":
        accounted.add(index)  # an earlier round's record: its action items still decide
        return
    if part.role is Role.REVIEWER_DESCRIBES:
        _describes(doc, index, accounted, blocking)
        return
    problem = _READERS[part.rule](_Row(line.raw, text, state))
    if problem is True:
        accounted.add(index)
    elif isinstance(problem, str):
        blocking.append((index, problem))


def _describes(doc: Doc, index: int, accounted: set[int], blocking: list[tuple[int, str]]) -> None:
    """A line of the reviewer's own notes: accounted for, unless it states a problem
    (`_problem`), which blocks."""
    problem = _problem(doc.lines[index].raw)
    if problem is not None:
        blocking.append((index, f"the reviewer's notes state a problem: {problem}"))
    else:
        accounted.add(index)


def _problem(raw: str) -> str | None:
    """Why a line of the reviewer's prose blocks, or None: blocking content as the generic
    reader finds it on a line (a tagged item, a `Blocking:` label, blocking prose), a
    defect or a merge-tied condition stated now, or a clause that answers no."""
    found = text_blocking(raw)
    if found is not None:
        return found
    text = clean_value(norm(raw))
    if states_problem(text) or _says_no(text):
        return f"'{text[:60]}'"
    return None


def _says_no(text: str) -> bool:
    """A clause that opens with a verdict other than yes ('do not merge until …')."""
    return any(other_verdict(c.strip()) for c in CLAUSES.split(text))


_NONE = compile_lazily(
    r"[-*+ \t]*(?:none|n/a|no issues?|no findings?|nothing|0)(?: found| identified)?[ \t.!]*"
)
_CHECKBOX = compile_lazily(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\[([ xX])\]")
_RESOLVED_MARK = compile_lazily(r"✅|~~|\((?:resolved|fixed|addressed)\)|\[x\]", re.IGNORECASE)
# A severity label: the grade word and the template's qualifiers, then nothing or a colon and
# the label's value ('HIGH severity: None.'); 'Low-hanging fruit …' is no label.
_SEVERITY_LABEL = compile_lazily(
    r"[-*+ \t]*(?:[\U0001f534\U0001f7e1\U0001f7e2\U0001f7e0] ?)?(critical|high|medium|med|low)"
    r"(?: severity| priority)?(?: issues?| findings?)?(?: \(\d{1,3}\))?[ \t]*(?::[ \t]*(.*))?"
)
# An item's own grade tag, as written: '- [ ] [Med] …', '- **[HIGH]** …'.
_ITEM_TAG = compile_lazily(
    r"[-*+ \t]*(?:\[[ xX]\][ \t]*)?\[(?:ai-review\]\[)?(critical|high|medium|med|low)\]",
    re.IGNORECASE,
)


def _grade_heading(heading: str) -> str | None:
    """The grade a heading inside Key Findings names ('HIGH Severity Issues'), or None."""
    found = _SEVERITY_LABEL.fullmatch(norm(heading).lower().strip())
    return found.group(1) if found is not None and not found.group(2) else None


@dataclass(slots=True)
class _Round:
    """What one reviewer's section has read so far: the grade of the last Key Findings
    severity label (the items under it carry that grade)."""

    grade: str | None = None


@dataclass(frozen=True, slots=True)
class _Row:
    """One line of a deciding part as its rule reads it: as written (`raw`: its checkbox)
    and as shown (`text`: lower case, without markup), in its round."""

    raw: str
    text: str
    round: _Round


def _findings(row: _Row) -> bool | str | None:
    """A Key Findings line: a severity label ('HIGH severity: None') or an item under one.
    An item graded medium or above that is not marked resolved blocks (BMAD's rule: any
    medium finding is Changes Requested, any high one Blocked); a low one is accounted for;
    an item whose grade is not known is left to the generic reader."""
    label = _SEVERITY_LABEL.fullmatch(row.text)
    if label is not None and not _CHECKBOX.match(row.raw):
        row.round.grade = label.group(1)
        rest = (label.group(2) or "").strip()
        if not rest or _NONE.fullmatch(rest):
            return True
        return _graded(label.group(1), row.raw)
    tag = _ITEM_TAG.match(row.raw.replace("*", "").replace("_", ""))
    grade = tag.group(1).lower() if tag else row.round.grade
    if grade is None:
        return None
    if _NONE.fullmatch(row.text):
        return True
    return _graded(grade, row.raw)


def _graded(grade: str, raw: str) -> bool | str:
    if grade == "low" or _RESOLVED_MARK.search(raw):
        return True
    return f"the review lists an open {grade}-severity finding"


def _action_items(row: _Row) -> bool | str | None:
    """An Action Items line: an unchecked box is work the review holds the story for (the
    dev agent ticks it when resolved); a ticked one, a note, a group label or 'None' is
    accounted for."""
    box = _CHECKBOX.match(row.raw)
    if box is not None:
        return True if box.group(1) != " " else "an action item is not done"
    if _NONE.fullmatch(row.text) or _GROUP.fullmatch(row.text):
        return True
    if _NOTE.match(row.text):
        problem = _problem(row.raw)  # an advisory note is the reviewer's prose
        return True if problem is None else f"an advisory note states a problem: {problem}"
    return None


_GROUP = compile_lazily(r"[ \t]*(?:code changes required|advisory notes)[ \t]*:?[ \t]*(?:none\.?)?")
_NOTE = compile_lazily(r"[-*+ \t]*note[ \t]*:")
_OF = compile_lazily(r"(\d{1,4}) of (\d{1,4})")
_FALSELY = compile_lazily(r"(\d{1,4}) (?:falsely marked complete|false completions?|questionable)")


def _coverage(row: _Row) -> bool | str | None:
    """An AC coverage line: a table row whose status is IMPLEMENTED (accounted for) or
    PARTIAL / MISSING (blocks), the header and rule rows, and the 'X of Y' summary."""
    why = "an acceptance criterion is not implemented"
    return _table_or_summary(row.text, _IMPLEMENTED, _NOT_IMPLEMENTED, why)


def _tasks_verified(row: _Row) -> bool | str | None:
    """A Task Completion Validation line, read like `_coverage`; its summary's count of
    tasks falsely marked complete or questionable must be 0."""
    for found in _FALSELY.finditer(row.text):
        if int(found.group(1)) > 0:
            return "a task is falsely marked complete or questionable"
    why = "a task marked complete is not verified"
    return _table_or_summary(row.text, _VERIFIED, _NOT_VERIFIED, why)


_IMPLEMENTED = frozenset(
    {"implemented", "fully implemented", "verified", "met", "pass", "passed", "done", "complete"}
)
_NOT_IMPLEMENTED = frozenset({"partial", "missing", "not implemented", "fail", "failed", "not met"})
_VERIFIED = frozenset({"verified complete", "verified", "complete", "done", "pass", "passed"})
_NOT_VERIFIED = frozenset(
    {"not done", "questionable", "falsely marked complete", "false", "incomplete", "not verified"}
)
_HEADER_WORDS = frozenset(
    {"status", "verified as", "marked as", "evidence", "ac", "task", "description"}
)


def _table_or_summary(
    text: str, good: frozenset[str], bad: frozenset[str], why: str
) -> bool | str | None:
    stripped = text.strip()
    if stripped.startswith("|"):
        cells = [words(c) for c in stripped.strip("|").split("|")]
        if all(not c for c in cells) or any(c in _HEADER_WORDS for c in cells[:1]):
            return True  # the rule row or the header row
        if any(c in bad for c in cells):
            return why
        if not any(c in good for c in cells):
            return None
        problem = _problem(text)  # the evidence beside a good status is the reviewer's prose
        return True if problem is None else f"a row states a problem: {problem}"
    counted = _OF.search(stripped)
    if counted is not None and "summary" in stripped.split(":", 1)[0]:
        return True if counted.group(1) == counted.group(2) else why
    return None


def _compliance(row: _Row) -> bool | str | None:
    """A v4 Compliance Check line ('- Coding Standards: ✓'): ✗ blocks, ✓ is accounted for."""
    if any(mark in row.text for mark in ("✗", "✘", "❌")):
        return "a compliance check is not met"
    if any(mark in row.text for mark in ("✓", "✔", "✅")):
        return True
    return None


def _outcome_line(row: _Row) -> bool | str | None:
    """The Outcome part's lines after its value: the generic reader's (`_read_review` takes
    the value itself)."""
    del row
    return None


_READERS = {
    "findings": _findings,
    "action items": _action_items,
    "coverage": _coverage,
    "tasks verified": _tasks_verified,
    "compliance": _compliance,
    "outcome": _outcome_line,
}

_VALUE_START = compile_lazily(r"[^a-z]{0,6}")


def _outcome_decision(value: str) -> tuple[Decision, str] | None:
    """The Outcome's decision: Approve approves unless the text after it conditions it;
    Changes Requested asks for fixes; Blocked refuses. None for any other value."""
    text = norm(value).lower()
    text = text[_VALUE_START.match(text).end() :]  # type: ignore[union-attr]
    for word, decision in _OUTCOMES:
        if text.startswith(word) and not text[len(word) : len(word) + 1].isalpha():
            reason = f"the Senior Developer Review's Outcome is {word.title()}"
            if decision is not Decision.APPROVE:
                return decision, reason
            problem = after_approval(text[len(word) :])
            if problem is not None:
                return problem[0], f"{reason}, but the text after it: {problem[1]}"
            return decision, reason
    return None


_OUTCOMES = (
    ("approved", Decision.APPROVE),
    ("approve", Decision.APPROVE),
    ("changes requested", Decision.FIXES),
    ("blocked", Decision.REJECT),
)


def inventory_rows() -> Iterator[tuple[str, str, str, str]]:
    """(section, role, owner, versions) of every part: the table in docs/verdicts.md."""
    for part in (*STORY_PARTS, *REVIEW_PARTS):
        yield part.title, part.role.value, part.owner, part.versions
