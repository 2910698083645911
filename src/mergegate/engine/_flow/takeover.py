"""A person takes over a task that went to them: `resume --answer UNIT/TASK=approve|skip|retry`.

The task's own workflow (`<run>/<unit>/<task>`) keeps its recorded outcome (escalated, failed);
each answer, recorded for the generation it starts, is applied on top of it in order, by steps
and child workflows whose ids carry that generation, so a later generation replays them and
never applies an answer twice:

* `approve` — the workspace is set to the commit the person approved (the unit's branch tip
  when they answered) and the task's checks run on it: all pass, the task is approved at that
  commit; one fails, the approval is refused and the task stays with the person;
* `skip` — the workspace goes back to the task's start and the task is recorded skipped; the
  unit goes on with its next task (and merges when the rest is approved);
* `retry` — the task runs again from its start in a fresh implementer session
  (`<run>/<unit>/<task>/retry-g<N>`), with its whole pipeline: checks, review, fix rounds.

A task set aside (`aside`: the unit went on without it) is answered at the unit's end, on
top of the unit's head (`at`): a retry starts there and a skip leaves the tree there.
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.decisions import ExitCode
from mergegate.engine._context.outcomes import TakeoverAnswer, TaskArgs, TaskOutcome
from mergegate.engine._context.plan_views import task_checks
from mergegate.engine._context.runtime import Runtime
from mergegate.engine._flow.task_pipeline import task_workflow
from mergegate.engine._steps.core import adopt_step, check_step, takeovers_step
from mergegate.git import Workspace
from mergegate.ids import WorkflowId
from mergegate.plans import Task, Unit
from mergegate.store import child_id

__all__ = ["TAKEN_OVER", "take_over"]

TAKEN_OVER = ("needs_manual_review", "failed", "undecidable", "cancelled")
"""The decisions a person can take a task over from."""


@dataclass(frozen=True)
class _Place:
    """Where the task is: its run, phase, unit, index and the unit's workspace (its folder,
    and the workspace as its step recorded it)."""

    rt: Runtime
    phase_id: str
    unit: Unit
    index: int
    worktree: str
    workspace: Workspace
    at: str | None = None
    """For a task set aside (`aside`): the unit's head the answer applies on top of (the
    unit went on without the task); None: the task's own start."""

    @property
    def task(self) -> Task:
        return self.unit.tasks[self.index]


def take_over(
    rt: Runtime,
    phase_id: str,
    unit: Unit,
    index: int,
    outcome: TaskOutcome,
    *,
    worktree: str,
    workspace: Workspace,
    at: str | None = None,
) -> TaskOutcome:
    """The task's outcome after every answer people gave it so far (none: as it was).

    `at`: the task was set aside and its unit went on without it; the answers apply on top
    of the unit's head `at` (a retry starts there, a skip leaves the tree there) instead of
    the task's start."""
    if outcome.decision not in TAKEN_OVER:
        return outcome
    place = _Place(rt, phase_id, unit, index, worktree, workspace, at)
    for answer in takeovers_step(unit.id, place.task.id):
        if outcome.decision not in TAKEN_OVER:
            break  # answered already: a later answer to a finished task changes nothing
        if answer.answer == "approve":
            outcome = _approve(place, outcome, answer)
        elif answer.answer == "skip":
            outcome = _skip(place, outcome, answer)
        else:
            outcome = _retry(place, outcome, answer)
    return outcome


def _said(answer: TakeoverAnswer) -> str:
    return f"{answer.who}" + (f": {answer.note}" if answer.note else "")


def _approve(place: _Place, outcome: TaskOutcome, answer: TakeoverAnswer) -> TaskOutcome:
    rt, task = place.rt, place.task
    head = answer.head or outcome.head
    adopt_step(place.worktree, head)
    rt.emit(
        "step",
        f"{task.id}: checking the commit {head[:12]} a person approved",
        phase=place.phase_id,
        unit=place.unit.id,
        task=task.id,
    )
    folder = rt.unit_dir(place.phase_id, place.unit.id) / task.id / "checks"
    checks = check_step(
        place.worktree, list(task_checks(task)), str(folder / f"takeover-g{answer.generation}")
    )
    failing = [c for c in checks if not c.passed]
    taken = {"answer": answer, "head": head, "checks": outcome.checks + checks}
    if failing:
        first = failing[0]
        return outcome.model_copy(
            update={
                **taken,
                "decision": "needs_manual_review",
                "reason": f"approval by {_said(answer)} refused: check `{first.run}` fails "
                f"on {head[:12]} (exit {first.exit}, expected {first.expect_exit})",
                "exit_code": int(ExitCode.ESCALATED),
            }
        )
    return outcome.model_copy(
        update={
            **taken,
            "decision": "approved",
            "reason": f"approved by {_said(answer)} after a fix by hand at {head[:12]} "
            f"({len(checks)} check(s) pass)",
            "exit_code": 0,
            "open_findings": [],
        }
    )


def _skip(place: _Place, outcome: TaskOutcome, answer: TakeoverAnswer) -> TaskOutcome:
    start = place.at or outcome.start
    adopt_step(place.worktree, start)
    return outcome.model_copy(
        update={
            "decision": "skipped",
            "reason": f"skipped by {_said(answer)}",
            "head": start,
            "answer": answer,
            "exit_code": 0,
        }
    )


def _retry(place: _Place, outcome: TaskOutcome, answer: TakeoverAnswer) -> TaskOutcome:
    rt, task = place.rt, place.task
    start = place.at or outcome.start
    adopt_step(place.worktree, start)
    again = f"retry-g{answer.generation}"
    with child_id(WorkflowId.task(rt.run_id, place.unit.id, task.id, again).format()):
        retried = task_workflow(
            TaskArgs(
                phase=place.phase_id,
                unit=place.unit.id,
                index=place.index,
                start=start,
                session=None,  # a fresh implementer session
                worktree=place.worktree,
                workspace=place.workspace,
                again=again,
            )
        )
    said = f"retried for {_said(answer)}"
    return retried.model_copy(
        update={"answer": answer, "reason": f"{retried.reason} ({said})".strip()}
    )
