"""Plan views the engine needs: validation, waves, the spec of a task, report names.

Pure functions over `mergegate.plans` values.
"""

from __future__ import annotations

from collections.abc import Sequence

from mergegate.errors import UsageError
from mergegate.plans import (
    Check,
    CycleError,
    Phase,
    Plan,
    Task,
    Unit,
    require_runnable,
    unit_waves,
)

__all__ = [
    "compute_waves",
    "report_stem",
    "selected_phases",
    "task_checks",
    "task_spec",
    "validate_plan",
]


def validate_plan(plan: Plan) -> None:
    """Refuse a plan the engine cannot run, naming what is wrong (exit 2): the one plan
    validation every command shares (`mergegate.plans.require_runnable`: ids, paths, text,
    dependencies, tasks, something to verify against)."""
    if not plan.phases:
        raise UsageError("the plan has no phases")
    require_runnable(plan)


def compute_waves(phase: Phase) -> list[list[Unit]]:
    """The phase's units in run order (`mergegate.plans.unit_waves`); a cycle is exit 2."""
    try:
        return [list(wave) for wave in unit_waves(phase)]
    except CycleError as exc:
        raise UsageError(f"phase {phase.id!r}: {exc}") from None


def selected_phases(plan: Plan, only: str | None) -> list[Phase]:
    """All phases, or the one named by `--phase`."""
    if only is None:
        return list(plan.phases)
    found = [p for p in plan.phases if p.id == only]
    if not found:
        names = ", ".join(p.id for p in plan.phases)
        raise UsageError(f"no phase {only!r} in the plan (phases: {names})")
    return found


def task_checks(task: Task) -> tuple[Check, ...]:
    """The commands mergegate runs itself after the task: its checks and verify commands
    (a step the plan expects to fail, a test-first "red" step, is never an acceptance check)."""
    return tuple(c for c in (*task.checks, *task.verify.commands) if not c.expect_failure)


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
