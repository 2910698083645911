"""A GSD-family planning tree (`.planning/`, PAUL's `.paul/`) → one `Plan`.

Every directory under the root that holds `*-PLAN.md` files is a phase (`phases/NN-slug/`,
archived `milestones/v1.0-phases/NN-slug/`, parallel-milestone layouts, `quick/` tasks); its id
is the directory name before the first dash. Phases are matched to roadmap sections by id —
the current `ROADMAP.md` first, then archived `*-ROADMAP.md` files, preferring the section
whose name matches the directory's slug — and sorted numerically (opaque ids keep roadmap
order). Phases the current roadmap details but no directory holds yet appear without units.

A unit is `completed` when GSD's own rule says so: a `<plan-id>-SUMMARY.md` sits beside its
`<plan-id>-PLAN.md`. `depends_on` entries are resolved to unit ids (`01` means plan 01 of the
same phase); entries that name no unit are kept as written for `plan check` to report.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mergegate.plans._document import Document, read_document
from mergegate.plans._errors import Notes, PlanError
from mergegate.plans._frontmatter import read_plan_frontmatter
from mergegate.plans._gsd_plan import PlanFile, PlanName, parse_plan_name, read_gsd_plan
from mergegate.plans._gsd_roadmap import Roadmap, RoadmapPhase, read_roadmap
from mergegate.plans._ids import normal_id, slug
from mergegate.plans._model import Phase, Plan, PlanFormat, Unit

__all__ = ["MAX_TREE_FILES", "import_gsd", "import_gsd_file", "phase_token", "planning_root"]

MAX_TREE_FILES = 20_000
"""Directory entries looked at before a tree is refused as not a planning directory."""
MAX_TREE_BYTES = 256 * 1024 * 1024
"""Bytes of plan and roadmap files read from one tree, all files together."""
_MAX_DEPTH = 8
_ROOT_NAMES = (".planning", ".paul")
_SKIP_DIRS = frozenset({"research", "codebase", "debug", "todos", "node_modules", "intel"})
_DEPENDENCY = re.compile(r"^(?P<phase>[^-\s]+)-(?P<plan>\d+)(?:-[\w-]*)?$")
# `78-pbr-maps-01-v1-20-01`: a phase directory's name with the plan number after it.
_SLUGGED_DEPENDENCY = re.compile(r"^(?P<phase>\d{1,9}(?:\.\d{1,9})*)-[\w.-]*-(?P<plan>\d{1,9})$")
_QUICK_TOKEN = re.compile(r"^\d{6}-[0-9a-z]{3}(?=-|$)|^\d+(?=-|$)", re.I)
_NUMERIC_TOKEN = re.compile(r"^\d+[A-Za-z]?(?:\.\d+)*(?=-|$)")
_CODE_TOKEN = re.compile(r"^[A-Za-z]{1,6}-\d+[A-Za-z]?(?:\.\d+)*(?=-|$)")
_CODE_PREFIX = re.compile(r"^[A-Za-z]{1,6}-(?=\d)")
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)")
_LEADING_NUMBER = re.compile(r"^\d{1,12}(?:\.\d{1,12}){0,7}")


def planning_root(path: Path) -> Path | None:
    """`path` itself when it is a planning directory, else the one it holds, else None."""
    if path.name in _ROOT_NAMES:
        return path
    for name in _ROOT_NAMES:
        if (path / name).is_dir():
            return path / name
    return None


class _Budget:
    """What is left of `MAX_TREE_BYTES` while one tree is read, and the repository it is in."""

    def __init__(self, root: Path | None) -> None:
        self.left = MAX_TREE_BYTES
        self.root = root

    def read(self, path: Path, rel: str) -> Document:
        try:
            self.left -= path.stat().st_size
        except OSError as exc:
            raise PlanError(f"cannot read: {exc.strerror or exc}", file=rel) from exc
        if self.left < 0:
            raise PlanError(f"the tree holds more than {MAX_TREE_BYTES} bytes of plans", file=rel)
        return read_document(path, rel, root=self.root)


@dataclass(frozen=True)
class _Dir:
    path: Path
    rel: str
    names: frozenset[str]


@dataclass
class _PhaseDraft:
    directory: _Dir
    prefix: str
    files: list[PlanFile]
    entry: RoadmapPhase | None
    status: str | None


def import_gsd(path: Path, notes: Notes, *, repository: Path | None = None) -> Plan:
    """Import the planning tree at (or held by) directory `path`; paths relative to `path`.

    With `repository`, every file and directory read must lie inside it once symlinks are
    resolved (`PlanError` otherwise).
    """
    root = planning_root(path) or path
    dirs = _walk(root, path, repository)
    budget = _Budget(repository)
    roadmaps = _roadmaps(dirs, budget, notes)
    current_rel = _join(root.relative_to(path).as_posix() if root != path else "", "ROADMAP.md")
    current = next((r for r in roadmaps if r.rel == current_rel), None)
    drafts = [_draft(d, root, roadmaps, notes, budget) for d in dirs if _plan_names(d)]
    if not drafts and (current is None or not current.phases):
        raise PlanError("no *-PLAN.md files and no roadmap phases found", file=_rel(root, path))
    phases = _phases(drafts, current, roadmaps, dirs)
    title = current.title if current and current.title else path.resolve().name
    source = current.phases[0].source if current and current.phases else None
    return Plan(format=PlanFormat.GSD, title=title, phases=tuple(phases), source=source)


def import_gsd_file(path: Path, notes: Notes, *, repository: Path | None = None) -> Plan:
    """Import one `*-PLAN.md` file as a plan of one phase (its directory) and one unit."""
    directory = path.parent
    try:
        names = frozenset(e.name for e in os.scandir(directory) if e.name.endswith(".md"))
    except OSError as exc:
        raise PlanError(f"cannot list: {exc.strerror or exc}", file=path.name) from exc
    budget = _Budget(repository)
    draft = _draft(_Dir(directory, "", names), directory, [], notes, budget, only=path.name)
    phases = _phases([draft], None, [])
    return Plan(format=PlanFormat.GSD, title=path.name, phases=tuple(phases), source=None)


def _rel(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix() if path != base else path.name


def _walk(root: Path, base: Path, repository: Path | None) -> list[_Dir]:
    found: list[_Dir] = []
    stack = [(root, 0)]
    seen = 0
    visited: set[str] = set()  # real paths of the directories listed: a symlink loop ends here
    while stack:
        directory, depth = stack.pop()
        real = os.path.realpath(directory)
        if real in visited:
            continue
        visited.add(real)
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise PlanError(
                f"cannot list: {exc.strerror or exc}", file=_rel(directory, base)
            ) from exc
        seen += len(entries)
        if seen > MAX_TREE_FILES:
            raise PlanError(f"more than {MAX_TREE_FILES} entries; not read", file=_rel(root, base))
        names = []
        for entry in entries:
            kind = _entry_kind(entry, base, repository)
            if kind == "dir":
                if (
                    depth < _MAX_DEPTH
                    and not entry.name.startswith(".")
                    and entry.name not in _SKIP_DIRS
                ):
                    stack.append((Path(entry.path), depth + 1))
            elif kind == "file" and entry.name.endswith(".md"):
                names.append(entry.name)
        rel = directory.relative_to(base).as_posix() if directory != base else ""
        found.append(_Dir(directory, rel, frozenset(names)))
    return sorted(found, key=lambda d: d.rel)


def _entry_kind(entry: os.DirEntry[str], base: Path, repository: Path | None) -> str | None:
    """`dir`, `file` or None (anything else, or a dangling link) for one directory entry.

    A symlink counts as what it points to when that lies inside `repository`; one that
    points out of it, among the entries a plan is read from, is a `PlanError`.
    """
    try:
        if not entry.is_symlink():
            if entry.is_dir(follow_symlinks=False):
                return "dir"
            return "file" if entry.is_file(follow_symlinks=False) else None
        is_dir = entry.is_dir()
        is_file = not is_dir and entry.is_file()
    except OSError:
        return None
    wanted = (is_dir and not entry.name.startswith(".") and entry.name not in _SKIP_DIRS) or (
        is_file and entry.name.endswith(".md")
    )
    if not wanted:
        return None
    if repository is not None:
        target = Path(os.path.realpath(entry.path))
        inside = Path(os.path.realpath(repository))
        if target != inside and inside not in target.parents:
            raise PlanError(
                f"a symlink to {target}, outside the repository ({inside}): a plan never "
                "follows a symlink out of it",
                file=_rel(Path(entry.path), base),
            )
    return "dir" if is_dir else "file"


def _plan_names(directory: _Dir) -> list[str]:
    return sorted(n for n in directory.names if n.endswith("-PLAN.md") or n == "PLAN.md")


def _roadmaps(dirs: list[_Dir], budget: _Budget, notes: Notes) -> list[Roadmap]:
    found = []
    for directory in dirs:
        for name in sorted(directory.names):
            if "ROADMAP" in name.upper():  # ROADMAP.md, v1.0-ROADMAP.md, archive spellings
                doc = budget.read(directory.path / name, _join(directory.rel, name))
                found.append(read_roadmap(doc, notes))
    return found


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _draft(
    directory: _Dir,
    root: Path,
    roadmaps: list[Roadmap],
    notes: Notes,
    budget: _Budget,
    *,
    only: str | None = None,
) -> _PhaseDraft:
    at_root = directory.path == root and root.name in _ROOT_NAMES
    token = None if at_root else phase_token(directory.path.name, roadmaps)
    quick = _QUICK_TOKEN.match(directory.path.name) if _is_quick(directory.rel) else None
    if quick:  # GSD's quick ids: `3`, `001`, or date and code (`260423-ics`)
        token = quick.group()
    files = []
    for name in [only] if only else _plan_names(directory):
        doc = budget.read(directory.path / name, _join(directory.rel, name))
        _warn_unclosed_fences(doc, notes)
        files.append(read_gsd_plan(doc, parse_plan_name(name, phase=token), notes))
    prefix = token if token is not None else files[0].name.phase or "0"
    if _is_quick(directory.rel):
        # GSD's quick task 3 is no phase 3: an id of its own, so that neither the ids nor
        # `depends_on: [03-01]` can mistake one for the other.
        prefix = f"quick-{prefix}"
        files = [_in_quick(plan, prefix) for plan in files]
    entry = _roadmap_entry(directory, prefix, roadmaps)
    return _PhaseDraft(directory, prefix, files, entry, _verification(directory, notes, budget))


def _in_quick(plan: PlanFile, prefix: str) -> PlanFile:
    name = PlanName(prefix, plan.name.plan, plan.name.stem)
    return PlanFile(unit=plan.unit, name=name, plan_number=plan.plan_number)


def phase_token(dir_name: str, roadmaps: Sequence[Roadmap] = ()) -> str:
    """The phase id a GSD phase directory's name starts with.

    A roadmap id the name starts with wins (`CV-RENDER-pipeline` → `CV-RENDER` when the
    roadmap has `Phase CV-RENDER:`), the longest one first; then GSD's own forms: a number
    (`01`, `1009A`, `999.6`, `12.3.1`), a project code and number (`CK-01`); else the name up
    to its first dash.
    """
    lowered = dir_name.lower()
    known = [
        entry.id
        for roadmap in roadmaps
        for entry in roadmap.phases
        if not entry.id.isdigit()
        and (lowered == entry.id.lower() or lowered.startswith(entry.id.lower() + "-"))
    ]
    if known:
        return dir_name[: len(max(known, key=len))]
    for pattern in (_NUMERIC_TOKEN, _CODE_TOKEN):
        match = pattern.match(dir_name)
        if match:
            return match.group()
    return dir_name.split("-", 1)[0]


def _warn_unclosed_fences(doc: Document, notes: Notes) -> None:
    for index in doc.unclosed_fences:
        notes.warn("unclosed-fence", "code fence is never closed; read as text", doc.ref(index))


def _roadmap_entry(directory: _Dir, prefix: str, roadmaps: list[Roadmap]) -> RoadmapPhase | None:
    if _is_quick(directory.rel):
        return None  # GSD quick task N is no roadmap phase N
    # `CK-01` (a GSD project code before the number) is also phase `1` of the roadmap.
    wanted = {normal_id(prefix), normal_id(_CODE_PREFIX.sub("", prefix))}
    dir_slug = slug(directory.path.name.split("-", 1)[1]) if "-" in directory.path.name else ""
    best: tuple[tuple[int, int, int], RoadmapPhase] | None = None
    for rank, roadmap in enumerate(roadmaps):
        milestone = roadmap.rel.rsplit("/", 1)[-1].removesuffix("ROADMAP.md").rstrip("-")
        for entry in roadmap.phases:
            if normal_id(entry.id) not in wanted:
                continue
            name_slug = slug(entry.name)
            score = (
                2
                if name_slug == dir_slug
                else int(bool(name_slug) and dir_slug.startswith(name_slug)),
                int(bool(milestone) and f"{milestone}-phases" in directory.rel),
                int(not milestone) * 2 - rank,
            )
            if best is None or score > best[0]:
                best = (score, entry)
    return best[1] if best else None


def _verification(directory: _Dir, notes: Notes, budget: _Budget) -> str | None:
    names = sorted(n for n in directory.names if n.endswith("VERIFICATION.md"))
    if not names:
        return None
    doc = budget.read(directory.path / names[0], _join(directory.rel, names[0]))
    try:
        front = read_plan_frontmatter(doc, Notes())
    except PlanError as exc:
        notes.warn(
            "unreadable-verification",
            f"verification report not read: {exc.reason}",
            doc.ref(exc.line - 1),
        )
        return "unknown"
    status = front.root.get("status") if front else None
    return status.text().strip() if status is not None and status.text().strip() else "unknown"


# ---------------------------------------------------------------- assembly


def _phases(
    drafts: list[_PhaseDraft],
    current: Roadmap | None,
    roadmaps: Sequence[Roadmap],
    dirs: Sequence[_Dir] = (),
) -> list[Phase]:
    ids = _phase_ids(drafts)
    units = _resolve_units(drafts, ids)
    ranks = _roadmap_ranks(roadmaps, current)
    items = [
        _Placed(_place(d.entry, ranks), d.prefix, d.directory.rel, _phase(d, ids[k], units[k]))
        for k, d in enumerate(drafts)
    ]
    known = {normal_id(d.prefix) for d in drafts}
    for entry in current.phases if current else ():
        if normal_id(entry.id) not in known:
            known.add(normal_id(entry.id))
            phase = _roadmap_phase(entry, _planned_dir(entry, dirs))
            items.append(_Placed(_place(entry, ranks), entry.id, "", phase))
    return [item.phase for item in _in_roadmap_order(items)]


@dataclass(frozen=True)
class _Placed:
    place: tuple[int, int] | None
    """(rank of the roadmap the phase's section is in, its position there); None: no section."""
    id: str
    rel: str
    phase: Phase


def _roadmap_ranks(roadmaps: Sequence[Roadmap], current: Roadmap | None) -> dict[str, int]:
    """Roadmap files in the order their phases run: archives by version, the current last."""
    archived = sorted((r.rel for r in roadmaps if r is not current), key=_version_key)
    ranks = {rel: rank for rank, rel in enumerate(archived)}
    if current is not None:
        ranks[current.rel] = len(archived)
    return ranks


def _version_key(rel: str) -> tuple[tuple[int, ...], str]:
    match = _VERSION.search(rel.rsplit("/", 1)[-1])
    numbers = tuple(int(p) for p in match.group(1).split(".")[:8]) if match else (1 << 30,)
    return numbers, rel


def _place(entry: RoadmapPhase | None, ranks: dict[str, int]) -> tuple[int, int] | None:
    if entry is None or entry.source.file not in ranks:
        return None
    return ranks[entry.source.file], entry.position


def _in_roadmap_order(items: list[_Placed]) -> list[_Placed]:
    """Phases with a roadmap section in the roadmaps' order (never re-sorted by id); the
    others by number, each before the first placed phase with a larger number, or last;
    GSD quick tasks after all phases."""
    placed = sorted((i for i in items if i.place is not None), key=lambda i: (i.place, i.rel))
    quick = sorted(
        (i for i in items if i.place is None and _is_quick(i.rel)),
        key=lambda i: (_number(i.id.removeprefix("quick-")) or (1 << 62,), i.rel),
    )
    loose = [i for i in items if i.place is None and not _is_quick(i.rel)]
    numbered = sorted(
        (i for i in loose if _number(i.id) is not None), key=lambda i: (_number(i.id), i.rel)
    )
    others = sorted((i for i in loose if _number(i.id) is None), key=lambda i: (i.id, i.rel))
    ordered: list[_Placed] = []
    k = 0
    for item in numbered:
        number = _number(item.id)
        assert number is not None
        while k < len(placed) and _not_after(placed[k], number):
            ordered.append(placed[k])
            k += 1
        ordered.append(item)
    return ordered + placed[k:] + others + quick


def _is_quick(rel: str) -> bool:
    """A GSD quick task's directory (`quick/3-fix-x`): ad-hoc work, no roadmap phase."""
    return "quick" in rel.split("/")[:-1]


def _not_after(item: _Placed, number: tuple[int, ...]) -> bool:
    own = _number(item.id)
    return own is None or own <= number


def _number(phase_id: str) -> tuple[int, ...] | None:
    """The leading dotted number of an id (`05.1` → (5, 1), `2A` → (2,)), None without one."""
    match = _LEADING_NUMBER.match(phase_id)
    return tuple(int(part) for part in match.group().split(".")) if match else None


def _phase_ids(drafts: list[_PhaseDraft]) -> list[str]:
    counts: dict[str, int] = {}
    for draft in drafts:
        counts[normal_id(draft.prefix)] = counts.get(normal_id(draft.prefix), 0) + 1
    ids = [d.prefix if counts[normal_id(d.prefix)] == 1 else d.directory.path.name for d in drafts]
    if len(set(ids)) != len(ids):  # the same directory name under two parents
        ids = [
            d.prefix if counts[normal_id(d.prefix)] == 1 else _qualified(d.directory.rel)
            for d in drafts
        ]
    return ids


def _qualified(rel: str) -> str:
    """An id naming a directory by its path, in the id alphabet: `/` becomes `.`."""
    return rel.replace("/", ".")


class _UnitIndex:
    """Unit ids by (phase, plan number) and by GSD stem, to resolve `depends_on` entries."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.by_key: dict[tuple[str, int], list[tuple[int, str]]] = {}
        self.by_stem: dict[str, str] = {}

    def add(self, unit_id: str, draft: int, phase: str, plan: PlanFile) -> None:
        self.ids.add(unit_id)
        self.by_stem.setdefault(plan.name.stem, unit_id)
        if plan.plan_number and plan.plan_number.isdigit() and len(plan.plan_number) < 12:
            self.by_key.setdefault((phase, int(plan.plan_number)), []).append((draft, unit_id))

    def resolve(self, raw: str, own_phase: str, own_draft: int, prefix: str = "") -> str:
        """The unit id `raw` names (`01` = plan 01 of the same phase, `06-01-PLAN.md` = unit
        06-01, `P01` = unit `<phase>-P01` of the same phase), or `raw` unchanged."""
        text = raw.strip().strip("\"'").strip().removesuffix("-PLAN.md")
        if prefix and f"{prefix}-{text}" in self.ids and text not in self.ids:
            return f"{prefix}-{text}"
        match = _DEPENDENCY.match(text) or _SLUGGED_DEPENDENCY.match(text)
        key = None
        if match:
            key = (normal_id(match.group("phase")), int(match.group("plan")))
        elif text.isdigit() and len(text) < 12:
            key = (own_phase, int(text))
        candidates = self.by_key.get(key, []) if key else []
        same = [unit for k, unit in candidates if k == own_draft]
        if same:  # a repeated phase number: the plan of one's own phase
            return same[0]
        if text in self.ids:
            return text
        if candidates:
            return candidates[0][1]
        return self.by_stem.get(text, text)


def _resolve_units(drafts: list[_PhaseDraft], ids: list[str]) -> list[list[Unit]]:
    index = _UnitIndex()
    names: list[list[str]] = []
    for k, draft in enumerate(drafts):
        row = []
        for plan in draft.files:
            unit_id = _unit_id(draft, plan)
            if unit_id in index.ids:  # repeated phase numbers: qualify by the phase
                qualifier = ids[k] if ids[k] != draft.prefix else _qualified(draft.directory.rel)
                unit_id = f"{qualifier}.{unit_id}"
            index.add(unit_id, k, normal_id(plan.name.phase or draft.prefix), plan)
            row.append(unit_id)
        names.append(row)
    resolved: list[list[Unit]] = []
    for k, draft in enumerate(drafts):
        row_units = []
        for unit_id, plan in zip(names[k], draft.files, strict=True):
            own = normal_id(plan.name.phase or draft.prefix)
            prefix = plan.name.phase or draft.prefix
            deps = tuple(index.resolve(raw, own, k, prefix) for raw in plan.unit.depends_on)
            update: dict[str, object] = {
                "id": unit_id,
                "depends_on": deps,
                "completed": _completed(draft, plan, unit_id),
            }
            description = draft.entry.plans.get(unit_id) if draft.entry else None
            if description:
                update["name"] = description
            row_units.append(plan.unit.model_copy(update=update))
        resolved.append(sorted(row_units, key=_unit_order))
    return resolved


def _unit_id(draft: _PhaseDraft, plan: PlanFile) -> str:
    if plan.plan_number is None:
        return draft.prefix if _is_quick(draft.directory.rel) else plan.name.stem or draft.prefix
    return f"{plan.name.phase or draft.prefix}-{plan.plan_number}"


def _unit_order(unit: Unit) -> tuple[int, str]:
    tail = unit.id.rsplit("-", 1)[-1]
    return (int(tail) if tail.isdigit() and len(tail) < 12 else 0, unit.id)


def _completed(draft: _PhaseDraft, plan: PlanFile, unit_id: str) -> bool:
    stem = plan.name.stem
    names = draft.directory.names
    # GSD writes `<plan id>-SUMMARY.md`; beside a short `02-PLAN.md` that is `01-02-SUMMARY.md`.
    return (f"{stem}-SUMMARY.md" if stem else "SUMMARY.md") in names or (
        f"{unit_id}-SUMMARY.md" in names
    )


def _phase(draft: _PhaseDraft, phase_id: str, units: list[Unit]) -> Phase:
    entry = draft.entry
    dir_name = draft.directory.path.name
    name = (
        entry.name
        if entry
        else (dir_name.split("-", 1)[1].replace("-", " ") if "-" in dir_name else dir_name)
    )
    return Phase(
        id=phase_id,
        name=name,
        goal=entry.goal if entry else "",
        success_criteria=entry.success_criteria if entry else (),
        requirements=entry.requirements if entry else (),
        units=tuple(units),
        directory=draft.directory.rel,
        verification_status=draft.status,
        source=entry.source if entry else (units[0].source if units else None),
        extra=dict(entry.extra) if entry else {},
    )


def _planned_dir(entry: RoadmapPhase, dirs: Sequence[_Dir]) -> str | None:
    """The directory of a phase that has no plans yet (only CONTEXT.md, say), if there is one."""
    wanted = normal_id(entry.id)
    found = [
        d.rel
        for d in dirs
        if d.rel.startswith(("phases/", ".planning/phases/", ".paul/phases/"))
        and normal_id(d.path.name.split("-", 1)[0]) == wanted
    ]
    return found[0] if len(found) == 1 else None


def _roadmap_phase(entry: RoadmapPhase, directory: str | None) -> Phase:
    return Phase(
        id=entry.id,
        name=entry.name,
        goal=entry.goal,
        success_criteria=entry.success_criteria,
        requirements=entry.requirements,
        directory=directory,
        source=entry.source,
        extra=dict(entry.extra),
    )
