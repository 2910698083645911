"""`read_plan(path)`: the plan a command acts on, from any format `load_plan` imports or the
plan model as JSON; its errors refused (`UsageError`, exit 2), other phases' errors set aside
when one phase is wanted. `find_phase` picks a phase by id. `run` and `verify` both read
their plans here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.plans._detect import load_plan
from mergegate.plans._model import Phase, Plan, SourceRef

__all__ = ["LoadedPlan", "find_phase", "read_plan"]


@dataclass(frozen=True)
class LoadedPlan:
    """A plan as read for a command, with where it came from."""

    plan: Plan
    path: Path
    root: Path
    """The directory plan source paths are relative to."""
    skipped: tuple[str, ...] = ()
    """Import errors of other phases' files, ignored for the phase being verified."""


def read_plan(path: Path, *, only_phase: str | None = None) -> LoadedPlan:
    """Read PLAN: anything `load_plan` imports (a GSD `.planning` tree, a superpowers or
    spectacular plan, a native YAML file) or a JSON file of the plan model.

    Raises `UsageError` (exit 2) for an unreadable, unknown or broken plan. With
    `only_phase`, errors in files of *other* phases' directories (an unreadable PLAN.md of an
    old phase) do not stop it: they are kept in `skipped`; errors anywhere else still do.
    """
    root = path if path.is_dir() else path.parent
    if path.suffix == ".json":
        return LoadedPlan(_plan_model(path), path, root)
    imported = load_plan(path)
    plan = imported.plan
    errors = [e for e in imported.errors if not _elsewhere(plan, e.source, only_phase)]
    if errors:
        count, issue = len(errors), errors[0]
        raise UsageError(f"{path}: the plan has {count} error(s); first: {issue}")
    skipped = tuple(f"ignored (another phase): {e}" for e in imported.errors if e not in errors)
    return LoadedPlan(plan, path, root, skipped)


def _plan_model(path: Path) -> Plan:
    try:
        return Plan.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read plan {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        first = str(exc).splitlines()[:3]
        raise UsageError(f"{path} is not a plan model (JSON): {' '.join(first)}") from exc


def _elsewhere(plan: Plan, source: SourceRef | None, only_phase: str | None) -> bool:
    """True when `source` is inside the directory of a phase other than `only_phase`."""
    if only_phase is None or source is None:
        return False
    try:
        wanted = find_phase(plan, only_phase)
    except UsageError:
        return False
    for phase in plan.phases:
        folder = phase.directory
        if phase.id != wanted.id and folder and source.file.startswith(folder.rstrip("/") + "/"):
            return True
    return False


def find_phase(plan: Plan, phase_id: str | None) -> Phase:
    """The phase called `phase_id` (also matching `4` to `04`), or the only one; `UsageError`."""
    if phase_id is None:
        if len(plan.phases) == 1:
            return plan.phases[0]
        ids = ", ".join(p.id for p in plan.phases) or "none"
        raise UsageError(f"the plan has {len(plan.phases)} phases; pick one with --phase ({ids})")
    for phase in plan.phases:
        if phase.id == phase_id or _number(phase.id) == _number(phase_id) is not None:
            return phase
    ids = ", ".join(p.id for p in plan.phases) or "none"
    raise UsageError(f"no phase {phase_id!r} in the plan; phases: {ids}")


def _number(phase_id: str) -> str | None:
    match = re.match(r"^0*(\d+(?:\.\d+)?)", phase_id)
    return match.group(1) if match else None
