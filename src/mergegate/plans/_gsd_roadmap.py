"""GSD `ROADMAP.md`: the phase sections, their goals and success criteria.

A phase section is a heading `Phase <id>: <name>` (levels 2-5; GSD writes 2-4) up to the next
heading of the same or a higher level. Inside it, bold labels (`**Goal**:` and `**Goal:**`
both occur) give the goal, requirement ids, the success criteria list and the plan list.
Everything else labelled is kept in `extra`. Milestone archives (`milestones/v1.0-ROADMAP.md`)
have the same shape; PAUL's lighter roadmaps simply lack some labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import JsonValue

from mergegate.plans._document import Document
from mergegate.plans._markdown import Item, headings, label_at, list_items
from mergegate.plans._model import AcceptanceCriterion, SourceRef

__all__ = ["Roadmap", "RoadmapPhase", "read_roadmap"]

_PHASE = re.compile(
    r"^Phase[ \t]+(?=[A-Za-z.]{0,30}\d)([A-Za-z0-9]{1,30}(?:\.[A-Za-z0-9]{1,30}){0,6})"
    r"[ \t]*(?:(?:[:\-—–]|\.(?=[ \t]|$))[ \t]*(.*))?$",
    re.I,
)
_TITLE = re.compile(r"^Roadmap[ \t]*:[ \t]*(.+)$", re.I)
_PLAIN_LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z ]{1,30}):[ \t]*(.*)$")
_PLAN_ENTRY = re.compile(
    r"^`?(?P<id>[A-Za-z0-9.]+-\d+)(?:-[A-Za-z0-9-]*)?(?:-PLAN\.md)?`?"
    r"[ \t]*(?:[:—–-]+)?[ \t]*(?P<text>.*)$"
)
_SPLIT_IDS = re.compile(r"[,;\s]+")
_KNOWN = {"goal", "requirements", "success criteria", "plans", "depends on"}


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


@dataclass(frozen=True)
class Roadmap:
    rel: str
    title: str
    phases: tuple[RoadmapPhase, ...]


def read_roadmap(doc: Document) -> Roadmap:
    """Every phase section of a roadmap file, in file order."""
    heads = headings(doc)
    title = ""
    phases: list[RoadmapPhase] = []
    for k, head in enumerate(heads):
        if head.level == 1 and not title:
            match = _TITLE.match(head.text)
            title = (match.group(1) if match else head.text).strip()
        match = _PHASE.match(head.text) if 2 <= head.level <= 5 else None
        if match is None:
            continue
        end = next(
            (h.index for h in heads[k + 1 :] if h.level <= head.level or _PHASE.match(h.text)),
            len(doc.lines),
        )
        phases.append(_phase(doc, head.index, end, match.group(1), (match.group(2) or "").strip()))
    return Roadmap(rel=doc.rel, title=title, phases=tuple(phases))


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
