"""`load_plan(PATH)`: find out which format PATH holds and import it.

Directories: a `.planning`/`.paul` directory or one holding it (GSD family); a split
spectacular plan (`plan-phaseN.md` files, or a spec directory whose `plan/` holds them); a
spectacular spec directory with `plan.md`; a GSD phase directory (`*-PLAN.md` files).
Files: a native plan (`.yaml`/`.yml` starting with `mergegate_plan:`), or a Markdown plan,
classified by several signals in the order the formats are checked:

1. GSD: the file is named `*-PLAN.md`/`PLAN.md`, or holds `<task type=...>` blocks;
2. spectacular: `**Strategy**:` labels under `Phase N:` headings, or a run id (`runId:`
   frontmatter, `> **Run ID:**`), or a `plan.md`/`plan-phaseN.md` with phase and task
   headings — a superpowers banner over a spectacular body is read as spectacular;
3. superpowers: `Task N:` headings.

Anything else is one `PlanError` naming the file. Every path in the result is relative to
PATH (a file's own name when PATH is a file).

The repository of PATH (`repository_of`: the nearest directory above it holding `.git`, else
PATH's own directory) is the boundary of every read: a file or directory that resolves
outside it — a symlink out of the tree — is a `PlanError`, never read or shown.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mergegate.plans._document import Document, read_document
from mergegate.plans._errors import Notes, PlanError
from mergegate.plans._gsd import import_gsd, import_gsd_file, planning_root
from mergegate.plans._markdown import headings, label_at
from mergegate.plans._model import ImportResult, Plan
from mergegate.plans._native import is_native, read_native
from mergegate.plans._order import wave_conflicts
from mergegate.plans._spectacular import PHASE_HEADING, import_spectacular
from mergegate.plans._superpowers import TASK_HEADING, import_superpowers

__all__ = ["load_plan", "repository_of"]

_PART = re.compile(r"^plan-phase(\d+)\.md$")
_GSD_TASK = re.compile(r"^[ \t]*<task[ \t>]")
_RUN_ID = re.compile(r"^(?:runId:|>[ \t]*\*\*Run ID:?\*\*)", re.I)


def load_plan(path: str | os.PathLike[str]) -> ImportResult:
    """Import the plan at `path` (file or directory) with the warnings collected on the way.

    Raises `PlanError` (exit 2) for a path that holds no known plan or a broken one, and for
    one that reaches outside its repository through a symlink.
    """
    target = Path(path)
    notes = Notes()
    repository = repository_of(target)
    if target.is_dir():
        plan = _directory(target, notes, repository)
    elif target.is_file():
        plan = _file(target, target.name, notes, repository)
    elif os.path.lexists(target):
        raise PlanError("not a regular file or a directory; not read as a plan", file=str(path))
    else:
        raise PlanError("no such file or directory", file=str(path))
    for phase in plan.phases:
        for issue in wave_conflicts(phase):
            notes.warn(issue.code, issue.message, issue.source)
    if plan.source is None:  # plan-level messages need a place to point at too
        first = next((p.source for p in plan.phases if p.source), None)
        first = first or next((u.source for _, u in plan.units() if u.source), None)
        plan = plan.model_copy(update={"source": first})
    return ImportResult(plan=plan, warnings=notes.issues)


def repository_of(path: Path) -> Path:
    """The work tree `path` lies in: the nearest directory at or above it holding `.git`, else
    the directory of `path` itself (the path as given, symlinks not resolved)."""
    start = Path(os.path.abspath(path))
    base = start if start.is_dir() else start.parent
    for directory in (base, *base.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return base


def _directory(path: Path, notes: Notes, repository: Path) -> Plan:
    if planning_root(path) is not None:
        return import_gsd(path, notes, repository=repository)
    parts = _parts(path)
    if parts:
        return _split(path, "", parts, notes, repository)
    if (path / "plan").is_dir() and _parts(path / "plan"):
        return _split(path / "plan", "plan/", _parts(path / "plan"), notes, repository)
    if (path / "plan.md").is_file():
        return _file(path / "plan.md", "plan.md", notes, repository)
    if any(name.endswith("-PLAN.md") or name == "PLAN.md" for name in _names(path)):
        return import_gsd(path, notes, repository=repository)
    raise PlanError(
        "no plan here: expected a .planning/.paul directory, a spectacular spec (plan.md or "
        "plan/plan-phaseN.md), a GSD phase directory (*-PLAN.md) or a plan file",
        file=path.name or str(path),
    )


def _names(path: Path) -> list[str]:
    try:
        return sorted(entry.name for entry in os.scandir(path) if entry.is_file())
    except OSError as exc:
        raise PlanError(f"cannot list: {exc.strerror or exc}", file=str(path)) from exc


def _parts(path: Path) -> list[str]:
    found = [(int(m.group(1)), name) for name in _names(path) if (m := _PART.match(name))]
    return [name for _, name in sorted(found)]


def _split(path: Path, prefix: str, parts: list[str], notes: Notes, repository: Path) -> Plan:
    docs = [read_document(path / name, prefix + name, root=repository) for name in parts]
    readme = path / "README.md"
    index = (
        read_document(readme, prefix + "README.md", root=repository) if readme.is_file() else None
    )
    return import_spectacular(docs, notes, index=index)


def _file(path: Path, rel: str, notes: Notes, repository: Path) -> Plan:
    doc = read_document(path, rel, root=repository)
    if path.suffix.lower() in (".yaml", ".yml"):
        if not is_native(doc):
            raise PlanError(
                "a YAML file that is not a mergegate plan (no `mergegate_plan:`)", file=rel
            )
        return read_native(doc)
    if path.suffix.lower() != ".md":
        raise PlanError(
            "not a plan: expected a Markdown (.md) or native (.yaml) plan file", file=rel
        )
    kind = classify(doc, path.name)
    if kind == "gsd":
        return import_gsd_file(path, notes, repository=repository)  # warns about its fences
    for index in doc.unclosed_fences:
        notes.warn("unclosed-fence", "code fence is never closed; read as text", doc.ref(index))
    if kind == "spectacular":
        return import_spectacular([doc], notes)
    if kind == "superpowers":
        return import_superpowers(doc, notes)
    raise PlanError(
        "not a recognised plan: no GSD <task> blocks, no spectacular `Phase N:` sections with "
        "a strategy, no superpowers `Task N:` sections",
        file=rel,
    )


def classify(doc: Document, name: str) -> str | None:
    """`gsd`, `spectacular`, `superpowers` or None for a Markdown file (see the module doc)."""
    live = [line for i, line in enumerate(doc.lines) if not doc.fenced[i]]
    if name.endswith("-PLAN.md") or name == "PLAN.md" or any(map(_GSD_TASK.match, live)):
        return "gsd"
    heads = headings(doc)
    phases = [h for h in heads if h.level <= 3 and PHASE_HEADING.match(h.text)]
    tasks = [h for h in heads if 2 <= h.level <= 4 and TASK_HEADING.match(h.text)]
    strategy = any(
        (label := label_at(doc, i)) is not None and label.name.lower() == "strategy"
        for i in range(len(doc.lines))
    )
    run_id = any(_RUN_ID.match(line) for line in live[:60])
    spectacular_name = name == "plan.md" or _PART.match(name) is not None
    if phases and (strategy or run_id or (spectacular_name and tasks)):
        return "spectacular"
    if tasks:
        return "superpowers"
    return None
