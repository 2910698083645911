"""Verification at every phase boundary, and the write-back of GSD's own reports.

After a phase's units merged, `verify_step` runs `mergegate.verify.verify_phase` on the
integration branch's tip, in a throwaway checkout of it (plan commands and the verifier agent
never reach the user's work tree or `.git`). Its answers, and a person's acceptance of its gaps,
come from the run's database, where only the CLI writes them (`resume --answer`, and `verify
PLAN --answer` for the runs of that plan, see `record_plan_answers`); its result is recorded
there too (`StateKind.VERIFICATION`: what `resume --answer` answers, and what the GSD report is
written from). A phase whose status is not `passed` (or `complete_with_gaps`, after a person
accepted the gaps) stops the run before the next phase.

GSD write-back (for a GSD `.planning` plan): a unit's `<NN>-<MM>-SUMMARY.md` is committed on
the unit's branch before it merges, and the phase's `<NN>-VERIFICATION.md` is committed on the
integration branch after its verification — into the tree the reports describe, not into the
user's working copy. GSD counts a unit with a SUMMARY.md as done; written into a working copy
that does not hold the unit's code, it would make the next GSD (or mergegate) run skip work
that is not there. On the branches, the reports arrive exactly when the code does. A plan that
lives outside the repository gets its reports in its own directory, for merged units only.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.atomic_files import write_atomic
from mergegate.config import PhaseDir, RunLayout
from mergegate.engine._context.outcomes import UnitOutcome, VerificationOutcome
from mergegate.engine._context.plan_views import report_stem
from mergegate.engine._context.runtime import EngineRunRecord, Runtime, current, working_on
from mergegate.engine._records.task_report import render_task_report
from mergegate.engine._steps.check_logs import record_check_logs
from mergegate.engine._steps.core import keep_lost_attempt
from mergegate.git import (
    GitRepository,
    add_workspace,
    commit_with_key,
    publish,
    remove_tree,
    reset_clean,
    throwaway_checkout,
)
from mergegate.ids import TrailerLine, phase_check_run_id
from mergegate.plans import (
    Phase,
    Plan,
    PlanFormat,
    TaskRecord,
    Unit,
    UnitSummary,
    write_phase_reports,
)
from mergegate.store import RecordKind, RunRows, RunStore, StateKind, step
from mergegate.untrusted import md_text
from mergegate.verify import (
    Answer,
    GapAcceptance,
    PlanPathError,
    VerificationResult,
    VerifyOptions,
    phase_state_dir,
    render_markdown,
    reverify,
    verify_phase,
)

__all__ = [
    "PASSING",
    "VerifyCall",
    "accepted_gaps",
    "answers_ledger",
    "criterion_answers",
    "gsd_summary_step",
    "gsd_verification_step",
    "latest_verification",
    "record_criterion_answers",
    "verification_dir",
    "verify_step",
]

PASSING = ("passed", "complete_with_gaps")
"""Verification statuses after which the next phase may start."""


def answers_ledger(store: RunStore, record: EngineRunRecord, phase_id: str) -> Path:
    """The ledger of `mergegate verify PLAN` for the run's plan: where a copy of each of the
    run's verifications is put, so `verify PLAN --answer` finds the criteria it answers
    (answers to the run itself are rows of its database, `record_criterion_answers`)."""
    if record.plan_path:
        state = store.layout.root
        return PhaseDir(phase_state_dir(state, Path(record.plan_path), phase_id)).answers
    return PhaseDir(RunLayout(store.run_dir(record.run_id)).phase(phase_id)).answers


def verification_dir(run_dir: Path, phase_id: str, generation: int) -> Path:
    return RunLayout(run_dir).verification(phase_id, generation)


def accepted_gaps(rows: RunRows, phase_id: str) -> GapAcceptance | None:
    """A person's acceptance of the phase's gaps (`resume --accept-gaps`), if any."""
    return rows.get(StateKind.GAPS, (phase_id,), GapAcceptance)


def criterion_answers(rows: RunRows, phase_id: str) -> list[Answer]:
    """A person's answers to the phase's criteria, oldest first."""
    return [a for _, a in rows.items(StateKind.CRITERION_ANSWER, Answer, prefix=(phase_id,))]


def record_criterion_answers(rows: RunRows, phase_id: str, answers: list[Answer]) -> None:
    """Answers to the phase's criteria, after those already given (the last one about a
    criterion decides)."""
    for number, answer in enumerate(answers):
        key = (phase_id, f"{time.time_ns():020d}-{number:04d}", answer.criterion_id)
        rows.put(StateKind.CRITERION_ANSWER, key, answer, replace=False)


def latest_verification(rows: RunRows, phase_id: str) -> VerificationResult | None:
    """The phase's last verification result (of the latest generation that verified it)."""
    found = rows.items(StateKind.VERIFICATION, VerificationResult, prefix=(phase_id,))
    return found[-1][1] if found else None


def _options(rt: Runtime, phase_id: str, base: str, generation: int) -> VerifyOptions:
    review = rt.options.review
    return VerifyOptions(
        command_timeout_s=rt.options.check_timeout_s,
        base=base,
        verifier_timeout_s=review.timeout_s,
        verifier_stall_timeout_s=review.stall_timeout_s,
        answers=tuple(criterion_answers(rt.rows, phase_id)),
        acceptance=accepted_gaps(rt.rows, phase_id),
        run_id=phase_check_run_id(rt.run_id, phase_id, generation),
    )


def _with_completed(plan: Plan, phase_id: str, done: set[str]) -> Plan:
    """The plan with the units this run merged recorded as complete (verification warns
    about units that are not: their artifacts may not exist yet)."""
    phases = tuple(
        p.model_copy(
            update={
                "units": tuple(
                    u.model_copy(update={"completed": True}) if u.id in done else u for u in p.units
                )
            }
        )
        if p.id == phase_id
        else p
        for p in plan.phases
    )
    return plan.model_copy(update={"phases": phases})


class VerifyCall(BaseModel):
    """A phase's verification as its step takes it: the phase, the generation, the
    integration tip to verify, the phase's `base` (its diff starts there) and the units
    `completed` (merged, or done before)."""

    model_config = ConfigDict(extra="forbid")

    phase: str
    generation: int
    tip: str
    base: str
    completed: list[str]


@step("mergegate.verify")
def verify_step(call: VerifyCall) -> VerificationOutcome:
    """Verify phase `call.phase` on the integration tip `call.tip` (the phase's diff from
    `call.base`): its status, reason, report, questions and counts."""
    with working_on(call.phase):
        return _verify(current(), call)


def _verify(rt: Runtime, call: VerifyCall) -> VerificationOutcome:
    phase_id, generation = call.phase, call.generation
    folder = verification_dir(rt.run_dir, phase_id, generation)
    keep_lost_attempt(folder)  # a verification lost in a crash: kept, and run again
    where = rt.checkouts / f"verify-{phase_id}"
    remove_tree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    verifier = None
    if rt.verifier is not None:
        verifier = rt.metered(rt.verifier, None, role="verifier", record=True)
    options = _options(rt, phase_id, call.base, generation)
    plan = _with_completed(rt.plan, phase_id, set(call.completed))
    if rt.remote is not None:
        rt.remote.ensure_commit(call.tip, rt.record.into)
    try:
        with throwaway_checkout(rt.repo, call.tip, where) as tree:
            options = replace(options, sandbox=rt.check_sandbox(tree))  # the phase's commands
            result = verify_phase(
                plan, phase_id, tree, run_dir=folder, verifier=verifier, options=options
            )
    except PlanPathError as exc:
        return _refused(exc)
    key = (phase_id, f"g{generation:04d}")
    # the result, and the report every host with the database URL reads (the folder's copy
    # stays here)
    markdown = render_markdown(result)
    rt.rows.put_with_record(StateKind.VERIFICATION, RecordKind.VERIFICATION, key, result, markdown)
    # the output of its failing checks, for a host without this folder (report, logs)
    record_check_logs(rt.rows, rt.run_dir, folder, result, rt.config.engine.log_store)
    if rt.record.plan_path:
        # where `mergegate verify PLAN --answer` looks for the result it answers
        copy = PhaseDir(answers_ledger(rt.store, rt.record, phase_id).parent).run(result.run_id)
        keep_lost_attempt(copy)  # a copy a step lost in a crash had written
        reverify(result, run_dir=copy, run_id=result.run_id)
    return VerificationOutcome(
        status=result.status.value,
        reason=result.reason,
        report=str(folder / "VERIFICATION.md"),
        questions=[c.id for c in result.questions],
        counts=result.counts.model_dump(mode="json"),
        verifier=result.verifier.status if result.verifier is not None else "",
    )


def _refused(exc: PlanPathError) -> VerificationOutcome:
    """A verification `verify_phase` refused before running anything: a path the plan names
    leads out of the tree — in a run, through a symlink an agent committed (the plan's own
    paths were checked before the run). The phase is not verified: a person looks."""
    return VerificationOutcome(status="gaps_found", reason=f"not verified: {exc}")


# ---------------------------------------------------------------- GSD write-back


def gsd_phase_dir(rt: Runtime, phase: Phase, tree: Path) -> Path | None:
    """The phase's GSD directory inside `tree` (a checkout of the repository), or None when
    the plan is not GSD, the phase has no directory, or the plan is not in the repository."""
    if rt.plan.format is not PlanFormat.GSD or not phase.directory or not rt.record.plan_root:
        return None
    try:
        inside = Path(rt.record.plan_root).resolve().relative_to(Path(rt.record.repo).resolve())
    except ValueError:
        return None
    return tree / inside / phase.directory


def outside_phase_dir(rt: Runtime, phase: Phase) -> Path | None:
    """The phase's GSD directory on disk when the plan lives outside the repository."""
    if rt.plan.format is not PlanFormat.GSD or not phase.directory or not rt.record.plan_root:
        return None
    root = Path(rt.record.plan_root).resolve()
    if root.is_relative_to(Path(rt.record.repo).resolve()):
        return None
    return root / phase.directory


def unit_summary(rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome) -> UnitSummary:
    """GSD's SUMMARY.md values for a unit the run finished (merged, or escalated)."""
    tasks = tuple(TaskRecord(name=t.name or t.id, commit=t.commit) for t in out.tasks)
    unresolved = tuple(
        f"Task {md_text(t.id, 300)} ({t.decision}): {md_text(t.reason, 300)}"
        + "".join(
            f"; [{md_text(f.finding.severity.value, 20)}] {md_text(f.finding.title, 200)}"
            for f in t.open_findings
        )
        for t in out.tasks
        if t.decision not in ("approved", "waiting_for_human")
    )
    # across hosts the workspace may be on another worker (or gone): the mirror has the
    # unit's commits (published, or fetched by the merge)
    repo = GitRepository(rt.repo) if rt.remote else rt.repository(out.worktree, unit.id)
    first = out.tasks[0].start if out.tasks and out.tasks[0].start else out.head
    files = tuple(repo.changed_files(first, out.head)) if first and out.head else ()
    merged = not unresolved
    return UnitSummary(
        phase=Path(phase.directory or phase.id).name,
        plan=unit.id.split("-", 1)[1] if "-" in unit.id else unit.id,
        one_liner=unit.name or unit.objective or f"unit {unit.id}",
        completed=datetime.fromtimestamp(out.finished or 0, UTC),
        started=datetime.fromtimestamp(out.started, UTC) if out.started else None,
        files_modified=files,
        requirements_completed=unit.requirements if merged else (),
        tasks=tasks,
        issues=(f"escalated: {md_text(out.reason, 300)}",) if not merged else (),
        unresolved=unresolved,
    )


@step("mergegate.gsd_summary", retries=2)
def gsd_summary_step(phase_id: str, unit_id: str, outcome: UnitOutcome) -> str | None:
    """Write the unit's GSD SUMMARY.md and commit it on the unit's recorded head (a retry
    makes the same tree on the same parent); the new head, or None when the plan has no
    place for it. Its content follows
    from the recorded outcome alone, so writing it again changes nothing."""
    rt = current()
    phase, unit = rt.phase(phase_id), rt.unit(phase_id, unit_id)
    out = outcome
    workspace = rt.workspace(out.worktree)
    target = gsd_phase_dir(rt, phase, workspace.root)
    if target is None:
        return None
    summary = unit_summary(rt, phase, unit, out)
    write_phase_reports(target, phase, summaries=[(unit, summary)], replace=True)
    write_review_reports(rt, phase, unit, out, target)
    key = TrailerLine.summary(rt.run_id, unit.id).format()
    message = f"docs({unit.id}): summary of the unit ({out.status})"
    sha = commit_with_key(workspace, message, key, onto=out.head)
    rt.checkpoint(workspace.root)
    return sha


def write_outside_summary(rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome) -> None:
    """A merged unit's SUMMARY.md beside a plan that lives outside the repository (never over
    an existing file)."""
    target = outside_phase_dir(rt, phase)
    if target is not None and target.is_dir():
        write_phase_reports(target, phase, summaries=[(unit, unit_summary(rt, phase, unit, out))])
        write_review_reports(rt, phase, unit, out, target, replace=False)


def write_review_reports(
    rt: Runtime, phase: Phase, unit: Unit, out: UnitOutcome, target: Path, *, replace: bool = True
) -> None:
    """Each reviewed task's report (seed 004: `<phase>/<plan>-REVIEW-T<n>.md`, the audit
    trail in the phase's own directory) beside the unit's SUMMARY.md; `replace` false keeps a
    file already there."""
    for task in out.tasks:
        if not task.reports:
            continue
        path = target / f"{report_stem(phase, unit, task.number)}.md"
        if replace or not path.exists():
            write_atomic(path, render_task_report(rt.run_id, phase, unit, task), durable=False)


@step("mergegate.gsd_verification", retries=2)
def gsd_verification_step(phase_id: str, generation: int, tip: str, carrier: str) -> str | None:
    """Commit the phase's `<NN>-VERIFICATION.md` on `tip` (the integration tip mergegate
    recorded) in the write-back work tree, and bring the commit into the repository (across
    hosts: onto the remote's `carrier` branch); the commit, for `advance_step` to move the
    integration branch to, or None when there is nothing to write (no place for it in the
    plan, no verification record)."""
    rt = current()
    phase = rt.phase(phase_id)
    folder = verification_dir(rt.run_dir, phase_id, generation)
    result = rt.rows.get(
        StateKind.VERIFICATION, (phase_id, f"g{generation:04d}"), VerificationResult
    )
    if result is None:
        return None  # refused before it ran (`_refused`): no report to write back
    outside = outside_phase_dir(rt, phase)
    if outside is not None:
        if outside.is_dir():
            copy = folder / "gsd-copy"
            keep_lost_attempt(copy)
            reverify(result, run_dir=copy, gsd_phase_dir=outside, run_id=result.run_id)
        return None
    key = TrailerLine.verification(rt.run_id, phase_id, generation).format()
    if rt.remote is not None:
        rt.remote.ensure_commit(tip, rt.record.into)
    workspace, _ = add_workspace(rt.repo, rt.worktrees / ".writeback", None, tip)
    reset_clean(workspace, tip)
    target = gsd_phase_dir(rt, phase, workspace.root)
    if target is None:
        return None
    target.mkdir(parents=True, exist_ok=True)
    copy = folder / "gsd-copy"
    keep_lost_attempt(copy)
    reverify(result, run_dir=copy, gsd_phase_dir=target, run_id=result.run_id)
    message = f"docs({phase_id}): verification {result.status.value}"
    sha = commit_with_key(workspace, message, key, onto=tip)
    if sha is None:
        return None
    publish(rt.repo, workspace, sha, tip)
    if rt.remote is not None:
        with rt.remote.locked():
            rt.remote.force_branch(carrier, sha)
    return sha
