"""Run, phase and unit: the durable workflows above the task pipeline.

* `run_workflow` runs the selected phases in order and stops at the first phase boundary after
  which something is not merged (escalated, failed, waiting for a person).
* `phase_workflow` runs the phase's units in waves by `depends_on`: each unit of a wave is put
  on the queue (at most `--concurrency` run at once) on its own branch made from the
  integration branch at the start of the wave; then the approved units are merged `--no-ff`,
  in plan order, exactly once. Dependants of a unit that did not merge are skipped with the
  reason; independent units go on.
* `unit_workflow` makes the unit's work tree and runs its tasks in order, one implementer
  session resumed from task to task; a checkpoint task waits for a person's answer.

Ids: `<run>/g<generation>/<phase>` and `<run>/g<generation>/<unit>` (a new generation starts
when `resume --answer` continues a run that waited for a person); tasks keep
`<run>/<unit>/<task>` across generations, so finished tasks are never run again.
"""

from __future__ import annotations

from typing import Any

from mergegate.decisions import ExitCode
from mergegate.engine._outcomes import TaskOutcome, UnitOutcome
from mergegate.engine._plan import compute_waves, selected_phases
from mergegate.engine._reports import (
    write_conflict_package,
    write_task_report,
    write_unit_records,
)
from mergegate.engine._runtime import Runtime, current
from mergegate.engine._steps import (
    answer_step,
    merge_step,
    remove_worktree_step,
    stop_reason,
    tip_step,
    worktree_step,
)
from mergegate.engine._task import task_workflow
from mergegate.plans import Phase, Unit
from mergegate.store import child_id, enqueue, step, wait_result, workflow

__all__ = ["ALREADY_DONE", "phase_workflow", "run_workflow", "satisfied", "unit_workflow"]

ALREADY_DONE = "already completed"


@step("mergegate.stop_requested")
def stop_step() -> str | None:
    return stop_reason(None)


@step("mergegate.request_stop")
def request_stop_step(reason: str) -> None:
    """`on_escalation = "stop"`: no agent of this run starts after this."""
    path = current().stop_file()
    if not path.exists():
        path.write_text(reason + "\n", "utf-8")


# ---------------------------------------------------------------- unit


def _checkpoint(rt: Runtime, unit: Unit, index: int) -> TaskOutcome:
    task = unit.tasks[index]
    base = TaskOutcome(id=task.id, number=index + 1, name=task.name, decision="waiting_for_human")
    answer = answer_step(str(rt.run_dir), f"{unit.id}/{task.id}")
    if answer is None:
        rt.emit(
            "unit",
            f"{unit.id}: {task.id} waits for a person ({task.type})",
            unit=unit.id,
            task=task.id,
            step="waiting",
        )
        return base.model_copy(
            update={
                "reason": f"{task.type}: answer with mergegate resume {rt.run_id} "
                f"--answer {unit.id}/{task.id}=approve|reject",
                "exit_code": int(ExitCode.ESCALATED),
            }
        )
    note = answer.get("note", "")
    if answer.get("answer") == "approve":
        return base.model_copy(
            update={
                "decision": "approved",
                "reason": f"approved by a person{': ' + note if note else ''}",
                "answer": answer,
            }
        )
    return base.model_copy(
        update={
            "decision": "needs_manual_review",
            "reason": f"rejected by a person{': ' + note if note else ''}",
            "answer": answer,
            "exit_code": int(ExitCode.ESCALATED),
        }
    )


def _unit_status(tasks: list[TaskOutcome]) -> tuple[str, str, int]:
    for task in tasks:
        if task.decision == "approved":
            continue
        status = {
            "needs_manual_review": "needs_manual_review",
            "waiting_for_human": "waiting_for_human",
            "cancelled": "cancelled",
        }.get(task.decision, "failed")
        return status, f"{task.id}: {task.reason}", task.exit_code
    return "ready", "", 0


@workflow("mergegate.unit")
def unit_workflow(args: dict[str, Any]) -> dict[str, Any]:
    """Run one unit's tasks in its own work tree; its `UnitOutcome` (status `ready` when every
    task was approved: the phase merges it)."""
    rt = current()
    phase_id, unit = args["phase"], rt.unit(args["phase"], args["unit"])
    out = UnitOutcome(id=unit.id, phase=phase_id, status="running", branch=rt.unit_branch(unit.id))
    why = stop_step()
    if why is not None:
        out = out.model_copy(update={"status": "skipped", "reason": f"not started: {why}"})
        write_unit_records(rt, out)
        return out.dump()
    path = rt.unit_worktree(unit.id)
    head = worktree_step(str(rt.repo), str(path), out.branch, args["base"])
    out = out.model_copy(update={"worktree": str(path), "head": head})
    write_unit_records(rt, out)
    rt.emit("unit", f"{unit.id}: started in {path}", unit=unit.id, phase=phase_id, step="start")
    session: str | None = None
    for index, task in enumerate(unit.tasks):
        if task.is_checkpoint:
            outcome = _checkpoint(rt, unit, index)
        else:
            with child_id(f"{rt.run_id}/{unit.id}/{task.id}"):
                raw = task_workflow(
                    {
                        "phase": phase_id,
                        "unit": unit.id,
                        "index": index,
                        "start": head,
                        "session": session,
                        "worktree": str(path),
                    }
                )
            outcome = TaskOutcome.model_validate(raw)
            write_task_report(rt, phase_id, unit, outcome)
        out.tasks.append(outcome)
        write_unit_records(rt, out)
        if outcome.decision != "approved":
            break
        if outcome.head:
            head, session = outcome.head, outcome.session
    status, reason, code = _unit_status(out.tasks)
    out = out.model_copy(
        update={"status": status, "reason": reason, "exit_code": code, "head": head}
    )
    if status == "needs_manual_review" and rt.options.on_escalation == "stop":
        request_stop_step(f"on_escalation = stop: unit {unit.id} escalated ({reason})")
    write_unit_records(rt, out)
    return out.dump()


# ---------------------------------------------------------------- phase


def satisfied(out: UnitOutcome | dict[str, Any]) -> bool:
    """Merged, or done before this run (dependants may go on)."""
    status = out.status if isinstance(out, UnitOutcome) else out["status"]
    reason = out.reason if isinstance(out, UnitOutcome) else out["reason"]
    return status == "merged" or (status == "skipped" and reason.startswith(ALREADY_DONE))


def _blocked_by(unit: Unit, done: dict[str, UnitOutcome]) -> str | None:
    for dep in unit.depends_on:
        found = done.get(dep)
        if found is not None and not satisfied(found):
            return f"skipped: depends on {dep}, which is {found.status}"
    return None


def _start_wave(
    rt: Runtime, phase: Phase, wave: list[Unit], done: dict[str, UnitOutcome], gen: int
) -> list[tuple[Unit, Any]]:
    tip = tip_step(str(rt.repo), rt.record.into)
    handles = []
    for unit in wave:
        skip = None
        if unit.completed:
            skip = f"{ALREADY_DONE} (the plan's own record says so)"
        elif (blocked := _blocked_by(unit, done)) is not None:
            skip = blocked
        if skip is not None:
            done[unit.id] = UnitOutcome(id=unit.id, phase=phase.id, status="skipped", reason=skip)
            write_unit_records(rt, done[unit.id])
            continue
        args = {"phase": phase.id, "unit": unit.id, "base": tip}
        handles.append((unit, enqueue(unit_workflow, f"{rt.run_id}/g{gen}/{unit.id}", args)))
    return handles


def _merge(rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome) -> UnitOutcome:
    rt.emit(
        "merge",
        f"{unit.id}: merging into {rt.record.into}",
        unit=unit.id,
        phase=phase.id,
        step="merge",
    )
    key = f"Mergegate-Unit: {rt.run_id}/{unit.id}"
    message = f"Merge unit {unit.id}{': ' + unit.name if unit.name else ''} ({phase.id})"
    merged = merge_step(str(rt.repo), rt.record.into, out.branch, message, key)
    if merged["conflicts"]:
        folder = write_conflict_package(rt, phase.id, unit, merged)
        reason = (
            f"merge conflict with {rt.record.into} in {len(merged['conflicts'])} path(s): "
            + ", ".join(merged["conflicts"][:5])
        )
        return out.model_copy(
            update={
                "status": "needs_manual_review",
                "reason": reason,
                "exit_code": int(ExitCode.ESCALATED),
                "escalation": str(folder),
            }
        )
    remove_worktree_step(str(rt.repo), out.worktree)
    return out.model_copy(update={"status": "merged", "merge_commit": merged["commit"]})


@workflow("mergegate.phase")
def phase_workflow(args: dict[str, Any]) -> dict[str, Any]:
    """Run one phase's units in waves and merge them; `{id, units: [UnitOutcome]}`."""
    rt = current()
    phase, gen = rt.phase(args["phase"]), args["generation"]
    done: dict[str, UnitOutcome] = {}
    for number, wave in enumerate(compute_waves(phase), start=1):
        rt.emit(
            "wave",
            f"phase {phase.id}, wave {number}: {', '.join(u.id for u in wave)}",
            phase=phase.id,
        )
        for unit, handle in _start_wave(rt, phase, wave, done, gen):
            done[unit.id] = UnitOutcome.model_validate(wait_result(handle))
        for unit in wave:
            out = done[unit.id]
            if out.status == "ready":
                done[unit.id] = _merge(rt, phase, unit, out)
                write_unit_records(rt, done[unit.id])
            if done[unit.id].status == "needs_manual_review" and rt.options.on_escalation == "stop":
                request_stop_step(f"on_escalation = stop: unit {unit.id} escalated")
    units = [done[u.id].dump() for u in phase.units]
    return {"id": phase.id, "units": units}


# ---------------------------------------------------------------- run


def _phase_complete(result: dict[str, Any]) -> bool:
    return all(satisfied(u) for u in result["units"])


@workflow("mergegate.run")
def run_workflow(args: dict[str, Any]) -> dict[str, Any]:
    """Run the plan's (selected) phases in order; `{phases: [...]}` for the ones that ran."""
    rt = current()
    gen = args["generation"]
    results = []
    for phase in selected_phases(rt.plan, rt.options.phase):
        rt.emit("phase", f"phase {phase.id} {phase.name}".rstrip(), phase=phase.id)
        with child_id(f"{rt.run_id}/g{gen}/{phase.id}"):
            result = phase_workflow({"phase": phase.id, "generation": gen})
        results.append(result)
        if not _phase_complete(result):
            rt.emit("run", f"stopping at the end of phase {phase.id}: not every unit merged")
            break
    return {"phases": results}
