"""Executing a run: the run's `Runtime` installed, the durable engine launched on the run's
database (which recovers whatever a crash left pending), the current generation's run workflow
started unless it exists, waited for, and the run finished: its status, stream and summary.
A fleet worker executes a run's workflows with the same runtime, journal and finish."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mergegate.config import Config
from mergegate.decisions import ExitCode
from mergegate.engine._context.journal import RunJournal, StreamEnd, close_stream
from mergegate.engine._context.orphans import RunProcesses, kill_orphans
from mergegate.engine._context.outcomes import RunArgs
from mergegate.engine._context.run_agents import AgentSpec, build_backend
from mergegate.engine._context.run_events import EventSink, RunEvent
from mergegate.engine._context.runtime import EngineRunRecord, Human, Runtime, install, uninstall
from mergegate.engine._flow.workflows import run_workflow
from mergegate.engine._records.run_report import RunReport
from mergegate.engine._records.summary import (
    build_report,
    load_plan_snapshot,
    report_entries,
    run_outcome,
    write_run_summary,
)
from mergegate.engine._runs.database import check_database, database_url_of, engine_config
from mergegate.engine._runs.leases import hold_leases, release_leases
from mergegate.errors import EscalationError, RunInterruptedError, UsageError
from mergegate.events import Alert, EventBase, RunFinished, RunStarted
from mergegate.git import (
    REMOVING,
    remove_tree,
    settle_removals,
)
from mergegate.ids import (
    EventKey,
    WorkflowId,
    event_id,
)
from mergegate.implementer import advisors_from_config
from mergegate.metrics import AlertRules
from mergegate.plans import Plan
from mergegate.processes import (
    install_ledger,
    interrupt,
    this_supervisor,
    wait_until_stopped,
)
from mergegate.report import prepare_template
from mergegate.store import (
    DurableEngine,
    RunState,
    RunStore,
    WorkflowState,
)

__all__ = [
    "RunFailure",
    "build_runtime",
    "end_stream",
    "execute_run",
    "finish_run",
    "open_journal",
    "run_input",
    "started_event",
]


def build_runtime(
    store: RunStore,
    record: EngineRunRecord,
    config: Config,
    events: EventSink,
    *,
    human: Human | None,
    journal: RunJournal,
) -> Runtime:
    """The run's `Runtime` for this process, rebuilt from its card (agents, options) and plan
    snapshot in `store`; `AgentError` when its sandbox cannot be made here, `UsageError` when
    it has no implementer. What `execute_run` installs, and a fleet worker resolves per run."""
    agents, options = record.agents, record.options
    options.sandbox.require()  # a worker, or a resume, on a machine without a sandbox
    implementer = build_backend(agents.implementer, config)
    if implementer is None:
        raise UsageError("no implementer: pass --implementer NAME or --implementer-cmd")
    reviewer = build_backend(agents.reviewer, config)
    fresh = build_backend(AgentSpec(name=config.review.fresh_implementer), config)
    return Runtime(
        record=record,
        store=store,
        plan=load_plan_snapshot(store, record.run_id),
        repo=Path(record.repo),
        config=config,
        options=options,
        implementer=implementer,
        reviewer=reviewer,
        verifier=build_backend(agents.verifier, config),
        fresh_implementer=fresh,
        advisors=tuple(
            advisors_from_config(config, names=agents.advisors, cmds=agents.advisor_cmds)
        ),
        events=events,
        journal=journal,
        human=human,
    )


def open_journal(
    store: RunStore, record: EngineRunRecord, config: Config, events: EventSink
) -> RunJournal:
    """The run's event stream for this process; an alert is shown live as a notice."""

    def show(alert: Alert) -> None:
        events.emit(RunEvent("notice", f"alert ({alert.rule}): {alert.message}"))

    return RunJournal(
        store.run_dir(record.run_id),
        AlertRules.from_config(config.alerts),
        on_alert=show,
        rows=store.rows(record.run_id),
    )


def started_event(record: EngineRunRecord) -> EventBase:
    """The `RunStarted` event of the record's generation (its id fixed by run and generation,
    so a process started again emits the same event)."""
    agents = record.agents
    roles = {"implementer": agents.implementer, "reviewer": agents.reviewer}
    roles["verifier"] = agents.verifier
    return RunStarted(
        run_id=record.run_id,
        event_id=event_id(record.run_id, EventKey.of_run(record.generation, "run.started")),
        plan=record.plan,
        plan_path=record.plan_path or "",
        repo=record.repo,
        into=record.into,
        base_sha=record.base_sha,
        generation=record.generation,
        agents={role: spec.label() for role, spec in roles.items() if spec},
    )


def execute_run(
    state_dir: Path,
    run_id: str,
    config: Config,
    *,
    listener: Callable[[RunEvent], None] | None = None,
    human: Human | None = None,
    tick: Callable[[], None] = lambda: None,
    stop: threading.Event | None = None,
    stream_agents: bool = False,
) -> RunReport:
    """Run (or continue) the run's current generation to its end; the run report.

    With `stream_agents`, every agent's output line goes to `listener` as it comes (an
    `agent` event: its phase, unit, task, and its role in `step`).

    When `stop` is set (a person's Ctrl-C), the run's agents are stopped, the run is recorded
    as interrupted and `RunInterruptedError` is raised with DBOS's threads held: the caller
    must end the process (`resume` continues the run from its last recorded step)."""
    database_url = database_url_of(config)
    store = RunStore(state_dir, database_url)
    record = store.load(run_id, EngineRunRecord)
    if record.status not in (RunState.RUNNING,):
        return build_report(store, run_id)
    if record.fleet:
        raise UsageError(
            f"run {run_id} was queued for the fleet: a `mergegate worker` executes it "
            f"(see `mergegate status {run_id}`)"
        )
    check_database(record, database_url)
    record.options.sandbox.require()  # before any agent starts
    # before anything of the run is touched: its agents belong to the process holding it
    hold_leases(store, run_id, record.repo, record.plan_path)
    try:
        return _execute(
            store,
            record,
            config,
            listener=listener,
            human=human,
            tick=tick,
            stop=stop,
            stream_agents=stream_agents,
        )
    finally:
        release_leases(store, record)


def _execute(
    store: RunStore,
    record: EngineRunRecord,
    config: Config,
    *,
    listener: Callable[[RunEvent], None] | None,
    human: Human | None,
    tick: Callable[[], None],
    stop: threading.Event | None,
    stream_agents: bool = False,
) -> RunReport:
    run_id, database_url = record.run_id, database_url_of(config)
    prepare_template()  # the report's, compiled while the run runs rather than at its end
    kill_orphans(store.rows(run_id))
    events = EventSink(listener)
    journal = open_journal(store, record, config, events)
    journal.emit(started_event(record))
    rt = build_runtime(store, record, config, events, human=human, journal=journal)
    rt.stream_agents = stream_agents
    remove_tree(rt.checkouts)  # throwaway checkouts of a crashed process: nothing runs in them
    if rt.options.review_mode == "off":
        events.notice_once(
            "review is off (review.mode = off): tasks merge on implementer success "
            "and passing checks"
        )
    assert rt.budget is not None
    rt.budget.seed()  # budgets count what earlier processes of this run spent
    install(rt)
    install_ledger(RunProcesses(rt.rows))  # every agent and check it starts, in its rows
    engine = DurableEngine(engine_config(store, run_id, rt.options, database_url))
    wf_id = WorkflowId.run(run_id, record.generation).format()
    try:
        engine.launch()
        _refuse_stranded(engine, record)
        if engine.status(wf_id) is None:
            engine.start(run_workflow, wf_id, run_input(record))
        state = engine.wait(wf_id, tick=_watching(tick, stop))
        failure = _failure(engine, wf_id, state)
    except _Stopping:
        # no shutdown: DBOS's threads are held by the supervisor, and must never go on to
        # record what the stopped agents left; the caller ends the process
        raise _interrupted(store, rt) from None
    except BaseException:
        _close_engine(engine, rt)
        raise
    _close_engine(engine, rt)
    # every workflow ended, so nothing this process started for the run runs: its record as
    # the run's supervisor has served (a crash keeps it, for `resume` to sweep by)
    rt.rows.forget_supervisors([this_supervisor()])
    return finish_run(store, run_id, state, failure, rt.plan, journal=journal)


def _refuse_stranded(engine: DurableEngine, record: EngineRunRecord) -> None:
    """`UsageError` when workflows of the run another mergegate version recorded are still
    unfinished (a run interrupted or crashed under an older engine schema): they never go on
    here (DBOS recovers only its own version's, and this code's steps are not the order they
    recorded), so the run would wait for them forever."""
    stranded = engine.stranded(WorkflowId.of_run(record.run_id))
    if not stranded:
        return
    versions = ", ".join(sorted(set(stranded.values())))
    raise UsageError(
        f"run {record.run_id} was recorded by another version of mergegate ({versions}) and "
        f"this one ({engine.config.application_version}) cannot go on with it: "
        f"{len(stranded)} of its workflows are unfinished, and only the version that recorded "
        f"them replays them. Resume it with that version, or cancel it (`mergegate cancel "
        f"{record.run_id}`) and run the plan again"
    )


def run_input(record: EngineRunRecord) -> RunArgs:
    """The run workflow's input for the record's generation: the first one starts from the
    integration tip the run was created at (`base_sha`), recorded with the workflow from
    then on; a later one from the tip its previous generation recorded (`_start_tip`)."""
    return RunArgs(generation=record.generation, tip=record.base_sha)


class _Stopping(Exception):
    """A person asked the run to stop (the event `execute_run` watches)."""


def _watching(tick: Callable[[], None], stop: threading.Event | None) -> Callable[[], None]:
    def watch() -> None:
        tick()
        if stop is not None and stop.is_set():
            raise _Stopping

    return watch


def _interrupted(store: RunStore, rt: Runtime) -> RunInterruptedError:
    """Stop the run as a person asked: every agent and check stopped by the supervisor (their
    callers held, so no step records what a killed agent left), what remains of a recorded
    group killed, the run recorded as interrupted. Its error, which says how to go on."""
    interrupt()
    wait_until_stopped(rt.config.agents.kill_grace_s + _STOP_WAIT_S)
    kill_orphans(store.rows(rt.run_id))
    record = store.load(rt.run_id, EngineRunRecord)
    if record.status == RunState.RUNNING:
        record.status, record.exit_code = RunState.INTERRUPTED, int(ExitCode.INTERRUPTED)
        record.message = "interrupted by a person"
        store.save(record)
    return RunInterruptedError(
        f"run {rt.run_id} interrupted: its agents were stopped and nothing they left was "
        f"recorded; continue it with `mergegate resume {rt.run_id}`",
        run_id=rt.run_id,
    )


_STOP_WAIT_S = 10.0
"""How long an interrupted run waits, beyond the agents' kill grace, for the supervisor to
have stopped every child."""


def _close_engine(engine: DurableEngine, rt: Runtime) -> None:
    engine.shutdown()
    install_ledger(None)
    uninstall()
    _tidy(rt)


def _tidy(rt: Runtime) -> None:
    """Remove what only a running process uses: the throwaway checkouts and the write-back
    work tree (the units' work trees stay: they belong to units a person must look at), the
    merged units' work trees once their background deletion ended (and what a crash left of
    them), and the agents' private HOMEs once no unit's work tree is left (their sessions
    served those)."""
    settle_removals()  # first: the reviews' checkouts are deleted in the background too
    remove_tree(rt.checkouts)
    remove_tree(rt.worktrees / ".writeback")
    remove_tree(rt.worktrees / REMOVING)
    with contextlib.suppress(OSError):
        if all(p.name.startswith(".") for p in rt.worktrees.iterdir()):
            remove_tree(rt.homes)
    with contextlib.suppress(OSError):
        rt.worktrees.rmdir()  # only when empty


@dataclass(frozen=True)
class RunFailure:
    """Why a run's workflow ended on an error: the run's message, and how it ends (an
    `EscalationError` — the integration branch moved — is a stop for a person, exit 5;
    anything else a failure, exit 4)."""

    message: str = ""
    escalated: bool = False

    @classmethod
    def of(cls, exc: BaseException) -> RunFailure:
        if isinstance(exc, EscalationError):
            return cls(str(exc), escalated=True)
        return cls(f"the run stopped on an error: {type(exc).__name__}: {exc}")


def _failure(engine: DurableEngine, wf_id: str, state: str | None) -> RunFailure:
    if state != WorkflowState.ERROR:
        return RunFailure()
    try:
        engine.result(wf_id)
    except Exception as exc:  # the workflow's own error, recorded by DBOS
        return RunFailure.of(exc)
    return RunFailure("the run stopped on an error")


def finish_run(
    store: RunStore,
    run_id: str,
    state: str | None,
    failure: RunFailure,
    plan: Plan,
    *,
    journal: RunJournal | None = None,
) -> RunReport:
    """End the run's generation whose run workflow ended in `state` (a DBOS workflow state,
    None when unknown): its status and exit code recorded from its units and phases (or from
    `failure` on an error; cancelled when the workflow or the run was), its end into the
    stream, its summary written; the run report."""
    record = store.load(run_id, EngineRunRecord)
    cancelled = state == WorkflowState.CANCELLED or record.status == RunState.CANCELLED
    # the outcome from the units and phases as recorded so far (the record still running);
    # the report is built once, after the record says how the run ended
    phases, units = report_entries(store, record, plan)
    status, code = run_outcome(units, phases, cancelled)
    if state == WorkflowState.ERROR:
        status, code = RunState.FAILED, ExitCode.AGENT_FAILURE
        if failure.escalated:
            status, code = RunState.ESCALATED, ExitCode.ESCALATED
    record.status, record.exit_code = status, int(code)
    record.message = failure.message or record.message
    record.finished = datetime.now(UTC).isoformat(timespec="seconds")
    store.save(record)
    end = end_stream(store, record, journal)
    report = build_report(store, run_id, plan, alerts=end.alerts)
    report.metrics = end.metrics
    if end.error:
        report.message = "; ".join(m for m in (report.message, end.error) if m)
    write_run_summary(report)
    return report


def end_stream(store: RunStore, record: EngineRunRecord, journal: RunJournal | None) -> StreamEnd:
    """The run's end into its stream; every alert of the stream; the HTML report."""
    rules = journal.rules if journal is not None else AlertRules()
    journal = journal or RunJournal(
        store.run_dir(record.run_id), rules, rows=store.rows(record.run_id)
    )
    journal.emit(
        RunFinished(
            run_id=record.run_id,
            event_id=event_id(record.run_id, EventKey.of_run(record.generation, "run.finished")),
            status=record.status.value,
            exit_code=record.exit_code or 0,
            message=record.message or "",
        )
    )
    end = close_stream(store.run_dir(record.run_id), rules, journal)
    if journal.failed:
        return StreamEnd(end.alerts, end.report, end.metrics, error=journal.failed)
    return end
