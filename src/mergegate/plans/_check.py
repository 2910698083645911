"""`plan check`: what would make a plan unsafe or unverifiable to run, with file:line.

Errors (the plan cannot run as written): duplicate ids, dependencies on unknown units or on
units of later phases, dependency cycles, units without tasks, a plan with no acceptance
signal at all (nothing to verify against is a failure, not an empty pass).
Warnings: declared waves contradicting dependencies, two units of one (computed) wave listing
the same file — a merge conflict waiting to happen —, tasks with neither done criteria nor
checks, units with neither must-haves nor acceptance criteria.
Info: every checkpoint task (a person must act there).
"""

from __future__ import annotations

from mergegate.plans._model import Phase, Plan, PlanIssue, Severity, SourceRef, Task, Unit
from mergegate.plans._order import CycleError, unit_waves, wave_conflicts

__all__ = ["check_plan"]


def check_plan(plan: Plan) -> tuple[PlanIssue, ...]:
    """Every problem found in `plan`, errors first, then warnings, then info, in plan order."""
    issues: list[PlanIssue] = []
    issues.extend(_ids(plan))
    issues.extend(_dependencies(plan))
    for phase in plan.phases:
        issues.extend(_phase(phase))
    if not any(_has_acceptance(unit) for _, unit in plan.units()):
        issues.append(
            _issue(
                Severity.ERROR,
                "no-acceptance",
                "the plan has no must-haves, acceptance criteria, done criteria or checks "
                "anywhere: nothing to verify it against",
                plan.source,
            )
        )
    rank = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return tuple(sorted(issues, key=lambda issue: rank[issue.severity]))


def _issue(severity: Severity, code: str, message: str, source: SourceRef | None) -> PlanIssue:
    return PlanIssue(severity=severity, code=code, message=message, source=source)


def _ids(plan: Plan) -> list[PlanIssue]:
    issues = []
    seen_phases: set[str] = set()
    seen_units: set[str] = set()
    for phase in plan.phases:
        if phase.id in seen_phases:
            issues.append(
                _issue(
                    Severity.ERROR,
                    "duplicate-id",
                    f"phase id {phase.id!r} is used twice",
                    phase.source,
                )
            )
        seen_phases.add(phase.id)
        for unit in phase.units:
            if unit.id in seen_units:
                issues.append(
                    _issue(
                        Severity.ERROR,
                        "duplicate-id",
                        f"unit id {unit.id!r} is used twice",
                        unit.source,
                    )
                )
            seen_units.add(unit.id)
    return issues


def _dependencies(plan: Plan) -> list[PlanIssue]:
    position = {unit.id: k for k, phase in enumerate(plan.phases) for unit in phase.units}
    issues = []
    for k, phase in enumerate(plan.phases):
        for unit in phase.units:
            for dep in unit.depends_on:
                if dep not in position:
                    issues.append(
                        _issue(
                            Severity.ERROR,
                            "unknown-dependency",
                            f"unit {unit.id} depends on {dep!r}, which is no unit of this plan",
                            unit.source,
                        )
                    )
                elif dep == unit.id:
                    issues.append(
                        _issue(
                            Severity.ERROR,
                            "dependency-cycle",
                            f"unit {unit.id} depends on itself",
                            unit.source,
                        )
                    )
                elif position[dep] > k:
                    issues.append(
                        _issue(
                            Severity.ERROR,
                            "later-phase-dependency",
                            f"unit {unit.id} (phase {phase.id}) depends on {dep} of a later phase",
                            unit.source,
                        )
                    )
    return issues


def _phase(phase: Phase) -> list[PlanIssue]:
    issues: list[PlanIssue] = []
    try:
        waves = unit_waves(phase)
    except CycleError as exc:
        issues.append(_issue(Severity.ERROR, "dependency-cycle", str(exc), exc.cycle[0].source))
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
        issues.append(
            _issue(Severity.ERROR, "no-tasks", f"unit {unit.id} has no tasks", unit.source)
        )
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
