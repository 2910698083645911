"""The run's result as one object (`--format json`, `status --format json`, summary.json).

Built from the run's state in its database (its card, plan, unit and phase rows: never the
copies in its folder, which an agent could have written), so `status` can show a run while it
runs, after it finished, or after a crash, without touching DBOS's workflows.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from mergegate.atomic_files import write_atomic, write_json_atomic
from mergegate.decisions import ExitCode
from mergegate.engine._context.journal import run_events
from mergegate.engine._context.outcomes import (
    CheckpointAnswer,
    PhaseOutcome,
    TakeoverAnswer,
    UnitOutcome,
    UnitStatus,
)
from mergegate.engine._context.plan_views import report_stem, selected_phases
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._records.run_report import (
    AlertEntry,
    AnswerEntry,
    PhaseEntry,
    RunReport,
    SandboxEntry,
    TaskEntry,
    UnitEntry,
)
from mergegate.engine._records.run_status import next_step, shown_status
from mergegate.events import EVENTS_FILE, Alert, EventLogError
from mergegate.plans import Phase, Plan
from mergegate.report import REPORT_FILE
from mergegate.store import RunRows, RunState, RunStore, StateKind
from mergegate.untrusted import md_text

__all__ = [
    "alert_entries",
    "build_report",
    "load_plan_snapshot",
    "recorded_alerts",
    "report_entries",
    "run_outcome",
    "write_run_summary",
]

_EXIT_ORDER = (ExitCode.AGENT_FAILURE, ExitCode.UNDECIDABLE, ExitCode.ESCALATED)
_PASSING = ("passed", "complete_with_gaps")


def load_plan_snapshot(store: RunStore, run_id: str) -> Plan:
    """The plan the run executes, from its database."""
    return store.plan(run_id)


def _files_in(folder: str) -> set[str]:
    """The names in a unit's folder (reports for people); none when it cannot be listed."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _unit_entry(
    *,
    run_dir: Path,
    record: EngineRunRecord,
    plan: Plan,
    recorded: UnitOutcome | None,
    phase_id: str,
    unit_id: str,
    finished: bool,
    stopped_at: str | None,
) -> UnitEntry:
    if recorded is None:
        reason = (
            f"not started: the run stopped at the end of phase {stopped_at}"
            if finished and stopped_at
            else ""
        )
        status: UnitStatus = "skipped" if finished else "pending"
        recorded = UnitOutcome(id=unit_id, phase=phase_id, status=status, reason=reason)
    status, reason = recorded.status, recorded.reason
    if status in ("running", "ready", "pending") and record.status == RunState.CANCELLED:
        status, reason = "cancelled", reason or "the run was cancelled"
    phase = next(p for p in plan.phases if p.id == phase_id)
    unit = next(u for u in phase.units if u.id == unit_id)
    folder = f"{run_dir}{os.sep}{phase_id}{os.sep}{unit_id}"
    present = _files_in(folder) if recorded.tasks else set()
    tasks = []
    for task in recorded.tasks:
        stem = report_stem(phase, unit, task.number)
        names = [f"{stem}.{ext}" for ext in ("md", "json")]
        tasks.append(
            TaskEntry(
                id=task.id,
                name=task.name,
                decision=task.decision,
                reason=task.reason,
                review_status=task.review_status,
                commit=task.commit,
                head=task.head,
                help_requests=task.help_requests,
                agent_result=task.agent_result,
                judgement=task.judgement,
                review_outputs=task.review_outputs,
                reports=[f"{folder}{os.sep}{n}" for n in names if n in present]
                + [f"{r}/summary.md" for r in task.reports],
            )
        )
    return UnitEntry(
        id=unit_id,
        phase=phase_id,
        status=status,
        reason=reason,
        branch=recorded.branch,
        workspace=recorded.worktree or None,
        merge_commit=recorded.merge_commit,
        summary=f"{folder}{os.sep}SUMMARY.md",
        escalation=recorded.escalation,
        tasks=tasks,
        exit_code=recorded.exit_code,
    )


def _phase_entry(
    phase: Phase, recorded: PhaseOutcome | None, entries: list[UnitEntry], *, started: bool
) -> PhaseEntry:
    done = all(
        e.status == "merged" or (e.status == "skipped" and e.reason.startswith("already completed"))
        for e in entries
    )
    verification = recorded.verification if recorded is not None else None
    if not started:
        status = "not_started"
    elif not done:
        status = "incomplete"
    elif verification is not None and verification.status not in _PASSING:
        status = "not_verified"
    else:
        status = "completed"
    return PhaseEntry(id=phase.id, name=phase.name, status=status, verification=verification)


_ALERT_FIELDS = {"rule", "component", "subject", "value", "threshold", "message"}


def recorded_alerts(run_dir: Path, rows: RunRows | None = None) -> list[AlertEntry]:
    """The alerts in the run's event stream (its database's rows when `rows` holds them,
    else `events.jsonl`; none when it has none, or cannot be read)."""
    if rows is None and not (run_dir / EVENTS_FILE).is_file():
        return []
    try:
        stream = run_events(run_dir, rows)
    except EventLogError:
        return []
    return alert_entries(e for e in stream.events if isinstance(e, Alert))


def alert_entries(alerts: Iterable[Alert]) -> list[AlertEntry]:
    """The report's entries of `alerts`."""
    fields = _ALERT_FIELDS | {"phase", "unit", "task"}
    return [AlertEntry.model_validate(e.model_dump(mode="json", include=fields)) for e in alerts]


def report_entries(
    store: RunStore, record: EngineRunRecord, plan: Plan
) -> tuple[list[PhaseEntry], list[UnitEntry]]:
    """The run's phases and units as its report shows them, from its database and `record`
    (a unit not reached is `pending` while the record says running, `skipped` after)."""
    run_id = record.run_id
    run_dir = store.run_dir(run_id)
    rows = store.rows(run_id)
    outcomes = dict(rows.items(StateKind.UNIT, UnitOutcome))
    recorded = {key[0]: p for key, p in rows.items(StateKind.PHASE, PhaseOutcome)}
    finished = record.status not in (RunState.RUNNING, RunState.INTERRUPTED)
    phases: list[PhaseEntry] = []
    units: list[UnitEntry] = []
    stopped_at: str | None = None
    for phase in selected_phases(plan, record.options.phase):
        entries = [
            _unit_entry(
                run_dir=run_dir,
                record=record,
                plan=plan,
                recorded=outcomes.get((phase.id, u.id)),
                phase_id=phase.id,
                unit_id=u.id,
                finished=finished,
                stopped_at=stopped_at,
            )
            for u in phase.units
        ]
        started = any((phase.id, u.id) in outcomes for u in phase.units)
        entry = _phase_entry(phase, recorded.get(phase.id), entries, started=started)
        phases.append(entry)
        units += entries
        if entry.status in ("incomplete", "not_verified") and stopped_at is None:
            stopped_at = phase.id
    return phases, units


def build_report(
    store: RunStore,
    run_id: str,
    plan: Plan | None = None,
    *,
    alerts: Sequence[Alert] | None = None,
) -> RunReport:
    """The run as one object (see docs/run.md for its fields); `plan`: the run's plan
    snapshot, and `alerts`: every alert of its stream, when the caller has them already
    (the end of a run has just read the stream: reading it again costs seconds on a long
    run)."""
    record = store.load(run_id, EngineRunRecord)
    plan = plan or load_plan_snapshot(store, run_id)
    run_dir = store.run_dir(run_id)
    phases, units = report_entries(store, record, plan)
    report = RunReport(
        run_id=record.run_id,
        status=shown_status(store, record),
        exit_code=record.exit_code,
        message=record.message,
        into=record.into,
        remote=record.remote,
        base=record.base_sha,
        plan=record.plan,
        started=record.started,
        finished=record.finished,
        run_dir=str(run_dir),
        phases=phases,
        units=units,
        alerts=(
            recorded_alerts(run_dir, store.rows(run_id))
            if alerts is None
            else alert_entries(alerts)
        ),
        report=str(run_dir / REPORT_FILE) if (run_dir / REPORT_FILE).is_file() else None,
        sandbox=sandbox_entry(record),
        answers=recorded_answers(store.rows(run_id)),
    )
    report.next = next_step(report)
    return report


def recorded_answers(rows: RunRows) -> list[AnswerEntry]:
    """Every answer people gave the run's tasks (checkpoints and takeovers), with who and
    when, oldest first."""
    found: list[AnswerEntry] = []
    for key, checkpoint in rows.items(StateKind.ANSWER, CheckpointAnswer):
        found.append(_answer_entry(key, checkpoint))
    for key, taken in rows.items(StateKind.TAKEOVER, TakeoverAnswer):
        found.append(_answer_entry(key, taken))
    return sorted(found, key=lambda a: (a.at, a.unit, a.task))


def _answer_entry(key: tuple[str, ...], given: CheckpointAnswer | TakeoverAnswer) -> AnswerEntry:
    taken = given if isinstance(given, TakeoverAnswer) else None
    return AnswerEntry(
        unit=key[0],
        task=key[1],
        answer=given.answer,
        who=given.who,
        at=datetime.fromtimestamp(given.at, UTC).isoformat(timespec="seconds"),
        note=given.note,
        generation=taken.generation if taken is not None else None,
        head=taken.head if taken is not None else None,
    )


def sandbox_entry(record: EngineRunRecord) -> SandboxEntry:
    """The run's sandbox as recorded when it started: on or off (`--no-sandbox`), what a
    person opened (`allow` read-write, `read` read-only), and one line for people."""
    policy = record.options.sandbox
    return SandboxEntry(
        enabled=policy.enabled,
        allow=[str(p) for p in policy.allow],
        read=[str(p) for p in policy.read],
        summary=policy.describe(),
    )


def run_outcome(
    units: list[UnitEntry], phases: list[PhaseEntry], cancelled: bool
) -> tuple[RunState, ExitCode]:
    """The run's state and exit code from its units' statuses and its phases' verification."""
    if cancelled:
        return RunState.CANCELLED, ExitCode.AGENT_FAILURE
    codes = {u.exit_code for u in units}
    statuses = {u.status for u in units} - {"pending"}  # not reached: the run stopped before
    for code in _EXIT_ORDER:
        if int(code) in codes:
            if code is ExitCode.ESCALATED:
                state = (
                    RunState.ESCALATED
                    if statuses - {"merged", "skipped", "waiting_for_human"}
                    else RunState.WAITING_FOR_HUMAN
                )
                return state, code
            return RunState.FAILED, code
    if "waiting_for_human" in statuses or any(p.status == "not_verified" for p in phases):
        return RunState.WAITING_FOR_HUMAN, ExitCode.ESCALATED
    if statuses - {"merged", "skipped"}:
        return RunState.ESCALATED, ExitCode.ESCALATED
    return RunState.COMPLETED, ExitCode.OK


def _alert_lines(alerts: list[AlertEntry]) -> list[str]:
    if not alerts:
        return ["", "Alerts: none."]
    lines = ["", f"## Alerts ({len(alerts)})", ""]
    for alert in alerts:
        where = "/".join(p for p in (alert.unit, alert.task) if p)
        place = f" ({md_text(where, 80)})" if where else ""
        lines.append(f"- **{alert.rule}**{place}: {md_text(alert.message, 300)}")
    return lines


def write_run_summary(report: RunReport) -> Path:
    """`SUMMARY.md` and `summary.json` in the run's folder."""
    run_dir = Path(report.run_dir)
    write_json_atomic(run_dir / "summary.json", report.dump(), durable=False)
    lines = [
        f"# Run {report.run_id}: {report.status} (exit {report.exit_code})",
        "",
        f"- plan: {md_text(report.plan, 300)}",
        f"- integration branch: `{report.into}` (from `{report.base[:12]}`)",
        f"- started {report.started}, finished {report.finished or '-'}",
        f"- sandbox: {md_text(report.sandbox.summary, 2000)}",
    ]
    if report.message:
        lines.append(f"- {md_text(report.message, 500)}")
    lines += ["", "| phase | unit | status | merge commit | reason |", "|---|---|---|---|---|"]
    for u in report.units:
        lines.append(
            f"| {md_text(u.phase, 40)} | {md_text(u.id, 40)} | {u.status} "
            f"| `{(u.merge_commit or '-')[:12]}` | {md_text(u.reason, 160)} |"
        )
    lines += _verification_lines(report.phases)
    if report.answers:
        lines += ["", "| unit/task | answer | who | when | note |", "|---|---|---|---|---|"]
        for a in report.answers:
            lines.append(
                f"| {md_text(a.unit + '/' + a.task, 80)} | {a.answer} "
                f"| {md_text(a.who, 60)} | {a.at} | {md_text(a.note, 200)} |"
            )
    lines += _alert_lines(report.alerts)
    if report.report:
        lines += [
            "",
            f"Report (timeline, verdicts, findings, costs): {md_text(report.report, 500)}",
        ]
    if report.next:
        lines += ["", f"Next: {md_text(report.next, 600)}"]
    lines += ["", "Each unit's `SUMMARY.md` lists its tasks and any Unresolved Review Findings."]
    write_atomic(run_dir / "SUMMARY.md", "\n".join(lines) + "\n", durable=False)
    return run_dir / "SUMMARY.md"


def _verification_lines(phases: list[PhaseEntry]) -> list[str]:
    verified = [(p.id, p.verification) for p in phases if p.verification is not None]
    if not verified:
        return []
    lines = ["", "| phase | verification | reason | report |", "|---|---|---|---|"]
    for phase_id, v in verified:
        lines.append(
            f"| {md_text(phase_id, 40)} | {v.status} | {md_text(v.reason, 200)} "
            f"| {md_text(v.report, 300)} |"
        )
    return lines
