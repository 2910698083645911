"""Every real plan in ../shared/corpus/plans imports with what its README says it holds.

Table-driven from the corpus README, read at run time: each row names a file, its kind and
"what a correct importer must find" (task counts, names, types, waves, depends_on, must-have
counts, files, requirements, strategies, steps, ...). Nothing here is copied from the corpus;
when the README gains rows (more repositories), they are checked too.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath

import pytest

from mergegate.plans import ImportResult, Plan, Task, Unit, load_plan
from mergegate.plans._document import read_document
from mergegate.plans._gsd_roadmap import read_roadmap

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "plans"


@dataclass(frozen=True)
class Row:
    path: str
    kind: str
    expect: str

    @property
    def family(self) -> str:
        return self.path.split("/", 1)[0]


def _rows() -> list[Row]:
    readme = CORPUS / "README.md"
    if not readme.is_file():
        return []
    rows = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) > 7 and cells[1] and "/" in cells[1] and cells[1] != "path":
            rows.append(Row(cells[1], cells[5], cells[6]))
    return rows


ROWS = _rows()


def _ids(kind: str) -> list[Row]:
    return [row for row in ROWS if row.kind == kind]


# ---------------------------------------------------------------- importing (cached)


def _root_of(row: Row) -> tuple[Path, str | None]:
    """What the before-stop hook imports for a row: the .planning/.paul root, or the file."""
    parts = PurePosixPath(row.path).parts
    index = next((k for k, part in enumerate(parts) if part in (".planning", ".paul")), None)
    if row.family == "gsd" and index is not None:
        return CORPUS.joinpath(*parts[: index + 1]), "/".join(parts[index + 1 :])
    return CORPUS / row.path, None


@cache
def _import(root: Path) -> ImportResult:
    return load_plan(root)


def _gsd_unit(row: Row) -> Unit:
    root, inner = _root_of(row)
    plan = _import(root).plan
    found = [u for _, u in plan.units() if u.source is not None and u.source.file == inner]
    assert len(found) == 1, f"{row.path}: {len(found)} units read from this file"
    return found[0]


def _plan_for(row: Row) -> Plan:
    return _import(_root_of(row)[0]).plan


# ---------------------------------------------------------------- README field parsers


def _field(expect: str, name: str) -> str | None:
    match = re.search(rf"(?:^|[;(] ?|\s){re.escape(name)}=([^;]*)", expect)
    return match.group(1).strip() if match else None


def _names(expect: str) -> list[str | None]:
    match = re.search(r'first names: ((?:"[^"]*"|\([^)]*\))(?: / (?:"[^"]*"|\([^)]*\)))*)', expect)
    if not match:
        return []
    return [
        None if part.startswith("(") else part[1:-1]
        for part in re.findall(r'"[^"]*"|\([^)]*\)', match.group(1))
    ]


def _list(value: str) -> list[str]:
    inner = value.strip().strip("[]")
    return [item.strip().strip('"') for item in inner.split(",") if item.strip()]


def _ratio(expect: str, label: str) -> tuple[int, int] | None:
    match = re.search(rf"{re.escape(label)} (?:in )?(\d+)/(\d+)", expect)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _count(expect: str, label: str) -> int | None:
    match = re.search(rf"{re.escape(label)}[ =]+(\d+)", expect)
    return int(match.group(1)) if match else None


def _check_names(tasks: tuple[Task, ...], expect: str) -> None:
    for task, name in zip(tasks, _names(expect), strict=False):
        if name is None:  # "(no <name>; checkpoint:...)": the importer names it, and says so
            assert task.is_checkpoint
        else:
            assert task.name == name


# ---------------------------------------------------------------- GSD plans


@pytest.mark.parametrize("row", [r for r in _ids("PLAN") if r.family == "gsd"], ids=str)
def test_gsd_plan_row(row: Row, shared_dir: Path) -> None:
    unit = _gsd_unit(row)
    expect = row.expect
    tasks = int(_field(expect, "tasks").split()[0])  # type: ignore[union-attr]
    assert len(unit.tasks) == tasks
    types = re.search(r"tasks=\d+ \(([^)]*×[^)]*)\)", expect)
    if types:
        wanted = {k: int(v) for k, v in re.findall(r"([\w:-]+)×(\d+)", types.group(1))}
        assert Counter(t.type for t in unit.tasks) == wanted
    _check_names(unit.tasks, expect)
    _check_frontmatter(unit, expect)
    _check_task_parts(unit, expect)
    paul = re.search(r"PAUL plan-level AC count=(\d+), boundaries=(yes|no)", expect)
    if paul:
        assert len(unit.acceptance_criteria) == int(paul.group(1))
        assert bool(unit.boundaries) == (paul.group(2) == "yes")
    if "WAVE CONFLICT" in expect:
        warnings = _import(_root_of(row)[0]).warnings
        assert any(w.code == "wave-conflict" and w.source == unit.source for w in warnings)


def _check_frontmatter(unit: Unit, expect: str) -> None:
    plan = _field(expect, "plan")
    if plan:
        assert unit.id.endswith("-" + plan.strip('"'))
        if "NO frontmatter" not in expect:
            assert unit.extra.get("plan") == plan.strip('"')
    wave = _field(expect, "wave")
    if wave is not None:
        assert unit.wave == (None if wave == "absent" else int(wave))
    depends = _field(expect, "depends_on")
    if depends is not None:
        assert list(unit.depends_on) == ([] if depends == "absent" else _list(depends))
    must = re.search(r"must_haves truths/artifacts/key_links=(\d+)/(\d+)/(\d+)", expect)
    if must:
        counts = tuple(int(n) for n in must.groups())
        mh = unit.must_haves
        assert (len(mh.truths), len(mh.artifacts), len(mh.key_links)) == counts
    elif _field(expect, "must_haves") == "absent":
        assert unit.must_haves.empty
    files = _field(expect, "files_modified")
    if files is not None:
        assert len(unit.files) == (0 if files == "absent" else int(files))
    requirements = _field(expect, "requirements")
    if requirements is not None:
        wanted = [] if requirements == "absent" else _list(requirements)
        assert list(unit.requirements) == wanted


def _check_task_parts(unit: Unit, expect: str) -> None:
    checks = {
        "<files>": lambda t: bool(t.files),
        "<verify>": lambda t: bool(t.verify.text or t.verify.commands),
        "<done>": lambda t: bool(t.done),
        "<acceptance_criteria>": lambda t: bool(t.acceptance_criteria),
    }
    for label, has in checks.items():
        ratio = _ratio(expect, label)
        if ratio is not None:
            assert (sum(map(has, unit.tasks)), len(unit.tasks)) == ratio, label
    # The README counts <read_first> tags, empty ones (`<read_first></read_first>`) included;
    # an empty list reads the same as no list, so only an upper bound can be checked here.
    ratio = _ratio(expect, "<read_first>")
    if ratio is not None:
        assert sum(bool(t.read_first) for t in unit.tasks) <= ratio[0]
        assert ratio[1] == len(unit.tasks)


@pytest.mark.parametrize("row", _ids("ROADMAP"), ids=str)
def test_roadmap_row(row: Row, shared_dir: Path) -> None:
    roadmap = read_roadmap(read_document(shared_dir / "corpus" / "plans" / row.path, row.path))
    match = re.search(
        r"phase detail headings=(\d+) \(first \[([^\]]+)\], last \[([^\]]+)\]\); "
        r"`\*\*Success Criteria\*\*` blocks=(\d+)",
        row.expect,
    )
    assert match, row.expect
    count, first, last, criteria = match.groups()
    assert len(roadmap.phases) == int(count)
    assert (roadmap.phases[0].id, roadmap.phases[-1].id) == (first, last)
    assert sum(p.has_criteria_label for p in roadmap.phases) == int(criteria)
    with_label = [p for p in roadmap.phases if p.has_criteria_label]
    assert all(p.success_criteria for p in with_label)


@pytest.mark.parametrize("row", _ids("SUMMARY"), ids=str)
def test_summary_marks_its_plan_completed(row: Row, shared_dir: Path) -> None:
    root, inner = _root_of(row)
    assert inner is not None
    plan_file = inner.removesuffix("SUMMARY.md") + "PLAN.md"
    units = [u for _, u in _import(root).plan.units() if u.source and u.source.file == plan_file]
    assert [u.completed for u in units] == [True]


@pytest.mark.parametrize("row", _ids("VERIFICATION"), ids=str)
def test_verification_status(row: Row, shared_dir: Path) -> None:
    root, inner = _root_of(row)
    assert inner is not None
    directory = inner.rsplit("/", 1)[0]
    phases = [p for p in _import(root).plan.phases if p.directory == directory]
    status = _field(row.expect, "status")
    assert [p.verification_status for p in phases] == [status]


def test_plans_without_summary_are_not_completed(shared_dir: Path) -> None:
    summaries = {r.path.removesuffix("SUMMARY.md") for r in _ids("SUMMARY")}
    pending = [r for r in _ids("PLAN") if r.family == "gsd"]
    for row in pending:
        unit = _gsd_unit(row)
        assert unit.completed == (row.path.removesuffix("PLAN.md") in summaries), row.path


def test_ticked_checklist_is_no_evidence(shared_dir: Path) -> None:
    rows = [r for r in _ids("PLAN") if "all ticked" in r.expect]
    assert rows
    for row in rows:
        unit = _gsd_unit(row)
        warnings = _import(_root_of(row)[0]).warnings
        assert any(w.code == "ticked-checklist" for w in warnings)
        assert all(not t.done and not t.verify.commands for t in unit.tasks)


# ---------------------------------------------------------------- spectacular


_PHASES = re.compile(r"phases=(\d+): (.*?); tasks=")
_PHASE = re.compile(r"^(\S+) (.+?) \[([^\]]+)\] tasks\(([^)]*)\)$")


@pytest.mark.parametrize(
    "row",
    [r for r in ROWS if r.family == "spectacular" and r.kind in ("PLAN", "PLAN-part")],
    ids=str,
)
def test_spectacular_row(row: Row, shared_dir: Path) -> None:
    plan = _plan_for(row)
    expect = row.expect
    declared = _PHASES.search(expect)
    assert declared, expect
    phases = [_PHASE.match(part) for part in declared.group(2).split("; ")]
    assert len(plan.phases) == int(declared.group(1)) == len(phases)
    for phase, match in zip(plan.phases, phases, strict=True):
        assert match is not None
        pid, name, strategy, task_ids = match.groups()
        assert (phase.id, phase.name) == (pid, name.strip())
        assert [u.id for u in phase.units] == _list(task_ids)
        word = strategy.split()[0].lower()
        if word in ("parallel", "sequential"):
            assert phase.extra["strategy"] == word
            waves = {u.wave for u in phase.units}
            assert waves == ({1} if word == "parallel" else set(range(1, len(phase.units) + 1)))
    tasks = [task for _, task in plan.tasks()]
    assert len(tasks) == int(_field(expect, "tasks").split()[0])  # type: ignore[union-attr]
    _check_names(tuple(tasks), expect)
    files = _count(expect, "Files blocks")
    if files is not None:
        assert sum(bool(t.files) for t in tasks) == min(files, len(tasks))
    criteria = _count(expect, "Acceptance Criteria blocks")
    if criteria is not None:
        assert sum(bool(t.acceptance_criteria) for t in tasks) == criteria
    total = re.search(r"declared Total Tasks=(\d+)(.*)", expect)
    warnings = _import(_root_of(row)[0]).warnings
    mismatch = any(w.code == "declared-total-mismatch" for w in warnings)
    assert mismatch == bool(total and "MISMATCH" in total.group(2))


def test_split_plan_imports_as_one(shared_dir: Path) -> None:
    index = next(r for r in ROWS if r.kind == "PLAN-index")
    directory = CORPUS / index.path.rsplit("/", 1)[0]
    plan = load_plan(directory).plan
    declared = re.search(r"declares (\d+) phases / (\d+) tasks", index.expect)
    assert declared
    assert len(plan.phases) == int(declared.group(1))
    assert sum(1 for _ in plan.tasks()) == int(declared.group(2))
    assert plan.title  # from the README index
    same = load_plan(directory.parent).plan  # the spec directory holding plan/: paths differ
    assert [[u.id for u in p.units] for p in same.phases] == [
        [u.id for u in p.units] for p in plan.phases
    ]
    assert all(t.source and t.source.file.startswith("plan/plan-phase") for _, t in same.tasks())


# ---------------------------------------------------------------- superpowers


# The README's step counts come from a CommonMark reading, under which an example block that
# holds its own ``` blocks closes early and its closing ``` opens a block swallowing the steps
# after it. These are the steps that reading lost (line numbers in the file): each is a real
# step of its task (`**Step 2: Verify file created**` with its Run/Expected, `**Step 3:
# Commit**`, ...), kept by the nesting-aware fence pairing (mergegate.plans._document), and
# the `Expected:` lines among them.
_SWALLOWED_STEPS = {
    "2025-11-22-opencode-support-implementation.md": (885, 890),
    "2026-01-14-installable-proxy-implementation.md": (1037,),
}
_SWALLOWED_EXPECTED = {"2025-11-22-opencode-support-implementation.md": (888,)}


@pytest.mark.parametrize("row", [r for r in _ids("PLAN") if r.family == "superpowers"], ids=str)
def test_superpowers_row(row: Row, shared_dir: Path) -> None:
    plan = _plan_for(row)
    expect = row.expect
    assert [len(p.units) for p in plan.phases] == [1]
    tasks = plan.phases[0].units[0].tasks
    assert len(tasks) == int(_field(expect, "tasks").split()[0])  # type: ignore[union-attr]
    _check_names(tasks, expect)
    blocks = _count(expect, "**Files:** blocks")
    assert blocks is not None
    assert sum(bool(t.file_changes) for t in tasks) >= blocks  # `**File:**` (singular) too
    entries = _count(expect, "Create/Modify/Test/... entries")
    verbs = ("create", "modify", "test", "move", "delete")
    assert sum(c.action in verbs for t in tasks for c in t.file_changes) == entries
    steps = re.search(
        r"bold `\*\*Step N\*\*`=(\d+), checkbox `- \[ \] \*\*Step N\*\*`=(\d+), "
        r"heading steps=(\d+)",
        expect,
    )
    assert steps
    found = [s for t in tasks if t.steps and t.steps[0].title for s in t.steps]
    swallowed = _SWALLOWED_STEPS.get(PurePosixPath(row.path).name, ())
    assert len(found) == sum(map(int, steps.groups())) + len(swallowed)
    assert {s.source.line for s in found if s.source} >= set(swallowed)
    expected = _count(expect, "`Expected:` lines")
    assert expected is not None
    expected += len(_SWALLOWED_EXPECTED.get(PurePosixPath(row.path).name, ()))
    checks = [c for t in tasks for s in t.steps for c in s.checks]
    assert len(checks) <= expected  # an `Expected:` without a `Run:` is no check
    assert all(c.run and c.expect for c in checks)
    assert all(not c.expect_failure for t in tasks for c in t.verify.commands)


def test_every_plan_row_imports_without_error(shared_dir: Path) -> None:
    rows = [r for r in ROWS if r.kind in ("PLAN", "PLAN-part")]
    assert len(rows) >= 40
    for row in rows:
        assert sum(1 for _ in _plan_for(row).tasks()) > 0, row.path
