"""Tasks set aside: an escalated task is skipped, and its unit goes on (seeds 003 and 004).

With `run.on_escalation = "skip"` (the default), a task that ends `needs_manual_review` — its
revisions exhausted, a stall, a help request nobody could answer — is recorded as such and
**set aside**: the unit's workspace goes back to the task's start (its commits stay in the
record, at the task's head, for the person), and the unit goes on with its next task. A later
task that depends on it — declared (`extra.depends_on` naming it) or through its files (a file
the later task names that the set-aside task named or changed) — is not run (`not_run`, with
the reason). The unit stops at its own end, the plan boundary: it is not merged, and its
`SUMMARY.md` says what was set aside and why.

A person's answer to a set-aside task (`resume --answer UNIT/TASK=approve|skip|retry`)
applies at the unit's end, on top of what the unit did without it (`take_over(at=...)`):
`retry` runs it again there, `approve` takes the unit's branch as they fixed it, `skip`
drops it for good; once it is approved or skipped, the tasks that waited for it run.

`on_escalation = "continue"` (the unit stops at the escalated task, other units go on) and
`"stop"` (no agent starts after the first escalation) keep the earlier behaviours.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mergegate.decisions import ExitCode
from mergegate.engine._context.outcomes import TaskOutcome
from mergegate.engine._context.runtime import Runtime
from mergegate.plans import Task

__all__ = ["SetAside", "dependency", "not_run", "sets_aside", "task_files", "unit_reason"]

_MAX_SHOWN = 5


@dataclass(frozen=True)
class SetAside:
    """A task set aside in this unit: its outcome and the files it named or changed."""

    index: int
    outcome: TaskOutcome
    files: frozenset[str]


def sets_aside(rt: Runtime, outcome: TaskOutcome) -> bool:
    """True when this task's end sets it aside (the unit goes on without it): it escalated,
    not because the run itself is stopping (a budget spent)."""
    return (
        outcome.decision == "needs_manual_review"
        and not outcome.stopped
        and rt.options.on_escalation == "skip"
    )


def task_files(task: Task) -> frozenset[str]:
    """The files a task names (its `files` and its file changes' paths)."""
    changes = (c.path for c in task.file_changes)
    return frozenset(p.strip() for p in (*task.files, *changes) if p and p.strip())


def declared_dependencies(task: Task) -> frozenset[str]:
    """The task ids a task declares it depends on (`extra.depends_on`: an id or a list)."""
    raw = task.extra.get("depends_on")
    found: Iterable[object] = raw if isinstance(raw, list) else [raw] if raw else []
    return frozenset(str(x).strip() for x in found if isinstance(x, str | int) and str(x).strip())


def dependency(task: Task, aside: Iterable[SetAside]) -> str | None:
    """Why `task` waits for a task set aside before it, or None when it does not."""
    declared = declared_dependencies(task)
    named = task_files(task)
    for item in aside:
        if item.outcome.id in declared:
            return f"depends on {item.outcome.id} (declared), which was set aside for a person"
        shared = sorted(named & item.files)
        if shared:
            listed = ", ".join(shared[:_MAX_SHOWN]) + (" …" if len(shared) > _MAX_SHOWN else "")
            return (
                f"depends on {item.outcome.id} through its files ({listed}), which was set "
                "aside for a person"
            )
    return None


def not_run(task: Task, index: int, why: str) -> TaskOutcome:
    """The outcome of a task that waits for a set-aside task."""
    return TaskOutcome(
        id=task.id,
        number=index + 1,
        name=task.name,
        decision="not_run",
        reason=f"not run: {why}",
        exit_code=int(ExitCode.ESCALATED),
    )


def unit_reason(tasks: list[TaskOutcome]) -> str | None:
    """The unit's reason when tasks were set aside: which, why, and what it did without them;
    None when nothing was."""
    aside = [t for t in tasks if t.decision == "needs_manual_review"]
    if not aside:
        return None
    parts = [f"{t.id} set aside: {t.reason}" for t in aside]
    waiting = [t.id for t in tasks if t.decision == "not_run"]
    if waiting:
        parts.append(f"not run (they depend on it): {', '.join(waiting)}")
    done = [t.id for t in tasks if t.decision in ("approved", "skipped")]
    parts.append(f"the unit went on: {', '.join(done) or 'no other task'} done")
    return "; ".join(parts)
