"""One GSD-family `*-PLAN.md` file → one `Unit` (ids and dependencies resolved by `_gsd`).

The body is the template: XML-ish sections (`<objective>`, `<tasks>` with `<task type=...>`
blocks, `<verification>`, `<success_criteria>`, PAUL's `<acceptance_criteria>` with `## AC-N`
gherkin items and `<boundaries>`), scanned by `_tags`. Plan files without `<task>` blocks are
read from their Markdown by `_gsd_markdown`.

The frontmatter keeps its raw text: `plan: 01` stays `01`. Keys the model has no field for
are kept in `Unit.extra`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from mergegate.plans._document import Document
from mergegate.plans._errors import Notes, PlanError
from mergegate.plans._frontmatter import Node, PlanFrontmatter, read_plan_frontmatter, to_json
from mergegate.plans._gsd_markdown import NAME_LIMIT, markdown_body
from mergegate.plans._ids import normal_id
from mergegate.plans._markdown import headings, list_items, split_paths
from mergegate.plans._model import (
    AcceptanceCriterion,
    Artifact,
    Check,
    KeyLink,
    MustHaves,
    Task,
    Unit,
    Verify,
)
from mergegate.plans._tags import Element, TagIndex

__all__ = ["PlanFile", "PlanName", "parse_plan_name", "read_gsd_plan"]

_NUMBERED = re.compile(r"^(?P<phase>[^-]+)-(?P<plan>\d+)(?:-(?P<slug>.+))?-PLAN\.md$")
_UNNUMBERED = re.compile(r"^(?P<phase>[^-]+)(?:-.+)?-PLAN\.md$")
_TAIL = re.compile(r"^(?P<plan>\d+)(?:-.+)?-PLAN\.md$")
_SECTIONS = frozenset(
    {
        "objective", "execution_context", "context", "tasks", "verification",
        "success_criteria", "output", "acceptance_criteria", "boundaries", "skills",
    }
)  # fmt: skip
_TASK_PARTS = frozenset(
    {
        "name", "files", "read_first", "action", "behavior", "verify", "acceptance_criteria",
        "done", "what-built", "how-to-verify", "resume-signal", "options", "decision",
        "context",
    }
)  # fmt: skip
_MAPPED_KEYS = frozenset(
    {"wave", "depends_on", "files_modified", "files-modified", "autonomous", "requirements",
     "must_haves"}
)  # fmt: skip
_AC_HEADING = re.compile(r"^(AC-\d+)[ \t]*[:.\-—–]?[ \t]*(.*)$", re.I)
_AUTOMATED = re.compile(r"<automated>(.*?)</automated>", re.I)
_INLINE_PART = re.compile(r"<([a-z][\w-]{0,40})>(.*?)</\1>")


@dataclass(frozen=True)
class PlanName:
    """What a plan file's name says: `04-02-PLAN.md` → phase `04`, plan `02`, stem `04-02`."""

    phase: str | None
    plan: str | None
    stem: str
    """GSD's own plan id: the name without `-PLAN.md` (a SUMMARY with this stem marks it done)."""


@dataclass(frozen=True)
class PlanFile:
    """A parsed plan before ids are resolved across the tree."""

    unit: Unit
    """`id` is provisional; `depends_on` holds the raw texts."""
    name: PlanName
    plan_number: str | None


def parse_plan_name(file_name: str, *, phase: str | None = None) -> PlanName:
    """What a plan file's name says; `phase` is its directory's phase id when known, so a
    name that starts with an id holding dashes (`CV-RENDER-01-PLAN.md`) splits after it, and
    a bare number that is not the phase (`02-PLAN.md` in `01-x/`) is the plan's number."""
    stem = file_name.removesuffix("PLAN.md").removesuffix("-")
    if phase and file_name.lower().startswith(phase.lower() + "-"):
        tail = _TAIL.match(file_name[len(phase) + 1 :])
        if tail:
            return PlanName(file_name[: len(phase)], tail["plan"], stem)
    short = _TAIL.match(file_name)
    if phase and short and short["plan"] == stem and normal_id(stem) != normal_id(phase):
        return PlanName(phase, stem, stem)  # `02-PLAN.md` in phase 01's directory: plan 02
    numbered = _NUMBERED.match(file_name)
    if numbered:
        return PlanName(numbered["phase"], numbered["plan"], stem)
    unnumbered = _UNNUMBERED.match(file_name)
    return PlanName(unnumbered["phase"] if unnumbered else None, None, stem)


def read_gsd_plan(doc: Document, name: PlanName, notes: Notes) -> PlanFile:
    """Parse one plan file; frontmatter nothing can read is an import *error* on the unit.

    Such a unit keeps its tasks (so the rest of a tree stays usable) but its wave,
    dependencies and must-haves are unknown, and `ImportResult.errors` says so: a plan with
    import errors must not run.
    """
    unreadable = False
    try:
        front = read_plan_frontmatter(doc, notes)
    except PlanError as exc:
        notes.error(
            "unreadable-frontmatter",
            f"{exc.reason}; this plan's wave, depends_on and must_haves are unknown",
            doc.ref(exc.line - 1),
        )
        unreadable = True
        front = PlanFrontmatter(Node({}, 1), _after_frontmatter(doc), loose=True)
    root = front.root if front else Node({}, 1)
    body_start = front.body_start if front else 0
    tags = TagIndex(doc)
    sections = {
        el.name: el for el in reversed(tags.elements(_SECTIONS, body_start, len(doc.lines)))
    }
    fields: dict[str, Any] = {}
    if "tasks" in sections or tags.count("task", body_start):
        fields.update(_template_body(doc, tags, sections, body_start, notes))
    else:
        fields.update(markdown_body(doc, body_start, notes))
    if unreadable:
        fields["extra"] = {"frontmatter": "unreadable"}
    else:
        fields.update(_frontmatter_fields(doc, front, notes))
    tasks = fields.get("tasks", ())
    if not tasks:
        notes.warn(
            "no-tasks",
            "no tasks found (no <task> blocks, 'Task N' headings or task checklist)",
            doc.ref(body_start),
        )
    if any(task.is_checkpoint for task in tasks):
        fields["autonomous"] = False
    declared = root.get("plan")
    written = declared.text().strip() if declared and declared.value is not None else ""
    plan_number = name.plan or written or None
    unit = Unit(id=name.stem, source=doc.ref(0), **fields)
    return PlanFile(unit=unit, name=name, plan_number=plan_number)


# ---------------------------------------------------------------- frontmatter


def _after_frontmatter(doc: Document) -> int:
    closing = (i for i in range(1, len(doc.lines)) if doc.lines[i].strip() in ("---", "..."))
    return next(closing, 0) + 1  # unclosed: the body starts after the opening line


def _frontmatter_fields(
    doc: Document, front: PlanFrontmatter | None, notes: Notes
) -> dict[str, Any]:
    if front is None:
        notes.warn(
            "no-frontmatter",
            "no frontmatter: phase and plan come from the file name; no wave or depends_on",
            doc.ref(0),
        )
        return {}
    root = front.root
    fields: dict[str, Any] = {"extra": _extra(root)}
    wave = root.get("wave")
    if wave is None or wave.value is None:
        notes.warn(
            "no-wave", "no `wave` in frontmatter; GSD runs such a plan in wave 1", doc.ref(0)
        )
    elif isinstance(wave.value, int) and not isinstance(wave.value, bool):
        fields["wave"] = wave.value
    else:
        notes.warn(
            "bad-wave", f"`wave: {wave.text()}` is not a number; ignored", doc.ref(wave.line - 1)
        )
    depends = root.get("depends_on")
    if depends is None:
        notes.warn("no-depends-on", "no `depends_on` in frontmatter; taken as none", doc.ref(0))
    else:
        fields["depends_on"] = tuple(_strings(depends, split_commas=True))
    files = root.get("files_modified") or root.get("files-modified")
    if files is not None:
        fields["files"] = tuple(_strings(files))
    autonomous = root.get("autonomous")
    if autonomous is not None:
        fields["autonomous"] = (
            autonomous.value is not False and autonomous.text().lower() != "false"
        )
    requirements = root.get("requirements")
    if requirements is not None:
        fields["requirements"] = tuple(_strings(requirements, split_commas=True))
    must = root.get("must_haves")
    if must is not None:
        fields["must_haves"] = _must_haves(doc, must, notes)
    return fields


def _extra(root: Node) -> dict[str, JsonValue]:
    extra: dict[str, JsonValue] = {}
    for key, node in root.value.items():
        if key in _MAPPED_KEYS:
            continue
        # phase and plan keep their text as written: `plan: 01` is "01", not 1.
        extra[key] = node.text() if key in ("phase", "plan") else to_json(node)
    return extra


def _strings(node: Node, *, split_commas: bool = False) -> list[str]:
    values: list[str] = []
    for item in node.items():
        text = (
            item.text().strip() if not isinstance(item.value, dict | list) else str(to_json(item))
        )
        parts = text.split(",") if split_commas else [text]
        values.extend(part.strip() for part in parts if part.strip())
    return values


def _must_haves(doc: Document, node: Node, notes: Notes) -> MustHaves:
    truths = []
    for item in (node.get("truths") or Node([], node.line)).items():
        value = to_json(item)
        if isinstance(value, dict):  # `- Foo: bar` unquoted: YAML made it a mapping
            value = "; ".join(f"{k}: {v}" for k, v in value.items())
        if str(value).strip():
            truths.append(str(value).strip())
    artifacts = []
    for item in (node.get("artifacts") or Node([], node.line)).items():
        artifact = _artifact(doc, item, notes)
        if artifact is not None:
            artifacts.append(artifact)
    links = []
    for item in (node.get("key_links") or Node([], node.line)).items():
        link = _key_link(doc, item, notes)
        if link is not None:
            links.append(link)
    return MustHaves(truths=tuple(truths), artifacts=tuple(artifacts), key_links=tuple(links))


def _opt(item: Node, key: str) -> str | None:
    child = item.get(key)
    return None if child is None or child.value is None else child.text()


def _artifact(doc: Document, item: Node, notes: Notes) -> Artifact | None:
    if not isinstance(item.value, dict):
        path = item.text().strip()
        return Artifact(path=path, source=doc.ref(item.line - 1)) if path else None
    found = _opt(item, "path")
    if not found:
        notes.warn(
            "artifact-without-path",
            "must_haves artifact without `path`; skipped",
            doc.ref(item.line - 1),
        )
        return None
    lines = item.get("min_lines")
    exports = item.get("exports")
    contains = item.get("contains")
    if contains is not None and contains.value is None:
        contains = None
    return Artifact(
        path=found,
        provides=_opt(item, "provides"),
        min_lines=lines.value
        if lines and isinstance(lines.value, int) and not isinstance(lines.value, bool)
        else None,
        contains="\n".join(_strings(contains)) if contains else None,
        exports=tuple(_strings(exports, split_commas=True)) if exports else (),
        source=doc.ref(item.line - 1),
    )


def _key_link(doc: Document, item: Node, notes: Notes) -> KeyLink | None:
    if not isinstance(item.value, dict) or not (_opt(item, "from") or _opt(item, "to")):
        notes.warn(
            "key-link-incomplete",
            "must_haves key_link without `from`/`to`; skipped",
            doc.ref(item.line - 1),
        )
        return None
    return KeyLink(
        from_=_opt(item, "from") or "",
        to=_opt(item, "to") or "",
        via=_opt(item, "via"),
        pattern=_opt(item, "pattern"),
        source=doc.ref(item.line - 1),
    )


# ---------------------------------------------------------------- template body


def _template_body(
    doc: Document, tags: TagIndex, sections: dict[str, Element], body_start: int, notes: Notes
) -> dict[str, Any]:
    holder = sections.get("tasks")
    lo, hi = (holder.inner_start, holder.inner_end) if holder else (body_start, len(doc.lines))
    task_elements = tags.elements(frozenset({"task"}), lo, hi)
    for element in (holder, *task_elements):
        if element is not None and not element.closed:
            notes.warn(
                "unclosed-tag",
                f"<{element.name}> is never closed; read up to line {element.end + 1}",
                doc.ref(element.start),
            )
    fields: dict[str, Any] = {
        "tasks": tuple(_task(doc, tags, el, n, notes) for n, el in enumerate(task_elements, 1))
    }
    if "objective" in sections:
        fields["objective"] = sections["objective"].text
        fields["name"] = _first_sentence(sections["objective"].text)
    if "verification" in sections:
        fields["verification"] = _verify(doc, tags, sections["verification"])
    if "success_criteria" in sections:
        fields["success_criteria"] = _criteria(doc, sections["success_criteria"])
    if "acceptance_criteria" in sections:
        fields["acceptance_criteria"] = _ac_items(doc, sections["acceptance_criteria"])
    if "boundaries" in sections:
        fields["boundaries"] = _lines(doc, sections["boundaries"])
    return fields


def _task(doc: Document, tags: TagIndex, el: Element, number: int, notes: Notes) -> Task:
    parts: dict[str, Element] = {}
    if el.start == el.end:
        found = _inline_parts(el)
    else:
        found = tags.elements(_TASK_PARTS, el.inner_start, el.inner_end)
    for part in found:
        parts.setdefault(part.name, part)
        if not part.closed:
            notes.warn(
                "unclosed-tag",
                f"<{part.name}> is never closed; read up to line {part.end + 1}",
                doc.ref(part.start),
            )
    kind = el.attrs.get("type", "").strip()
    if not kind:
        notes.warn(
            "task-without-type", f"task {number} has no type; taken as `auto`", doc.ref(el.start)
        )
        kind = "auto"
    name = " ".join(parts["name"].text.split()) if "name" in parts else ""
    name = name or " ".join((el.attrs.get("title") or el.attrs.get("name") or "").split())
    if not name:
        name = f"Task {number} ({kind})"
        notes.warn(
            "task-without-name", f"task {number} has no <name>; called {name!r}", doc.ref(el.start)
        )
    extra: dict[str, JsonValue] = {k: v for k, v in el.attrs.items() if k != "type"}
    for key in ("what-built", "how-to-verify", "resume-signal", "options", "decision", "context"):
        if key in parts:
            extra[key] = parts[key].text
    return Task(
        id=str(number),
        name=name,
        type=kind,
        files=tuple(split_paths(parts["files"].text)) if "files" in parts else (),
        read_first=tuple(split_paths(parts["read_first"].text)) if "read_first" in parts else (),
        action=parts["action"].text if "action" in parts else "",
        behavior=parts["behavior"].text if "behavior" in parts else "",
        verify=_verify(doc, tags, parts["verify"]) if "verify" in parts else Verify(),
        done=parts["done"].text if "done" in parts else "",
        acceptance_criteria=_criteria(doc, parts["acceptance_criteria"])
        if "acceptance_criteria" in parts
        else (),
        source=doc.ref(el.start),
        extra=extra,
    )


def _inline_parts(el: Element) -> list[Element]:
    """Children of a one-line `<task ...><name>...</name>...</task>`."""
    return [
        Element(m.group(1), {}, el.start, el.start, el.start, el.start, m.group(2).strip(), True)
        for m in _INLINE_PART.finditer(el.text)
        if m.group(1) in _TASK_PARTS
    ]


def _verify(doc: Document, tags: TagIndex, el: Element) -> Verify:
    commands: list[Check] = []
    if el.start == el.end:
        commands = [
            Check(run=m.group(1).strip(), source=doc.ref(el.start))
            for m in _AUTOMATED.finditer(el.text)
        ]
    else:
        for auto in tags.elements(frozenset({"automated"}), el.inner_start, el.inner_end):
            if auto.text.strip():
                commands.append(Check(run=auto.text.strip(), source=doc.ref(auto.start)))
    text = re.sub(r"</?automated>", "", el.text, flags=re.I).strip()
    return Verify(text=text, commands=tuple(commands))


def _criteria(doc: Document, el: Element) -> tuple[AcceptanceCriterion, ...]:
    if el.start != el.end:
        items = list_items(doc, el.inner_start, el.inner_end)
        if items:
            top = min(item.indent for item in items)
            return tuple(
                AcceptanceCriterion(text=item.text, source=doc.ref(item.index))
                for item in items
                if item.indent == top
            )
    return (AcceptanceCriterion(text=el.text, source=doc.ref(el.start)),) if el.text else ()


def _ac_items(doc: Document, el: Element) -> tuple[AcceptanceCriterion, ...]:
    """PAUL's `## AC-N: title` items, each with its Given/When/Then block."""
    heads = [h for h in headings(doc, el.inner_start, el.inner_end) if _AC_HEADING.match(h.text)]
    if not heads:
        return _criteria(doc, el)
    found = []
    for k, head in enumerate(heads):
        end = heads[k + 1].index if k + 1 < len(heads) else el.inner_end
        match = _AC_HEADING.match(head.text)
        assert match is not None
        body = doc.text(head.index + 1, end).strip()
        text = f"{match.group(2).strip()}\n{body}".strip()
        found.append(
            AcceptanceCriterion(id=match.group(1).upper(), text=text, source=doc.ref(head.index))
        )
    return tuple(found)


def _lines(doc: Document, el: Element) -> tuple[str, ...]:
    items = list_items(doc, el.inner_start, el.inner_end) if el.start != el.end else []
    if items:
        return tuple(item.text for item in items)
    return tuple(
        line.strip()
        for line in el.text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )


def _first_sentence(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped and not line.lstrip().startswith("#") and not stripped.endswith(":"):
            return stripped[:NAME_LIMIT]
    return ""
