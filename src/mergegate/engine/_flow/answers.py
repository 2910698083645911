"""A person's answers to a task, given with `resume --answer UNIT/TASK=ANSWER`: a checkpoint
task's (approve or reject), or a taken-over task's (approve, skip or retry: `takeover`).

Each answer is checked against the run's state in its database before anything is recorded:
the task exists (by `UNIT/TASK`, or by `TASK` alone when no other task has that id), a
checkpoint gets approve or reject, and a task is taken over only when it is the one its unit
stopped at (escalated, failed, undecidable or cancelled). `approve` of a taken-over task names
the commit it approves: the tip of the unit's branch in the user's repository when a person
committed a fix there, else the unit's workspace's HEAD when they committed it there, else
the task's own last commit (a person who approves what the agent did). A workspace with
uncommitted changes to tracked files is refused: approving it would silently leave them out.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mergegate.engine._context.outcomes import CheckpointAnswer, TakeoverAnswer, UnitOutcome
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._flow.takeover import TAKEN_OVER
from mergegate.errors import UsageError
from mergegate.git import branch_tip, head_commit, uncommitted_paths
from mergegate.ids import AnswerKey, IdError
from mergegate.plans import Plan, Task, Unit
from mergegate.store import RunRows, StateKind

__all__ = ["TaskAnswers", "task_answers"]

CHECKPOINT_ANSWERS = ("approve", "reject")
TAKEOVER_ANSWERS = ("approve", "skip", "retry")


@dataclass(frozen=True)
class TaskAnswers:
    """The answers to record: checkpoint answers by (unit, task), takeovers by (unit, task,
    generation)."""

    checkpoints: dict[tuple[str, str], CheckpointAnswer]
    takeovers: dict[tuple[str, str, str], TakeoverAnswer]


def task_answers(
    rows: RunRows,
    record: EngineRunRecord,
    plan: Plan,
    given: Sequence[tuple[str, str]],
    *,
    note: str,
    who: str,
) -> TaskAnswers:
    """The answers `given` ((`UNIT/TASK` or `TASK`, answer) pairs) as they will be recorded;
    `UsageError` naming the first that cannot be, and then nothing is recorded."""
    checkpoints: dict[tuple[str, str], CheckpointAnswer] = {}
    takeovers: dict[tuple[str, str, str], TakeoverAnswer] = {}
    generation = record.generation + 1  # the generation the answers start
    for key, answer in given:
        unit, task = _task(plan, key)
        named = AnswerKey(unit.id, task.id)
        if task.is_checkpoint:
            if answer not in CHECKPOINT_ANSWERS:
                raise UsageError(
                    f"--answer {key}={answer}: {named} is a checkpoint task: "
                    "answer approve or reject"
                )
            checkpoints[(unit.id, task.id)] = CheckpointAnswer(
                answer=answer, note=note, at=time.time(), who=who
            )
            continue
        if answer not in TAKEOVER_ANSWERS:
            raise UsageError(
                f"--answer {key}={answer}: to take over {named} answer approve "
                "(after fixing its branch by hand), skip or retry"
            )
        stopped = _stopped_unit(rows, plan, unit, task)
        head = _approved_head(record, stopped) if answer == "approve" else None
        takeovers[(unit.id, task.id, f"{generation:06d}")] = TakeoverAnswer(
            answer=answer, generation=generation, head=head, note=note, at=time.time(), who=who
        )
    return TaskAnswers(checkpoints, takeovers)


def _task(plan: Plan, key: str) -> tuple[Unit, Task]:
    try:
        named = AnswerKey.parse(key)
    except IdError:
        named = None  # no task has an id that does not read as a key
    matches = [(u, t) for u, t in plan.tasks() if named is not None and named.names(u.id, t.id)]
    if len(matches) != 1:
        what = "no task" if not matches else "more than one task"
        raise UsageError(f"--answer {key!r}: {what} has that id (use UNIT/TASK)")
    return matches[0]


def _stopped_unit(rows: RunRows, plan: Plan, unit: Unit, task: Task) -> UnitOutcome:
    """The unit's recorded outcome, when it stopped at `task` for a person, or ended with
    `task` set aside (escalated, and the unit went on without it: `aside`)."""
    phase = next(p for p in plan.phases if any(u.id == unit.id for u in p.units))
    found = rows.get(StateKind.UNIT, (phase.id, unit.id), UnitOutcome)
    last = found.tasks[-1] if found is not None and found.tasks else None
    if found is not None and _set_aside(found, task):
        return found
    if found is None or last is None or last.id != task.id or last.decision not in TAKEN_OVER:
        where = "has not run" if found is None else f"is {found.status}"
        at = f", at task {last.id} ({last.decision})" if last is not None else ""
        raise UsageError(
            f"--answer {AnswerKey(unit.id, task.id)}: the task does not wait for a person (unit "
            f"{unit.id} {where}{at}): only the task a unit stopped at can be taken over"
        )
    return found


def _set_aside(unit: UnitOutcome, task: Task) -> bool:
    """True when the unit ended (needs a person) with `task` escalated before its last task:
    set aside, answered at the unit's end."""
    ids = [t.id for t in unit.tasks]
    if unit.status != "needs_manual_review" or task.id not in ids[:-1]:
        return False
    return unit.tasks[ids.index(task.id)].decision == "needs_manual_review"


def _approved_head(record: EngineRunRecord, unit: UnitOutcome) -> str:
    """The commit a person approves (see the module docstring): for a unit that went on
    after a task set aside, its branch as they fixed it (the unit's head when untouched)."""
    recorded = unit.tasks[-1].head or unit.head
    tip = branch_tip(Path(record.repo), unit.branch) if unit.branch else None
    if tip is not None and tip != recorded:
        return tip
    workspace = Path(unit.worktree) if unit.worktree else None
    if workspace is not None and workspace.is_dir():
        dirty = uncommitted_paths(workspace, untracked=False)
        if dirty:
            raise UsageError(
                f"the workspace of unit {unit.id} ({workspace}) has uncommitted changes to "
                f"{', '.join(dirty[:10])}: commit them (on branch {unit.branch}) first"
            )
        head = head_commit(workspace)
        if head is not None and head != recorded:
            return head
    return recorded
