"""Run, phase and unit: the durable workflows above the task pipeline.

* `run_workflow` runs the selected phases in order and stops at the first phase boundary after
  which something is not merged (escalated, failed, waiting for a person) or the phase's
  verification did not pass.
* `phase_workflow` runs the phase's units in waves by `depends_on`: each unit of a wave is put
  on the queue (at most `--concurrency` run at once) on its own branch made from the
  integration branch at the start of the wave; each approved unit is merged `--no-ff` as soon
  as it and the units before it are done (while later ones still run), in plan order, exactly
  once. Dependants of a unit that did not merge are skipped with the
  reason; independent units go on. When every unit merged, the phase is verified on the
  integration branch (`_steps.phase_check`).
* `unit_workflow` makes the unit's work tree and runs its tasks in order, one implementer
  session resumed from task to task; a checkpoint task waits for a person's answer.

The integration branch moves only from the tip mergegate recorded: the run's workflow starts
from the tip the run was created at (generation 1, its input) or the one the previous
generation ended at (its recorded result), each phase hands on the tip its merges and
write-backs made (step outputs), and every move is a compare-and-swap from it (`advance_step`);
the branch is checked against it at the start of every wave and before a verification
(`tip_step`). A branch anyone else moved stops the run (`BranchMovedError`, exit 5).

A unit's workspace is used only as its step recorded it (`Runtime.adopt`): git there is held to
the `.git` directory mergegate made. One an agent tampered with (`WorkspaceError`) stops the
unit for a person (exit 5); its commits are not published.

Ids: `<run>/g<generation>/<phase>` and `<run>/g<generation>/<unit>` (a new generation starts
when `resume` continues a run that waited for a person); tasks keep `<run>/<unit>/<task>`
across generations, so finished tasks are never run again, and a later generation takes the
units an earlier one merged, and the phases it verified, from the run's state in its database
(`StateKind.PHASE`; the `phase.json` and `unit.json` files are copies for people).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mergegate.decisions import ExitCode
from mergegate.engine._context.outcomes import (
    Merged,
    PhaseArgs,
    PhaseOutcome,
    PhaseResult,
    RunArgs,
    RunResult,
    TaskArgs,
    TaskOutcome,
    UnitArgs,
    UnitOutcome,
    VerificationOutcome,
)
from mergegate.engine._context.plan_views import compute_waves, selected_phases
from mergegate.engine._context.runtime import Runtime, current
from mergegate.engine._flow.aside import (
    SetAside,
    dependency,
    not_run,
    sets_aside,
    task_files,
    unit_reason,
)
from mergegate.engine._flow.takeover import take_over
from mergegate.engine._flow.task_pipeline import task_workflow
from mergegate.engine._records.task_report import write_task_report
from mergegate.engine._records.unit_records import (
    write_conflict_package,
    write_phase_records,
    write_unit_records,
)
from mergegate.engine._steps.core import (
    AdvanceCall,
    MergeCall,
    adopt_step,
    advance_step,
    answer_step,
    clock_step,
    merge_step,
    publish_step,
    request_stop_step,
    retire_workspace_step,
    start_unit_step,
    tip_step,
)
from mergegate.engine._steps.phase_check import (
    PASSING,
    VerifyCall,
    gsd_summary_step,
    gsd_verification_step,
    outside_phase_dir,
    verify_step,
    write_outside_summary,
)
from mergegate.errors import UsageError
from mergegate.events import (
    Escalation,
    MergeResult,
    PhaseFinished,
    PhaseStarted,
    TaskFinished,
    TaskStarted,
    UnitEscalated,
    UnitFinished,
    UnitMerged,
    UnitSkipped,
    UnitStarted,
    VerificationEvent,
    Wave,
)
from mergegate.git import Workspace, WorkspaceError
from mergegate.ids import AnswerKey, EventKey, TrailerLine, WorkflowId, carrier_branch
from mergegate.plans import Phase, PlanFormat, Unit
from mergegate.store import (
    Queued,
    StateKind,
    child_id,
    enqueue,
    finished_result,
    step,
    wait_result,
    workflow,
)

__all__ = [
    "ALREADY_DONE",
    "PHASE_FILE",
    "phase_complete",
    "phase_workflow",
    "run_workflow",
    "satisfied",
    "unit_workflow",
]

ALREADY_DONE = "already completed"
_DONE = ("approved", "skipped")
"""Task decisions after which the unit goes on (a person skipped a task: recorded as such)."""
PHASE_FILE = "phase.json"


# ---------------------------------------------------------------- unit


def _checkpoint(rt: Runtime, unit: Unit, index: int) -> TaskOutcome:
    task = unit.tasks[index]
    base = TaskOutcome(id=task.id, number=index + 1, name=task.name, decision="waiting_for_human")
    answer = answer_step(unit.id, task.id)
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
                f"--answer {AnswerKey(unit.id, task.id)}=approve|reject",
                "exit_code": int(ExitCode.ESCALATED),
            }
        )
    said = f"{': ' + answer.note if answer.note else ''}"
    if answer.answer == "approve":
        return base.model_copy(
            update={
                "decision": "approved",
                "reason": f"approved by a person{said}",
                "answer": answer,
            }
        )
    return base.model_copy(
        update={
            "decision": "needs_manual_review",
            "reason": f"rejected by a person{said}",
            "answer": answer,
            "exit_code": int(ExitCode.ESCALATED),
        }
    )


def _unit_status(tasks: list[TaskOutcome]) -> tuple[str, str, int]:
    for task in tasks:
        if task.decision in _DONE:
            continue
        status = {
            "needs_manual_review": "needs_manual_review",
            "waiting_for_human": "waiting_for_human",
            "cancelled": "cancelled",
        }.get(task.decision, "failed")
        return status, f"{task.id}: {task.reason}", task.exit_code
    return "ready", "", 0


def _task_finished(rt: Runtime, phase_id: str, unit: Unit, outcome: TaskOutcome) -> None:
    """A task's end in the run's stream; an escalation when it goes to a person. A task's id
    is the same in every generation (a finished task is never run again); a checkpoint's end
    belongs to its generation (a person's answer ends it in a later one)."""
    task = unit.tasks[outcome.number - 1]
    # a person's answer ends it in this generation
    answered = task.is_checkpoint or outcome.answer is not None
    gen = rt.record.generation if answered else None
    where = {"phase": phase_id, "unit": unit.id, "task": task.id}
    rt.fact(
        TaskFinished,
        EventKey.of_task(unit.id, task.id, "task.finished", gen),
        **where,
        decision=outcome.decision,
        reason=outcome.reason,
        exit_code=outcome.exit_code,
        rounds=outcome.rounds,
    )
    if outcome.decision == "needs_manual_review":
        review = Path(outcome.reports[-1]) if outcome.reports else None
        if review is not None and (review / "escalation").is_dir():
            package = str(review / "escalation")
        else:
            package = str(rt.unit_dir(phase_id, unit.id) / "SUMMARY.md")
        rt.fact(
            Escalation,
            EventKey.of_task(unit.id, task.id, "escalation", gen),
            **where,
            scope="task",
            reason=outcome.reason or "needs a person",
            package=package,
        )


@dataclass
class _UnitTasks:
    """A unit's tasks in order, in its workspace: the head the next task starts from, the
    implementer session it resumes, and the tasks set aside (`aside`). Every field changes
    only from recorded results, so a replay walks the same path."""

    rt: Runtime
    phase_id: str
    unit: Unit
    out: UnitOutcome
    workspace: Workspace
    head: str = ""
    session: str | None = None
    aside: list[SetAside] = field(default_factory=list)

    def run(self) -> UnitOutcome:
        for index, task in enumerate(self.unit.tasks):
            waits = dependency(task, self.aside)
            if waits is not None:
                self.finished(not_run(task, index, waits))
                continue
            if not self.go_on(index, self.run_task(index)):
                break
        else:
            self.answer_set_aside()
            self.keep_trailing_work()
        status, reason, code = _unit_status(self.out.tasks)
        if status == "needs_manual_review":
            reason = unit_reason(self.out.tasks) or reason
        return self.out.model_copy(
            update={"status": status, "reason": reason, "exit_code": code, "head": self.head}
        )

    def go_on(self, index: int, outcome: TaskOutcome) -> bool:
        """Record a task's end; whether the unit goes on with its next task."""
        self.finished(outcome)
        if sets_aside(self.rt, outcome):
            self.set_aside(index, outcome)
            return True
        if outcome.head:  # an escalated task's commits too: published for the person
            self.head, self.session = outcome.head, outcome.session
        return outcome.decision in _DONE

    def run_task(self, index: int) -> TaskOutcome:
        """One task from `head`: its outcome, after any person's answers (a task that is set
        aside is answered at the unit's end instead)."""
        rt, unit, task = self.rt, self.unit, self.unit.tasks[index]
        rt.fact(
            TaskStarted,
            EventKey.of_task(unit.id, task.id, "task.started"),
            phase=self.phase_id,
            unit=unit.id,
            task=task.id,
            name=task.name,
            number=index + 1,
        )
        if task.is_checkpoint:
            return _checkpoint(rt, unit, index)
        if self.aside:
            # after a task was set aside the tree may stand elsewhere (its start; a replayed
            # task leaves it where it was): the next task starts from the unit's head
            adopt_step(self.out.worktree, self.head)
        with child_id(WorkflowId.task(rt.run_id, unit.id, task.id).format()):
            outcome = task_workflow(
                TaskArgs(
                    phase=self.phase_id,
                    unit=unit.id,
                    index=index,
                    start=self.head,
                    session=self.session,
                    worktree=self.out.worktree,
                    workspace=self.workspace,
                )
            )
        if not sets_aside(rt, outcome):
            outcome = self.answered(index, outcome)
        write_task_report(rt, self.phase_id, unit, outcome)
        return outcome

    def answered(self, index: int, outcome: TaskOutcome, at: str | None = None) -> TaskOutcome:
        return take_over(
            self.rt,
            self.phase_id,
            self.unit,
            index,
            outcome,
            worktree=self.out.worktree,
            workspace=self.workspace,
            at=at,
        )

    def finished(self, outcome: TaskOutcome) -> None:
        """A task's end: into the stream and the unit's records (replacing an earlier end of
        the same task: a set-aside task answered at the unit's end)."""
        _task_finished(self.rt, self.phase_id, self.unit, outcome)
        tasks = [t for t in self.out.tasks if t.number != outcome.number]
        self.out.tasks[:] = sorted([*tasks, outcome], key=lambda t: t.number)
        write_unit_records(self.rt, self.out)

    def set_aside(self, index: int, outcome: TaskOutcome) -> None:
        """The escalated task is set aside: the tree goes back to where the task started; the
        next task starts a fresh implementer session there (the session saw work that is
        gone)."""
        changed: list[str] = []
        if outcome.head and outcome.start and outcome.head != outcome.start:
            repo = self.rt.repository(self.out.worktree, self.unit.id)
            changed = repo.changed_files(outcome.start, outcome.head)
            adopt_step(self.out.worktree, outcome.start)
        files = task_files(self.unit.tasks[index]) | frozenset(changed)
        self.aside.append(SetAside(index, outcome, files))
        self.session = None
        self.rt.emit(
            "notice",
            f"{self.unit.id}: {outcome.id} set aside for a person ({outcome.reason}); "
            "the unit goes on",
            unit=self.unit.id,
            task=outcome.id,
        )

    def answer_set_aside(self) -> None:
        """At the unit's end: a person's answers to its set-aside tasks, on top of what the
        unit did without them; a task approved or skipped lets the tasks that waited for it
        run."""
        for item in list(self.aside):
            adopt_step(self.out.worktree, self.head)
            answered = self.answered(item.index, item.outcome, at=self.head)
            if answered == item.outcome:
                continue
            write_task_report(self.rt, self.phase_id, self.unit, answered)
            self.aside.remove(item)
            if self.go_on(item.index, answered):
                self.run_waiting()

    def keep_trailing_work(self) -> None:
        """When nothing was done after the last task set aside, the unit's branch keeps that
        task's commits for the person (as a unit that stops at an escalated task does)."""
        if not self.aside:
            return
        last = self.aside[-1].outcome
        if last.head and last.start == self.head:
            self.head = last.head

    def run_waiting(self) -> None:
        """The tasks not run because they waited for a set-aside task that is resolved now,
        in order, from the unit's head."""
        waiting = [t.number - 1 for t in self.out.tasks if t.decision == "not_run"]
        for index in waiting:
            if dependency(self.unit.tasks[index], self.aside) is not None:
                continue
            if not self.go_on(index, self.run_task(index)):
                return


def _run_tasks(
    rt: Runtime, phase_id: str, unit: Unit, out: UnitOutcome, workspace: Workspace
) -> UnitOutcome:
    return _UnitTasks(rt, phase_id, unit, out, workspace, head=out.head).run()


@workflow("mergegate.unit")
def unit_workflow(args: UnitArgs) -> UnitOutcome:
    """Run one unit's tasks in its own work tree; its `UnitOutcome` (status `ready` when every
    task was approved: the phase merges it)."""
    rt = current()
    phase_id, unit = args.phase, rt.unit(args.phase, args.unit)
    out = UnitOutcome(id=unit.id, phase=phase_id, status="running", branch=rt.unit_branch(unit.id))
    gen = rt.record.generation
    path = rt.unit_worktree(unit.id)
    start = start_unit_step(str(rt.repo), str(path), out.branch, args.base)
    why, made = start.stopped, start.made
    if made is None:
        out = out.model_copy(update={"status": "skipped", "reason": f"not started: {why}"})
        rt.fact(
            UnitSkipped,
            EventKey.of_unit(gen, unit.id, "unit.skipped"),
            phase=phase_id,
            unit=unit.id,
            reason=out.reason,
        )
        write_unit_records(rt, out)
        return out
    head = made.head
    rt.adopt(made.workspace)
    gsd = rt.plan.format is PlanFormat.GSD
    out = out.model_copy(
        update={
            "worktree": str(path),
            "base": head,
            "head": head,
            "started": clock_step() if gsd else None,
        }
    )
    write_unit_records(rt, out)
    rt.emit("unit", f"{unit.id}: started in {path}", unit=unit.id, phase=phase_id, step="start")
    rt.fact(
        UnitStarted,
        EventKey.of_unit(gen, unit.id, "unit.started"),
        phase=phase_id,
        unit=unit.id,
        name=unit.name,
        branch=out.branch,
        worktree=str(path),
    )
    try:
        out = _run_tasks(rt, phase_id, unit, out, made.workspace)
        if gsd and out.status in ("ready", "needs_manual_review"):
            out = out.model_copy(update={"finished": clock_step()})
            written = gsd_summary_step(phase_id, unit.id, out)
            out = out.model_copy(update={"head": written or out.head})
        _publish(rt, out)
    except WorkspaceError as exc:
        out = _tampered(rt, phase_id, out, exc)
    if rt.remote is not None and out.worktree:
        # across hosts the unit's work is on the remote now (its branch), and only this
        # worker would ever find its workspace here again: removed, with its progress branch
        retire_workspace_step(out.worktree, out.branch)
    if out.status == "needs_manual_review" and rt.options.on_escalation == "stop":
        request_stop_step(f"on_escalation = stop: unit {unit.id} escalated ({out.reason})")
    write_unit_records(rt, out)
    return out


def _tampered(rt: Runtime, phase_id: str, out: UnitOutcome, exc: WorkspaceError) -> UnitOutcome:
    """A unit whose workspace an agent made into something else than the directory
    mergegate made (its `.git` swapped, a gitfile, a symlink): mergegate ran no git there.
    The unit goes to a person with the reason; nothing of it is published or merged."""
    reason = str(exc)
    rt.fact(
        Escalation,
        EventKey.of_unit(rt.record.generation, out.id, "escalation"),
        phase=phase_id,
        unit=out.id,
        scope="unit",
        reason=reason,
        package=out.worktree,
    )
    return out.model_copy(
        update={
            "status": "needs_manual_review",
            "reason": reason,
            "exit_code": int(ExitCode.ESCALATED),
            "escalation": out.worktree,
        }
    )


# ---------------------------------------------------------------- phase


def satisfied(out: UnitOutcome) -> bool:
    """Merged, or done before this run (dependants may go on)."""
    return out.status == "merged" or (
        out.status == "skipped" and out.reason.startswith(ALREADY_DONE)
    )


def _blocked_by(unit: Unit, done: dict[str, UnitOutcome]) -> str | None:
    for dep in unit.depends_on:
        found = done.get(dep)
        if found is not None and not satisfied(found):
            return f"skipped: depends on {dep}, which is {found.status}"
    return None


def _start_wave(
    rt: Runtime,
    phase: Phase,
    wave: list[Unit],
    done: dict[str, UnitOutcome],
    gen: int,
    *,
    tip: str,
) -> list[tuple[Unit, Queued[UnitOutcome]]]:
    waiting = [u for u in wave if u.id not in done]
    if not waiting:
        return []
    tip = tip_step(str(rt.repo), rt.record.into, tip)
    handles = []
    for unit in waiting:
        skip = None
        if unit.completed:
            skip = f"{ALREADY_DONE} (the plan's own record says so)"
        elif (blocked := _blocked_by(unit, done)) is not None:
            skip = blocked
        if skip is not None:
            done[unit.id] = UnitOutcome(id=unit.id, phase=phase.id, status="skipped", reason=skip)
            rt.fact(
                UnitSkipped,
                EventKey.of_unit(gen, unit.id, "unit.skipped"),
                phase=phase.id,
                unit=unit.id,
                reason=skip,
            )
            write_unit_records(rt, done[unit.id])
            continue
        args = UnitArgs(phase=phase.id, unit=unit.id, base=tip)
        wf_id = WorkflowId.generation_child(rt.run_id, gen, unit.id).format()
        handles.append((unit, enqueue(unit_workflow, wf_id, args)))
    return handles


@step("mergegate.outside_summary")
def outside_summary_step(phase_id: str, unit_id: str, outcome: UnitOutcome) -> None:
    rt = current()
    write_outside_summary(rt, rt.phase(phase_id), rt.unit(phase_id, unit_id), outcome)


def _carrier(rt: Runtime, name: str) -> str:
    """Across hosts, the remote branch a prepared commit waits on until it is published."""
    return carrier_branch(rt.run_id, name)


def _advance(
    rt: Runtime, tip: str, new: str, reason: str, carrier: str, *, workspace: str | None = None
) -> bool:
    """The integration branch moved from the recorded `tip` to `new` (compare and swap), then
    a merged unit's `workspace` removed."""
    call = AdvanceCall(
        repo=str(rt.repo),
        into=rt.record.into,
        expected=tip,
        new=new,
        reason=reason,
        carrier=carrier,
        workspace=workspace,
    )
    return advance_step(call)


def _merge(
    rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome, tip: str
) -> tuple[UnitOutcome, str]:
    """Merge the unit's recorded head into the recorded integration tip `tip`: the unit's
    outcome, and the integration tip after it."""
    rt.emit(
        "merge",
        f"{unit.id}: merging into {rt.record.into}",
        unit=unit.id,
        phase=phase.id,
        step="merge",
    )
    key = TrailerLine.unit(rt.run_id, unit.id).format()
    message = f"Merge unit {unit.id}{': ' + unit.name if unit.name else ''} ({phase.id})"
    carrier = _carrier(rt, unit.id)
    merged = merge_step(
        MergeCall(
            repo=str(rt.repo),
            ours=tip,
            theirs=out.head,
            message=message,
            key=key,
            branch=out.branch,
            carrier=carrier,
        )
    )
    if not merged.conflicts and merged.commit is not None:
        moved = _advance(rt, tip, merged.commit, key, carrier, workspace=out.worktree)
        merged = merged.model_copy(update={"already": not moved})
    _merged_fact(rt, phase, unit, out, merged)
    if merged.conflicts or merged.commit is None:
        folder = write_conflict_package(rt, phase.id, unit, merged)
        reason = (
            f"merge conflict with {rt.record.into} in {len(merged.conflicts)} path(s): "
            + ", ".join(merged.conflicts[:5])
        )
        rt.fact(
            Escalation,
            EventKey.of_unit(rt.record.generation, unit.id, "escalation"),
            phase=phase.id,
            unit=unit.id,
            scope="unit",
            reason=reason,
            package=str(folder),
        )
        escalated = out.model_copy(
            update={
                "status": "needs_manual_review",
                "reason": reason,
                "exit_code": int(ExitCode.ESCALATED),
                "escalation": str(folder),
            }
        )
        return escalated, tip
    merged_out = out.model_copy(update={"status": "merged", "merge_commit": merged.commit})
    if outside_phase_dir(rt, phase) is not None:
        outside_summary_step(phase.id, unit.id, merged_out)
    return merged_out, merged.commit


def _merged_fact(rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome, merged: Merged) -> None:
    """A merge step's result in the run's stream (one per unit and generation)."""
    where = {"phase": phase.id, "unit": unit.id}
    gen = rt.record.generation
    outcome = "conflict" if merged.conflicts else "already" if merged.already else "merged"
    rt.fact(
        MergeResult,
        EventKey.of_unit(gen, unit.id, "merge"),
        **where,
        into=rt.record.into,
        branch=out.branch,
        commit=merged.commit or "",
        outcome=outcome,
        conflicts=tuple(merged.conflicts),
    )
    if outcome != "conflict":
        commit = merged.commit or ""
        merged_key = EventKey.of_unit(gen, unit.id, "unit.merged")
        rt.fact(UnitMerged, merged_key, **where, into=rt.record.into, commit=commit)


def _unit_finished(rt: Runtime, out: UnitOutcome) -> None:
    """A unit's end (merged, escalated, failed, skipped, …) in the run's stream."""
    where = {"phase": out.phase, "unit": out.id}
    gen = rt.record.generation
    rt.fact(
        UnitFinished,
        EventKey.of_unit(gen, out.id, "unit.finished"),
        **where,
        status=out.status,
        reason=out.reason,
        exit_code=out.exit_code,
    )
    if out.status == "needs_manual_review":
        package = out.escalation or str(rt.unit_dir(out.phase, out.id) / "SUMMARY.md")
        key = EventKey.of_unit(gen, out.id, "unit.escalated")
        rt.fact(UnitEscalated, key, **where, reason=out.reason, package=package)


def _publish(rt: Runtime, out: UnitOutcome) -> None:
    """A finished unit's commits into the user's repository, on its branch: the approved ones
    to merge, an escalated unit's for the person who looks at it. Reviewers still running in
    other workspaces are not disturbed: their read-only check covers their own workspace."""
    if out.worktree and out.head and out.base and out.head != out.base:
        publish_step(str(rt.repo), out.worktree, out.branch, out.head, out.base)


@step("mergegate.prior")
def prior_step(phase_id: str) -> PhaseOutcome | None:
    """What an earlier generation of the run recorded for this phase (None: nothing yet),
    from the run's database (never from the copy in its folder)."""
    return current().rows.get(StateKind.PHASE, (phase_id,), PhaseOutcome)


def _record_phase(rt: Runtime, result: PhaseOutcome) -> None:
    """The phase's state into the run's database, and its copy for people (`phase.json`)."""
    write_phase_records(rt, result, rt.layout.phase(result.id) / PHASE_FILE)


def _verify(
    rt: Runtime, phase: Phase, base: str, gen: int, units: list[UnitOutcome], *, tip: str
) -> tuple[VerificationOutcome, str]:
    """Verify the phase on the recorded integration tip `tip` (the branch checked to be
    there first); the verification, and the tip after the GSD write-back (if any)."""
    tip = tip_step(str(rt.repo), rt.record.into, tip)
    rt.emit("phase", f"phase {phase.id}: verifying on {rt.record.into}", phase=phase.id)
    done = [u.id for u in units if satisfied(u)]
    found = verify_step(
        VerifyCall(phase=phase.id, generation=gen, tip=tip, base=base, completed=done)
    )
    counts = found.counts
    rt.fact(
        VerificationEvent,
        EventKey.of_phase(gen, phase.id, "verification"),
        phase=phase.id,
        status=found.status,
        reason=found.reason,
        verifier_status=found.verifier,
        **{k: int(counts.get(k) or 0) for k in _COUNTS},
    )
    if rt.plan.format is PlanFormat.GSD:
        carrier = _carrier(rt, f"{phase.id}-verification")
        written = gsd_verification_step(phase.id, gen, tip, carrier)
        if written is not None:
            _advance(rt, tip, written, f"verification of {phase.id}", carrier)
            tip = written
    rt.emit(
        "phase",
        f"phase {phase.id}: verification {found.status} ({found.reason}); report: {found.report}",
        phase=phase.id,
    )
    return found, tip


_COUNTS = ("criteria", "passed", "failed", "uncertain", "unverified", "checks_run")


def _units(
    rt: Runtime, phase: Phase, gen: int, earlier: PhaseOutcome | None, tip: str
) -> tuple[dict[str, UnitOutcome], str]:
    """The phase's units run and merged wave by wave from the recorded integration tip
    `tip`; their outcomes, and the tip after the last merge."""
    done = {u.id: u for u in (earlier.units if earlier else []) if satisfied(u)}
    for number, wave in enumerate(compute_waves(phase), start=1):
        rt.emit(
            "wave",
            f"phase {phase.id}, wave {number}: {', '.join(u.id for u in wave)}",
            phase=phase.id,
        )
        fresh = [u for u in wave if u.id not in done]  # an earlier generation's are done
        if fresh:
            ids = tuple(u.id for u in fresh)
            rt.fact(
                Wave,
                EventKey.of_phase(gen, phase.id, f"wave-{number}"),
                phase=phase.id,
                number=number,
                units=ids,
            )
        running = {u.id: h for u, h in _start_wave(rt, phase, wave, done, gen, tip=tip)}
        for unit in wave:
            # each unit merged as soon as it and the units before it are done, while the later
            # ones still run: the merges (one at a time, in plan order, from the recorded tip)
            # no longer wait for the wave's slowest unit, nor queue up behind it
            if unit.id in running:
                done[unit.id] = wait_result(running[unit.id])
            out = done[unit.id]
            if out.status == "ready":
                done[unit.id], tip = _merge(rt, phase, unit, out, tip)
                write_unit_records(rt, done[unit.id])
        for unit in wave:
            # after the whole wave, as before: a stop asked for here never skips a unit of it
            if done[unit.id].status == "needs_manual_review" and rt.options.on_escalation == "stop":
                request_stop_step(f"on_escalation = stop: unit {unit.id} escalated")
        for unit in fresh:
            _unit_finished(rt, done[unit.id])
    return done, tip


@workflow("mergegate.phase")
def phase_workflow(args: PhaseArgs) -> PhaseResult:
    """Run one phase's units in waves from the recorded integration tip `args.tip`, merge
    them, verify the phase: its units, its verification (None when not run) and the
    integration tip after the phase."""
    rt = current()
    phase, gen, tip = rt.phase(args.phase), args.generation, args.tip
    earlier = prior_step(phase.id) if gen > 1 else None
    verified = earlier.verification if earlier is not None else None
    if earlier is not None and verified is not None and verified.status in PASSING:
        # merged and verified by an earlier generation of this run
        return PhaseResult(**dict(earlier), tip=tip)
    base = (earlier.base if earlier else "") or tip
    started = earlier or PhaseOutcome(id=phase.id)
    _record_phase(rt, started.model_copy(update={"id": phase.id, "base": base}))
    done, tip = _units(rt, phase, gen, earlier, tip)
    units = [done[u.id] for u in phase.units]
    ran = any(u.status == "merged" for u in units)
    verification = None
    if ran and all(satisfied(u) for u in units):
        verification, tip = _verify(rt, phase, base, gen, units, tip=tip)
    result = PhaseOutcome(id=phase.id, base=base, units=units, verification=verification)
    _record_phase(rt, result)
    return PhaseResult(**dict(result), tip=tip)


# ---------------------------------------------------------------- run


def phase_complete(result: PhaseOutcome) -> bool:
    """Every unit merged (or done before), and the verification passed if it ran."""
    if not all(satisfied(u) for u in result.units):
        return False
    return result.verification is None or result.verification.status in PASSING


def _start_tip(rt: Runtime, args: RunArgs) -> str:
    """The integration tip a generation starts from, as recorded: the run's first generation
    gets it as its input (the tip the run was created at); a later one takes the tip the
    previous generation ended at from that generation's recorded result."""
    gen = args.generation
    if gen == 1:
        return args.tip
    earlier = finished_result(WorkflowId.run(rt.run_id, gen - 1).format(), run_workflow)
    if earlier is None or not earlier.tip:
        raise UsageError(
            f"run {rt.run_id}: generation {gen - 1} recorded no integration tip (a run of an "
            "older mergegate): start a new run"
        )
    return earlier.tip


@workflow("mergegate.run")
def run_workflow(args: RunArgs) -> RunResult:
    """Run the plan's (selected) phases in order from the recorded integration tip (see
    `_start_tip`): the phases that ran and the tip they left."""
    rt = current()
    gen = args.generation
    tip = _start_tip(rt, args)
    results = []
    for phase in selected_phases(rt.plan, rt.options.phase):
        rt.emit("phase", f"phase {phase.id} {phase.name}".rstrip(), phase=phase.id)
        started = EventKey.of_phase(gen, phase.id, "phase.started")
        rt.fact(PhaseStarted, started, phase=phase.id, name=phase.name)
        with child_id(WorkflowId.generation_child(rt.run_id, gen, phase.id).format()):
            result = phase_workflow(PhaseArgs(phase=phase.id, generation=gen, tip=tip))
        tip = result.tip
        results.append(result)
        complete = phase_complete(result)
        status = "completed" if complete else "incomplete"
        finished = EventKey.of_phase(gen, phase.id, "phase.finished")
        rt.fact(PhaseFinished, finished, phase=phase.id, status=status)
        if not complete:
            rt.emit("run", f"stopping at the end of phase {phase.id}")
            break
    return RunResult(phases=results, tip=tip)
