"""What a person reads first about a run: where it stands as they would say it (a run nobody
executes any more is `crashed`), and the one thing to do next (`next:`)."""

from __future__ import annotations

from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._records.run_report import RunReport
from mergegate.ids import AnswerKey
from mergegate.store import DatabaseUnavailableError, RunState, RunStore, run_lease

__all__ = ["next_step", "shown_status"]

CRASHED = "crashed"
"""A run recorded as running that no live process executes (its lease is free)."""

_TAKEN_OVER = ("needs_manual_review", "failed", "undecidable", "cancelled")
"""Task decisions a person can take over (`resume --answer UNIT/TASK=approve|skip|retry`)."""
_MAX_ANSWERS_SHOWN = 4


def shown_status(store: RunStore, record: EngineRunRecord) -> str:
    """The run's status, or `crashed` for a run recorded as running (not queued for a
    fleet, whose workers hold it) that no live process executes."""
    if record.status != RunState.RUNNING or record.fleet:
        return record.status.value
    try:
        held = store.leases().holder(run_lease(record.run_id)) is not None
    except DatabaseUnavailableError:  # leases that cannot be read: say what is recorded
        return record.status.value
    return record.status.value if held else CRASHED


def next_step(report: RunReport) -> str:
    """One line: what to do now (merge the integration branch, answer, resume), or ""."""
    run, status = report.run_id, report.status
    if status == RunState.COMPLETED:
        return (
            f"merge the integration branch into yours: git merge {report.into} "
            f"(or push it and open a pull request)"
        )
    if status in (CRASHED, RunState.INTERRUPTED):
        return f"mergegate resume {run}"
    if status == RunState.RUNNING:
        return f"follow it: mergegate status {run}"
    if status == RunState.CANCELLED:
        return "nothing: the run was cancelled (start a new one with mergegate run)"
    return _answers(report)


def _answers(report: RunReport) -> str:
    """A run that stopped for a person: the answers it takes."""
    run = report.run_id
    answers: list[str] = []
    for unit in report.units:
        stuck = [t for t in unit.tasks if t.decision != "approved"]
        if not stuck:
            continue
        task = stuck[0]
        where = AnswerKey(unit.id, task.id)
        if task.decision == "waiting_for_human":
            answers.append(f"--answer {where}=approve|reject")
        elif task.decision in _TAKEN_OVER:
            answers.append(f"--answer {where}=approve|skip|retry")
    if answers:
        shown = " ".join(answers[:_MAX_ANSWERS_SHOWN])
        more = " …" if len(answers) > _MAX_ANSWERS_SHOWN else ""
        fix = (
            " (approve: after you fixed and committed the unit's branch by hand)"
            if any("skip" in a for a in answers)
            else ""
        )
        return f"mergegate resume {run} {shown}{more}{fix}"
    for phase in report.phases:
        found = phase.verification
        if phase.status == "not_verified":
            return (
                f"answer phase {phase.id}'s open criteria: mergegate resume {run} "
                f"--answer ID=pass|fail, or --accept-gaps --reason TEXT"
                + (f" (report: {found.report})" if found is not None and found.report else "")
            )
    return f"see {report.run_dir}/SUMMARY.md, then mergegate resume {run}"
