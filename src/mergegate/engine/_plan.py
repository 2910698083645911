"""Plan views the engine needs: validation, waves, the spec of a task, report names.

Pure functions over `mergegate.plans` values.
"""

from __future__ import annotations

from collections.abc import Sequence

from mergegate.errors import UsageError
from mergegate.plans import Check, Phase, Plan, Task, Unit

__all__ = [
    "compute_waves",
    "phase_of_unit",
    "report_stem",
    "selected_phases",
    "task_checks",
    "task_spec",
    "validate_plan",
]


def validate_plan(plan: Plan) -> None:
    """Reject plans the engine cannot run, naming what is wrong (exit 2)."""
    if not plan.phases:
        raise UsageError("the plan has no phases")
    seen_units: dict[str, str] = {}
    for phase in plan.phases:
        for unit in phase.units:
            if unit.id in seen_units:
                raise UsageError(
                    f"unit id {unit.id!r} appears twice "
                    f"(phases {seen_units[unit.id]!r} and {phase.id!r})"
                )
            seen_units[unit.id] = phase.id
            _validate_ids(unit)
    order = {p.id: i for i, p in enumerate(plan.phases)}
    for phase in plan.phases:
        for unit in phase.units:
            for dep in unit.depends_on:
                if dep not in seen_units:
                    raise UsageError(f"unit {unit.id!r} depends on unknown unit {dep!r}")
                if order[seen_units[dep]] > order[phase.id]:
                    raise UsageError(
                        f"unit {unit.id!r} depends on {dep!r}, which is in a later phase"
                    )
        compute_waves(phase)  # raises on a cycle


def _validate_ids(unit: Unit) -> None:
    for text in (unit.id, *(t.id for t in unit.tasks)):
        if not text or any(c in text for c in "/\\\0\n") or text.startswith((".", "-")):
            raise UsageError(f"unit {unit.id!r}: id {text!r} cannot name a folder or a branch")
    ids = [t.id for t in unit.tasks]
    if len(set(ids)) != len(ids):
        raise UsageError(f"unit {unit.id!r} has two tasks with the same id")


def compute_waves(phase: Phase) -> list[list[Unit]]:
    """The phase's units in waves: a unit runs after every unit it depends on in this phase
    (dependencies on earlier phases are already merged). A declared `wave` is a lower bound.
    Each wave keeps plan order."""
    units = {u.id: u for u in phase.units}
    level: dict[str, int] = {}

    def wave_of(unit: Unit, path: tuple[str, ...]) -> int:
        if unit.id in level:
            return level[unit.id]
        if unit.id in path:
            cycle = " -> ".join((*path, unit.id))
            raise UsageError(f"phase {phase.id!r}: dependency cycle {cycle}")
        deps = [units[d] for d in unit.depends_on if d in units]
        value = max([wave_of(d, (*path, unit.id)) + 1 for d in deps] + [unit.wave or 1, 1])
        level[unit.id] = value
        return value

    for unit in phase.units:
        wave_of(unit, ())
    waves: dict[int, list[Unit]] = {}
    for unit in phase.units:
        waves.setdefault(level[unit.id], []).append(unit)
    return [waves[k] for k in sorted(waves)]


def selected_phases(plan: Plan, only: str | None) -> list[Phase]:
    """All phases, or the one named by `--phase`."""
    if only is None:
        return list(plan.phases)
    found = [p for p in plan.phases if p.id == only]
    if not found:
        names = ", ".join(p.id for p in plan.phases)
        raise UsageError(f"no phase {only!r} in the plan (phases: {names})")
    return found


def phase_of_unit(plan: Plan, unit_id: str) -> Phase:
    for phase in plan.phases:
        if any(u.id == unit_id for u in phase.units):
            return phase
    raise KeyError(unit_id)


def task_checks(task: Task) -> tuple[Check, ...]:
    """The commands mergegate runs itself after the task: its checks and verify commands."""
    return (*task.checks, *task.verify.commands)


def task_spec(plan: Plan, phase: Phase, unit: Unit, task: Task) -> str:
    """The task block as the spec of its review: action, files, done criteria, acceptance
    criteria, the unit's must-haves and requirement ids (seed 004's task definition)."""
    lines = [f"# Task {task.id}: {task.name}", ""]
    lines += [
        f"Plan: {plan.title or '(untitled)'}; phase {phase.id}; "
        f"unit {unit.id} {unit.name}".rstrip(),
        "",
    ]
    if unit.objective:
        lines += ["## Objective of the unit", "", unit.objective.strip(), ""]
    if task.action:
        lines += ["## Action", "", task.action.strip(), ""]
    _section(lines, "Files", task.files or unit.files)
    if task.done:
        lines += ["## Done when", "", task.done.strip(), ""]
    if task.verify.text:
        lines += ["## Verify", "", task.verify.text.strip(), ""]
    _section(
        lines,
        "Acceptance criteria",
        [f"{c.id + ': ' if c.id else ''}{c.text}" for c in task.acceptance_criteria],
    )
    must = unit.must_haves
    _section(lines, "Must be true", must.truths)
    _section(
        lines,
        "Must exist",
        [f"{a.path}{' — ' + a.provides if a.provides else ''}" for a in must.artifacts],
    )
    _section(lines, "Requirements", unit.requirements)
    _section(lines, "Boundaries (do not change)", unit.boundaries)
    checks = task_checks(task)
    _section(lines, "Checks mergegate runs", [f"`{c.run}`" for c in checks])
    return "\n".join(lines).rstrip() + "\n"


def _section(lines: list[str], title: str, items: Sequence[str]) -> None:
    if items:
        lines += [f"## {title}", "", *(f"- {item}" for item in items), ""]


def report_stem(phase: Phase, unit: Unit, number: int) -> str:
    """`<phase>-<unit>-REVIEW-T<n>` (seed 004); a GSD unit id `01-02` already holds its phase."""
    prefix = unit.id if unit.id.startswith(f"{phase.id}-") else f"{phase.id}-{unit.id}"
    return f"{prefix}-REVIEW-T{number}"
