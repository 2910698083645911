"""What to do about a gap: one suggested next step per failed criterion (seed 004: "gaps_found:
display gaps, suggest fixes").

Pure: built from the plan (which unit and task own a file or a check) and the criterion's own
evidence (the file that lacks what, the command that failed and its log). A step names
things; it never claims to know the fix.
"""

from __future__ import annotations

from mergegate.plans import Phase, Task, Unit
from mergegate.verify._model import CheckKind, CriterionKind, CriterionResult, Evidence, Outcome

__all__ = ["next_step"]


def _task_label(unit: Unit, task: Task) -> str:
    name = f' ("{task.name[:60]}")' if task.name else ""
    return f"task {task.id} of {unit.id}{name}"


def _owner(phase: Phase, criterion: CriterionResult, path: str | None) -> str | None:
    """The task that lists `path` among its files, else the criterion's own task or unit."""
    units = [u for u in phase.units if criterion.unit in (None, u.id)]
    if path:
        for unit in units:
            for task in unit.tasks:
                listed = [*task.files, *(c.path for c in task.file_changes)]
                if any(f.strip().split(":", 1)[0] == path for f in listed):
                    return _task_label(unit, task)
    for unit in units:
        for task in unit.tasks:
            if criterion.task is not None and task.id == criterion.task:
                return _task_label(unit, task)
    return f"plan {criterion.unit}" if criterion.unit else None


def _failed(criterion: CriterionResult) -> Evidence | None:
    return next((e for e in criterion.evidence if e.outcome is Outcome.FAIL), None)


def next_step(phase: Phase, criterion: CriterionResult) -> str | None:
    """A suggested next step for a failed criterion, or None when it did not fail."""
    evidence = _failed(criterion)
    if evidence is None:
        return None
    owner = _owner(phase, criterion, _path_of(criterion))
    redo = f"rerun {owner}" if owner else "fix it"
    return _step(criterion, evidence, redo)


def _step(criterion: CriterionResult, evidence: Evidence, redo: str) -> str:
    if evidence.check == CheckKind.COMMAND:
        log = f" (full output: {evidence.log})" if evidence.log else ""
        return f"run `{evidence.command}` to see it fail{log}; fix the cause, then {redo}"
    if evidence.check in (CheckKind.EXISTS, CheckKind.SUBSTANTIVE):
        return f"{evidence.detail[:300]}: {redo}"
    if evidence.check in (CheckKind.PATTERN, CheckKind.IMPORT):
        return f"wire it: {evidence.detail[:300]}; {redo}"
    if evidence.check == CheckKind.REQUIREMENT:
        return (
            f"{evidence.detail}: add the id to the `requirements:` of the plan that implements "
            "it, or correct the phase's requirement list"
        )
    if criterion.kind in (CriterionKind.TRUTH, CriterionKind.SUCCESS_CRITERION):
        return f"the verifier found it does not hold ({evidence.detail[:200]}); {redo}"
    return f"{evidence.detail[:200]}; {redo}"


def _path_of(criterion: CriterionResult) -> str | None:
    if criterion.kind is not CriterionKind.ARTIFACT:
        return None
    return criterion.text.split(" — ", 1)[0].strip() or None
