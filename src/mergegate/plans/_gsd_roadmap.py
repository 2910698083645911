"""GSD `ROADMAP.md`: the phase sections, their goals and success criteria.

A phase section is a heading `Phase <id>: <name>` (any level; GSD writes 2-4) up to the next
heading of the same or a higher level, or the next phase heading. Every form real roadmaps
use is read (`read_phase_heading`): ids that are numbers (`1`, `01`, `14.1`, `12.3.1`,
`2A`), project codes and custom ids (`AE1`, `CK-01`, `CV-RENDER`, GSD's `project_code` and
custom phase ids), separators `:`, ` — `, ` – `, ` - `, `.` or none, decoration around it
(`✅`, `**…**`). An id without a digit must be followed by a separator (`Phase CV-RENDER:`),
so section titles such as `## Phase Details` stay titles. A heading that names a phase but
cannot be one is skipped *with a warning* at its line: a range (`Phase 1-9: …`, a summary of
shipped phases) and a struck-through phase (`~~Phase 41: …~~ — CANCELLED`). An id may repeat
(milestones that restart their numbering); the importer matches directories to sections.

Inside a section, bold labels (`**Goal**:` and `**Goal:**` both occur) give the goal,
requirement ids, the success criteria list and the plan list. Everything else labelled is
kept in `extra`. Milestone archives (`milestones/v1.0-ROADMAP.md`) have the same shape;
PAUL's lighter roadmaps simply lack some labels. Phases keep the roadmap's order: `position`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

from pydantic import JsonValue

from mergegate.plans._document import Document
from mergegate.plans._errors import Notes
from mergegate.plans._markdown import Heading, Item, headings, label_at, list_items
from mergegate.plans._model import AcceptanceCriterion, SourceRef

__all__ = ["PhaseHeading", "Roadmap", "RoadmapPhase", "read_phase_heading", "read_roadmap"]

# `Phase` after at most a little decoration: `✅ `, `**`, `~~`, `[x] `, `🚧 `.
_PHASE_WORD = re.compile(r"^(?P<lead>[^A-Za-z0-9]{0,12}?)Phase[ \t]+(?P<rest>.+)$", re.I)
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_RANGE = re.compile(r"^\d+(?:\.\d+)*[-–—]\d+(?:\.\d+)*$")
# What may follow an id: a colon, a dash between spaces, a full stop, or nothing at all.
_SEPARATOR = re.compile(r"^[ \t]*(?:[:：]|[-—–]+(?=[ \t]|$)|\.(?=[ \t]|$))[ \t]*")
_DECORATION = " \t*~_"
_TITLE = re.compile(r"^Roadmap[ \t]*:[ \t]*(.+)$", re.I)
_PLAIN_LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z ]{1,30}):[ \t]*(.*)$")
_PLAN_ENTRY = re.compile(
    r"^`?(?P<id>[A-Za-z0-9.]+-\d+)(?:-[A-Za-z0-9-]*)?(?:-PLAN\.md)?`?"
    r"[ \t]*(?:[:—–-]+)?[ \t]*(?P<text>.*)$"
)
_SPLIT_IDS = re.compile(r"[,;\s]+")
_KNOWN = {"goal", "requirements", "success criteria", "plans", "depends on"}


@dataclass(frozen=True)
class PhaseHeading:
    """What a `Phase …` heading says: the id as written, the name, and whether it is struck."""

    id: str
    name: str
    struck: bool
    """Written as `~~Phase 41: …~~` (a cancelled phase)."""
    is_range: bool
    """`Phase 1-9: …`: a summary of several phases, no phase of its own."""


@dataclass(frozen=True)
class RoadmapPhase:
    id: str
    name: str
    goal: str
    success_criteria: tuple[AcceptanceCriterion, ...]
    requirements: tuple[str, ...]
    has_criteria_label: bool
    """The section has a `**Success Criteria**` label (even with no items under it)."""
    plans: dict[str, str]
    """Plan ids (`04-01`) listed under `Plans:` with their one-line descriptions."""
    source: SourceRef
    extra: dict[str, JsonValue] = field(default_factory=dict)
    position: int = 0
    """Its place among the roadmap's phases (0-based): the order `run` follows."""


@dataclass(frozen=True)
class Roadmap:
    rel: str
    title: str
    phases: tuple[RoadmapPhase, ...]


def read_phase_heading(text: str) -> PhaseHeading | None:
    """The phase a heading's text names, or None when it names none (`Phase Details`)."""
    match = _PHASE_WORD.match(text.strip())
    if match is None:
        return None
    lead, rest = match.group("lead"), match.group("rest")
    if any(ch.isalnum() for ch in lead):
        return None  # what precedes `Phase` is decoration (a status mark, `**`), never words
    token = _ID.match(rest)
    if token is None:
        return None
    phase_id = token.group().rstrip(".-_")
    after = rest[len(phase_id) :]
    separator = _SEPARATOR.match(after)
    has_digit = any(ch.isdigit() for ch in phase_id)
    if separator is None and not has_digit:
        return None  # `Phase Details`, `Phases`, `Phase Summary (all milestones)`
    if separator is None and after[:1] not in ("", " ", "\t", "("):
        return None
    name = _strip_marks(after[separator.end() :] if separator else after)
    struck = "~~" in lead or rest.lstrip().startswith("~~")
    return PhaseHeading(phase_id, name, struck, bool(_RANGE.match(phase_id)))


def _strip_marks(name: str) -> str:
    """A heading's name without the decoration around it: `**`, `~~`, status marks (`✅`,
    `✓`, `⭐`: symbols, with their emoji variation selectors and joiners)."""
    start, end = 0, len(name)
    while start < end and _is_mark(name[start]):
        start += 1
    while end > start and _is_mark(name[end - 1]):
        end -= 1
    return name[start:end]


def _is_mark(char: str) -> bool:
    return (
        char.isspace()
        or char in _DECORATION
        or unicodedata.category(char) == "So"
        or char in "\ufe0f\u200d"
    )


def read_roadmap(doc: Document, notes: Notes | None = None) -> Roadmap:
    """Every phase section of a roadmap file, in file order; skipped ones warned about."""
    heads = headings(doc)
    title = ""
    phases: list[RoadmapPhase] = []
    parsed = [read_phase_heading(h.text) for h in heads]
    for k, head in enumerate(heads):
        if head.level == 1 and not title and parsed[k] is None:
            match = _TITLE.match(head.text)
            title = (match.group(1) if match else head.text).strip()
        found = parsed[k]
        if found is None:
            continue
        skipped = _skip_reason(found)
        if skipped is not None:
            if notes is not None:
                notes.warn("roadmap-phase-skipped", skipped, doc.ref(head.index))
            continue
        end = _section_end(heads, parsed, k, len(doc.lines))
        phase = _phase(doc, head.index, end, found.id, found.name)
        phases.append(replace(phase, position=len(phases)))
    return Roadmap(rel=doc.rel, title=title, phases=tuple(phases))


def _skip_reason(found: PhaseHeading) -> str | None:
    if found.is_range:
        return (
            f"heading `Phase {found.id}` covers a range of phases and is no phase of its own; "
            "skipped"
        )
    if found.struck:
        return f"phase {found.id} is struck through (cancelled); skipped"
    return None


def _section_end(heads: list[Heading], parsed: list[PhaseHeading | None], k: int, n: int) -> int:
    level = heads[k].level
    for j in range(k + 1, len(heads)):
        if heads[j].level <= level or parsed[j] is not None:
            return heads[j].index
    return n


def _phase(doc: Document, start: int, end: int, phase_id: str, name: str) -> RoadmapPhase:
    labels = _labels(doc, start + 1, end)
    values = {lab.lower(): (i, value) for i, lab, value in labels}
    bounds = [i for i, _, _ in labels] + [end]

    def block(label: str) -> tuple[int, int]:
        i = values[label][0]
        return i + 1, next(b for b in bounds if b > i)

    criteria: tuple[AcceptanceCriterion, ...] = ()
    if "success criteria" in values:
        lo, hi = block("success criteria")
        criteria = tuple(
            AcceptanceCriterion(id=str(n), text=item.text, source=doc.ref(item.index))
            for n, item in enumerate(_top_items(doc, lo, hi), start=1)
        )
    requirements: tuple[str, ...] = ()
    if "requirements" in values:
        requirements = _ids(values["requirements"][1])
    plans: dict[str, str] = {}
    if "plans" in values:
        plans = _plan_list(doc, *block("plans"))
    extra: dict[str, JsonValue] = {
        lab: value for _, lab, value in labels if lab.lower() not in _KNOWN and value
    }
    if "depends on" in values:
        extra["depends_on"] = values["depends on"][1]
    if "plans" in values and values["plans"][1]:
        extra["plans"] = values["plans"][1]
    return RoadmapPhase(
        id=phase_id,
        name=name,
        goal=values.get("goal", (0, ""))[1],
        success_criteria=criteria,
        requirements=requirements,
        has_criteria_label="success criteria" in values,
        plans=plans,
        source=doc.ref(start),
        extra=extra,
    )


def _labels(doc: Document, start: int, end: int) -> list[tuple[int, str, str]]:
    """Bold labels, plus the plain `Plans:` line GSD puts above its plan checklist."""
    found = []
    for i in range(start, end):
        label = label_at(doc, i)
        if label is not None:
            found.append((i, label.name, label.value))
            continue
        plain = None if doc.fenced[i] else _PLAIN_LABEL.match(doc.lines[i])
        if plain and plain.group(1).strip().lower() == "plans" and not plain.group(2).strip():
            found.append((i, "plans", ""))
    # A bold `**Plans**: 3 plans` followed by a plain `Plans:` line: keep both values, one block.
    merged: list[tuple[int, str, str]] = []
    for entry in found:
        if merged and entry[1] == "plans" and merged[-1][1].lower() == "plans" and not entry[2]:
            continue
        merged.append(entry)
    return merged


def _top_items(doc: Document, start: int, end: int) -> list[Item]:
    items = list_items(doc, start, end)
    if not items:
        return []
    top = min(item.indent for item in items)
    return [item for item in items if item.indent == top]


def _plan_list(doc: Document, start: int, end: int) -> dict[str, str]:
    plans = {}
    for item in list_items(doc, start, end):
        match = _PLAN_ENTRY.match(item.text.replace("-PLAN.md", ""))
        if match:
            plans[match.group("id")] = match.group("text").strip()
    return plans


def _ids(value: str) -> tuple[str, ...]:
    cleaned = value.replace("[", " ").replace("]", " ").replace("`", " ")
    return tuple(part for part in _SPLIT_IDS.split(cleaned) if part and part.lower() != "tbd")
