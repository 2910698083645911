"""`plan check`, and the one validation `plan show`, `run` and `verify` refuse a plan by.

Errors (the plan cannot run as written) — `plan_errors` and `require_runnable` are these, and
`require_valid` (verification of finished work) all of them but the last item:
- ids outside the id alphabet, ids used twice (phases and units across the plan, tasks
  within a unit), ids that look like another of their kind (`mergegate.plans._ids`);
- text holding NUL or bidirectional overrides anywhere in the plan (a native plan can write
  them as YAML escapes, a JSON plan as `\\u0000`; see `mergegate.plans._document.CONTROLS`);
- paths mergegate itself reads or writes that leave the repository: artifacts, key links
  that name files (the ends verification opens), phase directories, the source files
  elements point at;
- dependencies on unknown units or on units of later phases, dependency cycles;
- units without tasks, and a plan (or, for one phase, a phase) with no acceptance signal at
  all: nothing to verify against is a failure, not an empty pass.
Warnings: declared waves contradicting dependencies, two units of one (computed) wave listing
the same file — a merge conflict waiting to happen —, tasks with neither done criteria nor
checks, units with neither must-haves nor acceptance criteria, and files outside the
repository that a unit asks its agent to read or change (mergegate never opens them).
Info: every checkpoint task (a person must act there).

With `phase`, only what concerns that phase is reported (its ids, paths, units and their
dependencies): `verify --phase` is not refused for a broken plan of another phase.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from mergegate.plans._document import CONTROLS
from mergegate.plans._errors import PlanError
from mergegate.plans._ids import id_problem, skeleton
from mergegate.plans._model import Phase, Plan, PlanIssue, Severity, SourceRef, Task, Unit
from mergegate.plans._order import CycleError, unit_waves, wave_conflicts
from mergegate.plans._paths import escape_reason, looks_like_path

__all__ = ["check_plan", "plan_errors", "require_runnable", "require_valid"]

_Finding = tuple[str | None, PlanIssue]
"""An issue and the id of the phase it concerns (None: the plan as a whole)."""

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_RUN_ONLY = frozenset({"no-tasks", "no-acceptance"})
"""Errors that stop a run but not the verification of finished work."""


def check_plan(plan: Plan, *, phase: str | None = None) -> tuple[PlanIssue, ...]:
    """Every problem found in `plan` (or in its phase `phase`), errors first, then warnings,
    then info, in plan order."""
    contents = _contents(plan)
    findings: list[_Finding] = [
        *_ids(plan),
        *_texts(contents),
        *_paths(plan, contents),
        *_dependencies(plan),
    ]
    for each in plan.phases:
        findings.extend((each.id, issue) for issue in _phase(each))
    findings.extend(_acceptance(plan, phase))
    order = {each.id: k for k, each in enumerate(plan.phases)}
    kept = [(where, issue) for where, issue in findings if phase is None or where in (phase, None)]
    kept.sort(key=lambda found: (_RANK[found[1].severity], order.get(found[0] or "", len(order))))
    return tuple(issue for _, issue in kept)


def plan_errors(
    plan: Plan, *, phase: str | None = None, running: bool = True
) -> tuple[PlanIssue, ...]:
    """The errors of `check_plan`: what makes the plan (or its phase `phase`) unable to run.

    With `running=False`, what makes it unable to be *verified*: the same minus units without
    tasks and a plan without acceptance signals (a finished phase is verified against its
    must-haves and criteria; verification reports zero checks on its own terms).
    """
    return tuple(
        issue
        for issue in check_plan(plan, phase=phase)
        if issue.severity is Severity.ERROR and (running or issue.code not in _RUN_ONLY)
    )


def require_runnable(plan: Plan, *, phase: str | None = None) -> None:
    """Raise `PlanError` (exit 2) at the first error of `plan_errors`, counting the others.

    The one gate `run` passes a plan through; `plan check` lists what it found.
    """
    _require(plan_errors(plan, phase=phase), plan, "run")


def require_valid(plan: Plan, *, phase: str | None = None) -> None:
    """`require_runnable` for verification: the plan (or its phase `phase`) must be valid —
    ids, text, paths, dependencies — but may be a record of finished work without tasks."""
    _require(plan_errors(plan, phase=phase, running=False), plan, "be verified")


def _require(errors: tuple[PlanIssue, ...], plan: Plan, what: str) -> None:
    if not errors:
        return
    first = errors[0]
    more = f" (and {len(errors) - 1} more: see mergegate plan check)" if len(errors) > 1 else ""
    where = first.source or plan.source
    raise PlanError(
        f"the plan cannot {what}: {first.message}{more}",
        file=where.file if where else "plan",
        line=where.line if where else 1,
    )


def _issue(severity: Severity, code: str, message: str, source: SourceRef | None) -> PlanIssue:
    return PlanIssue(severity=severity, code=code, message=message, source=source)


def _error(code: str, message: str, source: SourceRef | None) -> PlanIssue:
    return _issue(Severity.ERROR, code, message, source)


# ---------------------------------------------------------------- ids


def _ids(plan: Plan) -> Iterator[_Finding]:
    phases = [(p.id, p.id, p.source) for p in plan.phases]
    yield from _id_set("phase", phases)
    units = [(p.id, u.id, u.source) for p, u in plan.units()]
    yield from _id_set("unit", units)
    for p, u in plan.units():
        tasks = [(p.id, t.id, t.source or u.source) for t in u.tasks]
        yield from _id_set(f"task of unit {u.id}", tasks)


def _id_set(kind: str, ids: list[tuple[str, str, SourceRef | None]]) -> Iterator[_Finding]:
    """Bad, repeated and look-alike ids among `ids` (phase, id, source) of one kind."""
    seen: dict[str, tuple[str, SourceRef | None]] = {}
    for phase, value, source in ids:
        problem = id_problem(value)
        if problem is not None:
            yield phase, _error("bad-id", f"{kind} id {value!r} {problem}", source)
            continue
        key = skeleton(value)
        if key not in seen:
            seen[key] = (value, source)
            continue
        other, where = seen[key]
        at = f" ({where})" if where else ""
        if other == value:
            yield phase, _error("duplicate-id", f"{kind} id {value!r} is used twice{at}", source)
        else:
            message = f"{kind} id {value!r} looks like {other!r}{at}: rename one of them"
            yield phase, _error("confusable-id", message, source)


# ---------------------------------------------------------------- text


@dataclass(frozen=True)
class _Content:
    """What one element of the plan holds, found in one walk over its values."""

    phase: str | None
    source: SourceRef | None
    control: str | None
    """The first character no plan may hold, if any."""
    files: frozenset[str]
    """The files of every `SourceRef` inside it."""


def _contents(plan: Plan) -> list[_Content]:
    return [_content(*element) for element in _elements(plan)]


def _elements(plan: Plan) -> Iterator[tuple[BaseModel, str | None, SourceRef | None]]:
    """The plan, each phase, unit and task without their children, with their phase id and
    nearest source: every value of the plan belongs to exactly one of them."""
    yield plan.model_copy(update={"phases": ()}), None, plan.source
    for phase in plan.phases:
        yield phase.model_copy(update={"units": ()}), phase.id, phase.source
        for unit in phase.units:
            yield unit.model_copy(update={"tasks": ()}), phase.id, unit.source
            for task in unit.tasks:
                yield task, phase.id, task.source or unit.source


def _content(model: BaseModel, phase: str | None, source: SourceRef | None) -> _Content:
    control: str | None = None
    files: set[str] = set()
    stack: list[object] = [model]
    while stack:  # iterative: `extra` may be as deep as the input allowed
        item = stack.pop()
        if isinstance(item, str):
            found = CONTROLS.search(item) if control is None else None
            control = found.group() if found else control
        elif isinstance(item, SourceRef):
            files.add(item.file)
            stack.append(item.file)
        elif isinstance(item, BaseModel):
            stack.extend(vars(item).values())  # a model's fields, as pydantic stores them
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return _Content(phase, source, control, frozenset(files))


def _texts(contents: list[_Content]) -> Iterator[_Finding]:
    """Strings holding characters no plan may hold, one finding per element."""
    for content in contents:
        if content.control is not None:
            code = f"U+{ord(content.control):04X}"
            message = (
                f"text holds {code} (NUL and bidirectional overrides make a plan show one "
                "thing and run another)"
            )
            yield content.phase, _error("control-character", message, content.source)


# ---------------------------------------------------------------- paths


def _paths(plan: Plan, contents: list[_Content]) -> Iterator[_Finding]:
    # A source that leaves the tree is no place to point at: the plan's own is (a native
    # plan's `source` is its file unless it was written in, and then it is checked too).
    home = plan.source if plan.source and escape_reason(plan.source.file) is None else None
    for content in contents:
        for file in sorted(content.files):
            yield from _escape(content.phase, "source file", file, home)
    for phase in plan.phases:
        if phase.directory:
            yield from _escape(phase.id, "phase directory", phase.directory, phase.source)
        for unit in phase.units:
            yield from _unit_paths(phase, unit)


def _unit_paths(phase: Phase, unit: Unit) -> Iterator[_Finding]:
    for artifact in unit.must_haves.artifacts:
        where = artifact.source or unit.source
        yield from _escape(phase.id, f"artifact of unit {unit.id}", artifact.path, where)
    for link in unit.must_haves.key_links:
        where = link.source or unit.source
        # What verification opens: `from`, and `to` when no pattern is given (with a pattern,
        # `to` only says where the link leads: `~/.claude/x/` is what the code writes to).
        ends = (link.from_,) if link.pattern else (link.from_, link.to)
        for end in ends:
            if looks_like_path(end):
                yield from _escape(phase.id, f"key link of unit {unit.id}", end, where)
    hinted = [*unit.files, *(p for t in unit.tasks for p in (*t.files, *t.read_first))]
    for path in dict.fromkeys(hinted):
        what = f"a file unit {unit.id} names"
        yield from _escape(phase.id, what, path, unit.source, Severity.WARNING)


def _escape(
    phase: str | None,
    what: str,
    path: str,
    source: SourceRef | None,
    severity: Severity = Severity.ERROR,
) -> Iterable[_Finding]:
    reason = escape_reason(path)
    if reason is None:
        return ()
    tail = (
        ""
        if severity is Severity.ERROR
        else " (its agent is told to use it; mergegate never opens it)"
    )
    message = f"{what} {path!r} {reason}: outside the repository{tail}"
    return ((phase, _issue(severity, "path-outside-repository", message, source)),)


# ---------------------------------------------------------------- dependencies


def _dependencies(plan: Plan) -> Iterator[_Finding]:
    position = {unit.id: k for k, phase in enumerate(plan.phases) for unit in phase.units}
    for k, phase in enumerate(plan.phases):
        for unit in phase.units:
            for dep in unit.depends_on:
                issue = _dependency(unit, phase, dep, position.get(dep), k)
                if issue is not None:
                    yield phase.id, issue


def _dependency(unit: Unit, phase: Phase, dep: str, at: int | None, k: int) -> PlanIssue | None:
    if at is None:
        message = f"unit {unit.id} depends on {dep!r}, which is no unit of this plan"
        return _error("unknown-dependency", message, unit.source)
    if dep == unit.id:
        return _error("dependency-cycle", f"unit {unit.id} depends on itself", unit.source)
    if at > k:
        message = f"unit {unit.id} (phase {phase.id}) depends on {dep} of a later phase"
        return _error("later-phase-dependency", message, unit.source)
    return None


def _phase(phase: Phase) -> list[PlanIssue]:
    issues: list[PlanIssue] = []
    try:
        waves = unit_waves(phase)
    except CycleError as exc:
        issues.append(_error("dependency-cycle", str(exc), exc.cycle[0].source))
        waves = ()
    issues.extend(wave_conflicts(phase))
    for number, wave in enumerate(waves, start=1):
        issues.extend(_overlaps(phase, number, wave))
    for unit in phase.units:
        issues.extend(_unit(unit))
    return issues


def _files(unit: Unit) -> list[str]:
    paths = [*unit.files, *(path for task in unit.tasks for path in task.files)]
    return list(dict.fromkeys(path.removeprefix("./") for path in paths if path))


def _overlaps(phase: Phase, number: int, wave: tuple[Unit, ...]) -> list[PlanIssue]:
    owner: dict[str, Unit] = {}
    issues = []
    for unit in wave:
        for path in _files(unit):
            first = owner.setdefault(path, unit)
            if first is not unit:
                where = f" ({first.source})" if first.source else ""
                issues.append(
                    _issue(
                        Severity.WARNING,
                        "same-wave-file",
                        f"units {first.id}{where} and {unit.id} run together "
                        f"(phase {phase.id}, wave {number}) and both list {path}",
                        unit.source,
                    )
                )
    return issues


def _unit(unit: Unit) -> list[PlanIssue]:
    issues = []
    if not unit.tasks:
        issues.append(_error("no-tasks", f"unit {unit.id} has no tasks", unit.source))
    if unit.must_haves.empty and not (unit.acceptance_criteria or unit.success_criteria):
        issues.append(
            _issue(
                Severity.WARNING,
                "no-must-haves",
                f"unit {unit.id} has no must-haves or acceptance criteria",
                unit.source,
            )
        )
    for task in unit.tasks:
        if task.is_checkpoint:
            issues.append(
                _issue(
                    Severity.INFO,
                    "checkpoint",
                    f"{task.type} in unit {unit.id}: {task.name} (a person must act here)",
                    task.source,
                )
            )
        elif not _task_has_criteria(task):
            issues.append(
                _issue(
                    Severity.WARNING,
                    "task-without-criteria",
                    f"task {task.name!r} of unit {unit.id} has no done criteria or checks",
                    task.source,
                )
            )
    return issues


def _acceptance(plan: Plan, phase: str | None) -> Iterator[_Finding]:
    """Nothing to verify against, in the whole plan or in the phase asked about."""
    chosen = [p for p in plan.phases if phase is None or p.id == phase]
    units = [unit for p in chosen for unit in p.units]
    if any(_has_acceptance(unit) for unit in units):
        return
    if phase is not None and any(p.success_criteria for p in chosen):
        return  # a phase is verified against its own success criteria too
    whole = "the plan has" if phase is None else f"phase {phase} has"
    source = plan.source if phase is None else next((p.source for p in chosen), plan.source)
    message = (
        f"{whole} no must-haves, acceptance criteria, done criteria or checks anywhere: "
        "nothing to verify it against"
    )
    yield phase, _error("no-acceptance", message, source)


def _task_has_criteria(task: Task) -> bool:
    return bool(
        task.done.strip() or task.acceptance_criteria or task.verify.commands or task.checks
    )


def _has_acceptance(unit: Unit) -> bool:
    return bool(
        not unit.must_haves.empty
        or unit.acceptance_criteria
        or unit.success_criteria
        or unit.verification.commands
        or any(_task_has_criteria(task) for task in unit.tasks)
    )
