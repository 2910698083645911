"""A person's answers: recorded in the run's database (`prepare_resume`, `record_plan_answers`),
checked against what the run recorded, and the next generation of a run that waits for them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mergegate.engine._context.outcomes import PhaseOutcome
from mergegate.engine._context.plan_views import (
    selected_phases,
)
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._flow.answers import task_answers
from mergegate.engine._records.summary import (
    load_plan_snapshot,
)
from mergegate.engine._steps.phase_check import (
    latest_verification,
    record_criterion_answers,
)
from mergegate.errors import UsageError
from mergegate.plans import Plan
from mergegate.processes import (
    ProcessIdentity,
)
from mergegate.store import (
    RunRows,
    RunState,
    RunStore,
    StateKind,
    run_lease,
)
from mergegate.verify import Answer, GapAcceptance, answers_for

__all__ = [
    "Answers",
    "prepare_resume",
    "record_plan_answers",
]


@dataclass(frozen=True)
class Answers:
    """What a person says on `resume`: answers to tasks (`TASK` or `UNIT/TASK` → approve or
    reject for a checkpoint task; approve, skip or retry to take over a task that escalated
    or failed), answers to open criteria of the phase the run waits at (`ID` → pass or fail),
    and an acceptance of that phase's gaps (a reason)."""

    tasks: Sequence[tuple[str, str]] = ()
    criteria: Sequence[tuple[str, str]] = ()
    accept_gaps: str | None = None
    note: str = ""
    who: str = "unknown"


def prepare_resume(
    state_dir: Path, run_id: str, answers: Answers, database_url: str | None = None
) -> EngineRunRecord:
    """Record a person's answers in the run's database, and start the next generation of a
    run that waits for a person (it goes on from where it stopped). Unknown tasks or criteria
    are a usage error, and then nothing is recorded."""
    store = RunStore(state_dir, database_url)
    record = store.load(run_id, EngineRunRecord)
    _refuse_held(store, record)
    plan = load_plan_snapshot(store, run_id)
    rows = store.rows(run_id)
    given = task_answers(rows, record, plan, answers.tasks, note=answers.note, who=answers.who)
    phase_id = None
    criteria: list[Answer] = []
    if answers.criteria or answers.accept_gaps:
        phase_id = _waiting_phase(rows, plan, record)
        if answers.criteria:
            criteria = _criterion_answers(rows, phase_id, answers)
    for key, answer in given.checkpoints.items():
        rows.put(StateKind.ANSWER, key, answer)
    for taken, takeover in given.takeovers.items():
        rows.put(StateKind.TAKEOVER, taken, takeover)
    if phase_id is not None:
        record_criterion_answers(rows, phase_id, criteria)
        if answers.accept_gaps:
            gaps = GapAcceptance(reason=answers.accept_gaps, who=answers.who, at=_now())
            rows.put(StateKind.GAPS, (phase_id,), gaps)
    if record.status == RunState.WAITING_FOR_HUMAN or (
        given.takeovers and record.status in (RunState.ESCALATED, RunState.FAILED)
    ):
        if given.takeovers:
            rows.clear_stop()  # on_escalation = stop: the escalation it stopped for is answered
        record.generation += 1
        record.status, record.exit_code, record.finished = RunState.RUNNING, None, None
        record.message = ""
        store.save(record)
    elif record.status == RunState.INTERRUPTED:
        # the same generation: its workflows are pending, and the launch recovers them
        record.status, record.exit_code, record.message = RunState.RUNNING, None, ""
        store.save(record)
    return record


def _refuse_held(store: RunStore, record: EngineRunRecord) -> None:
    """`UsageError` when another live process executes the run now (answers and a new
    generation would change a run under its feet)."""
    holder = None if record.fleet else store.leases().holder(run_lease(record.run_id))
    if holder is not None and holder.process != ProcessIdentity.here():
        raise UsageError(
            f"run {record.run_id} is being executed by another process (pid "
            f"{holder.process.pid} on {holder.process.host}): wait for it, or stop it with "
            f"Ctrl-C there or `mergegate cancel {record.run_id}`"
        )


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _waiting_phase(rows: RunRows, plan: Plan, record: EngineRunRecord) -> str:
    """The phase whose verification stopped the run (answers and acceptances are for it)."""
    for phase in reversed(selected_phases(plan, record.options.phase)):
        found = rows.get(StateKind.PHASE, (phase.id,), PhaseOutcome)
        verification = found.verification if found is not None else None
        if verification is not None and verification.status not in ("passed", "complete_with_gaps"):
            return phase.id
    raise UsageError(
        f"run {record.run_id} does not wait at a phase's verification: nothing to answer there"
    )


def _criterion_answers(rows: RunRows, phase_id: str, given: Answers) -> list[Answer]:
    """The answers, checked against the phase's last verification as the run recorded it."""
    previous = latest_verification(rows, phase_id)
    if previous is None:
        raise UsageError(f"phase {phase_id} has no verification to answer yet")
    return answers_for(previous, given.criteria, note=given.note, who=given.who, at=_now())


def record_plan_answers(
    state_dir: Path,
    plan_path: Path,
    phase_id: str,
    given: Answers,
    database_url: str | None = None,
) -> list[str]:
    """`mergegate verify PLAN --answer`: the answers for every unfinished run of that plan
    that verified the phase and asks about those criteria, checked against each run's own
    recorded verification and recorded in its database (`resume RUN` then goes on); the
    runs answered. A run the answers do not fit is left alone."""
    store = RunStore(state_dir, database_url)
    wanted = str(plan_path.resolve())
    answered = []
    for record in store.list(EngineRunRecord):
        if record.plan_path != wanted or record.status not in (
            RunState.RUNNING,
            RunState.WAITING_FOR_HUMAN,
        ):
            continue
        rows = store.rows(record.run_id)
        try:
            criteria = _criterion_answers(rows, phase_id, given)
        except UsageError:
            continue  # not verified there yet, or asks about other criteria
        record_criterion_answers(rows, phase_id, criteria)
        answered.append(record.run_id)
    return answered
