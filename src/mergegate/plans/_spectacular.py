"""spectacular plans (`specs/<runId>-<slug>/plan.md`, or split into `plan/plan-phaseN.md`).

`## Phase N: name` sections carry `**Strategy**: sequential|parallel` (casing and suffixes vary:
the first word decides; a newer variant gives it only in a `Phases Overview` table). Each
`### Task <id>: name` is one unit with one task: its files, its `Acceptance Criteria` checklist,
its `Quality Gates` fences (the runnable checks) and its `Dependencies` text (`Task 1`,
`Tasks 4.2 and 4.3`, `task-2-slug` all name units).

Execution semantics: phases run in order; in a parallel phase every task is wave 1; in a
sequential phase each task depends on the one before it (spectacular stacks their branches).
A phase with no strategy anywhere runs sequentially, with a warning. Declared totals
(`**Total Tasks**: 4`) are hints: the task sections are what is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from mergegate.plans._document import Document, is_fence_delimiter
from mergegate.plans._errors import Notes, PlanError
from mergegate.plans._frontmatter import read_plan_frontmatter, to_json
from mergegate.plans._markdown import (
    Heading,
    consulted,
    file_block,
    headings,
    label_at,
    list_items,
    touched,
)
from mergegate.plans._model import (
    AcceptanceCriterion,
    Check,
    Phase,
    Plan,
    PlanFormat,
    Task,
    Unit,
    Verify,
)

__all__ = ["PHASE_HEADING", "import_spectacular", "strategies_from_tables"]

PHASE_HEADING = re.compile(
    r"^Phase[ \t]+(?P<id>\d+(?:\.\d+)*)[ \t]*(?::|[ \t][—–-])[ \t]*(?P<name>.+)$", re.I
)
_TASK = re.compile(r"^Task[ \t]+(?P<id>\d+(?:[.-]\d+)*)[ \t]*[:.—–-][ \t]*(?P<name>.+)$", re.I)
_TASK_REF = re.compile(
    r"\btasks?[ \t-]+(?P<ids>\d+(?:[.-]\d+)*(?:(?:[ \t]*(?:,|&|and)[ \t]*)\d+(?:[.-]\d+)*)*)",
    re.I,
)
_REF_SPLIT = re.compile(r"[ \t]*(?:,|&|and)[ \t]*")
_FILES = re.compile(r"^files?(?:[ \t]+(?:to[ \t]+)?\w+)?$", re.I)
_STRATEGY = re.compile(r"(parallel|sequential)", re.I)
_HEADER = re.compile(r"^>[ \t]*\*\*(?P<label>[^*]{1,40}?):?\*\*:?[ \t]*(?P<value>.*)$")
_TOTAL = re.compile(r"^(\d+)\b")
_LEADING_INT = re.compile(r"^\d+")


@dataclass
class _Draft:
    phase_id: str
    name: str
    strategy: str | None
    source_index: int
    doc: Document
    tasks: list[tuple[Task, dict[str, Any]]] = field(default_factory=list)


def import_spectacular(
    docs: list[Document], notes: Notes, *, index: Document | None = None
) -> Plan:
    """Import a plan from one `plan.md`, or from split phase files plus their README index."""
    tables: dict[str, str] = {}
    for doc in ([index] if index else []) + docs:
        tables.update(strategies_from_tables(doc))
    drafts: list[_Draft] = []
    extra: dict[str, JsonValue] = {}
    title = ""
    for doc in docs:
        extra.update(_header(doc, notes))
        title = title or _title(doc)
        drafts.extend(_phases(doc, notes))
    if index is not None:
        extra.update(_header(index, notes))
        title = _title(index) or title
    if not drafts:
        where = docs[0] if docs else index
        assert where is not None
        raise PlanError(
            "no `Phase N: name` sections with `Task N: name` sections found", file=where.rel
        )
    for draft in drafts:
        draft.strategy = draft.strategy or tables.get(draft.phase_id)
        if draft.strategy is None:
            notes.warn(
                "no-strategy",
                f"phase {draft.phase_id} gives no strategy; its tasks run sequentially",
                draft.doc.ref(draft.source_index),
            )
    _check_total(docs, sum(len(d.tasks) for d in drafts), notes)
    phases = tuple(_phase(draft) for draft in drafts)
    first = docs[0] if docs else index
    return Plan(
        format=PlanFormat.SPECTACULAR,
        title=title,
        phases=phases,
        source=first.ref(0) if first else None,
        extra=extra,
    )


def strategies_from_tables(doc: Document) -> dict[str, str]:
    """`phase id → parallel|sequential` from overview tables with a Type/Strategy column."""
    found: dict[str, str] = {}
    columns: list[str] | None = None
    for i, line in enumerate(doc.lines):
        if doc.fenced[i] or not line.lstrip().startswith("|"):
            columns = None
            continue
        cells = [cell.strip().strip("*").strip() for cell in line.strip().strip("|").split("|")]
        lowered = [cell.lower() for cell in cells]
        if "phase" in lowered and ("type" in lowered or "strategy" in lowered):
            columns = lowered
            continue
        if columns is None or len(cells) != len(columns):
            continue
        phase = _LEADING_INT.match(cells[columns.index("phase")])
        kind = cells[columns.index("type" if "type" in columns else "strategy")]
        strategy = _STRATEGY.search(kind)
        if phase and strategy:
            found[phase.group(0)] = strategy.group(1).lower()
    return found


def _title(doc: Document) -> str:
    first = next(
        (h for h in headings(doc) if h.level == 1 and not PHASE_HEADING.match(h.text)), None
    )
    return first.text if first else ""


def _header(doc: Document, notes: Notes) -> dict[str, JsonValue]:
    extra: dict[str, JsonValue] = {}
    front = read_plan_frontmatter(doc, notes)
    if front is not None:
        extra.update({key: to_json(node) for key, node in front.root.value.items()})
    for i, line in enumerate(doc.lines[:80]):
        match = None if doc.fenced[i] else _HEADER.match(line)
        if match:
            key = match.group("label").strip().lower().replace(" ", "_")
            extra.setdefault("runId" if key == "run_id" else key, match.group("value").strip())
    return extra


def _phases(doc: Document, notes: Notes) -> list[_Draft]:
    heads = headings(doc)
    drafts = []
    for k, head in enumerate(heads):
        match = PHASE_HEADING.match(head.text) if head.level <= 3 else None
        if match is None:
            continue
        end = next((h.index for h in heads[k + 1 :] if h.level <= head.level), len(doc.lines))
        draft = _Draft(match["id"], match["name"].strip(), None, head.index, doc)
        tasks = [h for h in heads if head.index < h.index < end and _TASK.match(h.text)]
        first_task = tasks[0].index if tasks else end
        draft.strategy = _strategy(doc, head.index + 1, first_task)
        for task_head in tasks:
            task_end = next(
                (
                    h.index
                    for h in heads
                    if h.index > task_head.index and h.level <= task_head.level
                ),
                end,
            )
            draft.tasks.append(_task(doc, task_head, min(task_end, end), notes))
        drafts.append(draft)
    return drafts


def _strategy(doc: Document, start: int, end: int) -> str | None:
    for i in range(start, end):
        label = label_at(doc, i)
        if label is not None and label.name.lower() == "strategy":
            match = _STRATEGY.match(label.value.strip().strip("*").strip())
            if match:
                return match.group(1).lower()
    return None


def _task(doc: Document, head: Heading, end: int, notes: Notes) -> tuple[Task, dict[str, Any]]:
    match = _TASK.match(head.text)
    assert match is not None
    labels = [lab for i in range(head.index + 1, end) if (lab := label_at(doc, i)) is not None]
    bounds = [lab.index for lab in labels] + [end]
    changes: list[Any] = []
    criteria: list[AcceptanceCriterion] = []
    gates: list[Check] = []
    gate_text: list[str] = []
    info: dict[str, Any] = {"depends": "", "extra": {}}
    for lab in labels:
        stop = next(b for b in bounds if b > lab.index)
        name = lab.name.lower()
        if _FILES.match(name):
            changes.extend(file_block(doc, lab, stop))
        elif name == "acceptance criteria":
            criteria.extend(
                AcceptanceCriterion(text=item.text, source=doc.ref(item.index))
                for item in list_items(doc, lab.index + 1, stop)
            )
        elif name == "quality gates":
            gate_text.append(doc.text(lab.index + 1, stop).strip())
            gates.extend(_fence_commands(doc, lab.index + 1, stop))
        elif name in ("dependencies", "depends on", "dependency"):
            below = " ".join(item.text for item in list_items(doc, lab.index + 1, stop))
            info["depends"] = f"{lab.value} {below}".strip()
        elif lab.value:
            info["extra"][name.replace(" ", "_")] = lab.value
    if not changes:
        notes.warn("task-without-files", f"task {match['id']} lists no files", doc.ref(head.index))
    task = Task(
        id=match["id"],
        name=match["name"].strip(),
        files=touched(changes),
        file_changes=tuple(changes),
        read_first=consulted(changes),
        action=doc.text(head.index + 1, end).strip(),
        verify=Verify(text="\n\n".join(t for t in gate_text if t), commands=tuple(gates)),
        acceptance_criteria=tuple(criteria),
        source=doc.ref(head.index),
    )
    return task, info


def _fence_commands(doc: Document, start: int, end: int) -> list[Check]:
    """One check per command line of the fenced blocks in `start`..`end` (comments skipped)."""
    commands: list[Check] = []
    pending = ""
    pending_at = start
    for i in range(start, end):
        line = doc.lines[i].strip()
        if not doc.fenced[i] or is_fence_delimiter(line):
            continue
        if not line or (line.startswith("#") and not pending):
            continue
        if not pending:
            pending_at = i
        pending = (
            f"{pending} {line[:-1].strip()}".strip()
            if line.endswith("\\")
            else f"{pending} {line}".strip()
        )
        if not line.endswith("\\"):
            commands.append(Check(run=pending, source=doc.ref(pending_at)))
            pending = ""
    return commands


def _phase(draft: _Draft) -> Phase:
    units = []
    previous: str | None = None
    parallel = draft.strategy == "parallel"
    for position, (task, info) in enumerate(draft.tasks, start=1):
        depends = list(dict.fromkeys(_refs(info["depends"], task.id)))
        if not parallel and previous is not None and previous not in depends:
            depends.append(previous)
        units.append(
            Unit(
                id=task.id,
                name=task.name,
                wave=1 if parallel else position,
                depends_on=tuple(depends),
                files=task.files,
                tasks=(task,),
                source=task.source,
                extra={"dependencies": info["depends"], **info["extra"]},
            )
        )
        previous = task.id
    extra: dict[str, JsonValue] = {"strategy": draft.strategy or "sequential"}
    return Phase(
        id=draft.phase_id,
        name=draft.name,
        units=tuple(units),
        source=draft.doc.ref(draft.source_index),
        extra=extra,
    )


def _refs(text: str, own: str) -> list[str]:
    if text.strip().strip("*_`").lower().startswith(("none", "n/a", "-")):
        return []  # "None (parallel with Task 1)" names a task without depending on it
    found: list[str] = []
    for match in _TASK_REF.finditer(text):
        found.extend(part for part in _REF_SPLIT.split(match.group("ids")) if part and part != own)
    return found


def _check_total(docs: list[Document], counted: int, notes: Notes) -> None:
    for doc in docs:
        for i in range(min(len(doc.lines), 200)):
            label = label_at(doc, i)
            if label is None or label.name.lower() != "total tasks":
                continue
            declared = _TOTAL.match(label.value)
            if declared and int(declared.group(1)) != counted:
                notes.warn(
                    "declared-total-mismatch",
                    f"`Total Tasks: {label.value}` disagrees with the {counted} task sections "
                    "found; the sections are imported",
                    doc.ref(i),
                )
            return
