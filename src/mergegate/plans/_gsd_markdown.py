"""GSD-family plan files that do not follow the XML-ish template, read from their Markdown.

Two shapes occur in real trees: `### Task N:` headings with `**File:**`/`**Files:**` labels,
an `Acceptance Criteria` table of `AC-N` rows and a `Boundaries` list (PAUL's free-form plans,
GSD quick tasks); and a retro-written checklist, `- [x]` items under a `Tasks` heading with
checks under `Verification`. Ticks are recorded nowhere: a ticked box is no evidence that the
work was done, and the importer says so.
"""

from __future__ import annotations

import re
from typing import Any

from mergegate.plans._document import Document
from mergegate.plans._errors import Notes
from mergegate.plans._markdown import (
    Heading,
    consulted,
    file_block,
    headings,
    label_at,
    list_items,
    touched,
)
from mergegate.plans._model import AcceptanceCriterion, Task, Verify

__all__ = ["NAME_LIMIT", "markdown_body"]

NAME_LIMIT = 200
_TASK_HEADING = re.compile(r"^Task[ \t]+\d[\w.-]*\b", re.I)
_AC_ROW = re.compile(r"^[ \t]*\|[ \t]*\**(AC-\d+)\**[ \t]*\|[ \t]*(.*?)[ \t]*\|")
_FILE_LABEL = re.compile(
    r"^(?:test[ \t]+)?files?(?:[ \t]+to[ \t]+(?:modify|create|change))?$", re.I
)


def markdown_body(doc: Document, start: int, notes: Notes) -> dict[str, Any]:
    heads = headings(doc, start)
    fields: dict[str, Any] = {}
    title = next((h for h in heads if h.level == 1), None)
    if title is not None:
        fields["name"] = title.text[:NAME_LIMIT]
    task_heads = [h for h in heads if 2 <= h.level <= 4 and _TASK_HEADING.match(h.text)]
    if task_heads:
        fields["tasks"] = tuple(
            _heading_task(doc, heads, h, n) for n, h in enumerate(task_heads, 1)
        )
    for head in heads:
        key = head.text.strip().lower().rstrip(":")
        lo, hi = head.index + 1, _section_end(doc, heads, head)
        if key == "tasks" and not task_heads:
            fields["tasks"] = _checklist_tasks(doc, lo, hi, notes)
        elif key in ("goal", "objective"):
            fields["objective"] = doc.text(lo, hi).strip()
        elif key == "acceptance criteria":
            fields["acceptance_criteria"] = _ac_rows(doc, lo, hi)
        elif key == "verification":
            items = list_items(doc, lo, hi)
            fields["verification"] = Verify(text=doc.text(lo, hi).strip())
            fields.setdefault(
                "success_criteria",
                tuple(
                    AcceptanceCriterion(text=item.text, source=doc.ref(item.index))
                    for item in items
                ),
            )
        elif key == "boundaries":
            fields["boundaries"] = tuple(item.text for item in list_items(doc, lo, hi))
    return fields


def _section_end(doc: Document, heads: list[Heading], head: Heading) -> int:
    later = (h.index for h in heads if h.index > head.index and h.level <= head.level)
    return next(later, len(doc.lines))


def _heading_task(doc: Document, heads: list[Heading], head: Heading, number: int) -> Task:
    end = _section_end(doc, heads, head)
    changes = []
    for i in range(head.index + 1, end):
        label = label_at(doc, i)
        if label is not None and _FILE_LABEL.match(label.name):
            changes.extend(file_block(doc, label, end))
    return Task(
        id=str(number),
        name=head.text,
        files=touched(changes),
        file_changes=tuple(changes),
        read_first=consulted(changes),
        action=doc.text(head.index + 1, end).strip(),
        source=doc.ref(head.index),
    )


def _checklist_tasks(doc: Document, start: int, end: int, notes: Notes) -> tuple[Task, ...]:
    items = list_items(doc, start, end)
    if not items:
        return ()
    top = min(item.indent for item in items)
    chosen = [item for item in items if item.indent == top]
    if chosen and all(item.box == "x" for item in chosen):
        notes.warn(
            "ticked-checklist",
            f"all {len(chosen)} task boxes are ticked; ticks are not evidence the work is done",
            doc.ref(chosen[0].index),
        )
    return tuple(
        Task(id=str(n), name=item.text, source=doc.ref(item.index))
        for n, item in enumerate(chosen, 1)
    )


def _ac_rows(doc: Document, start: int, end: int) -> tuple[AcceptanceCriterion, ...]:
    found = []
    for i in range(start, end):
        match = None if doc.fenced[i] else _AC_ROW.match(doc.lines[i])
        if match:
            found.append(
                AcceptanceCriterion(
                    id=match.group(1).upper(), text=match.group(2), source=doc.ref(i)
                )
            )
    if found:
        return tuple(found)
    return tuple(
        AcceptanceCriterion(text=item.text, source=doc.ref(item.index))
        for item in list_items(doc, start, end)
    )
