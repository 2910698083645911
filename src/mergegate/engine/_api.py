"""What the CLI calls: create a run, execute or resume it, answer, cancel, report.

One run executes per process: `execute_run` installs the run's `Runtime`, launches the durable
engine on the run's own database (which recovers whatever a crash left pending), starts the
current generation's run workflow unless it exists, waits for it and writes the summary.

Everything a command decides from is read from the run's database (`mergegate.store`): its
card (agents, options, budgets), its plan, a person's answers, the stop request, where its
units and phases stand and the processes it started. A person's answers reach it only through
these functions (`prepare_resume`, `record_plan_answers`, `cancel_run`); the run's folder is
written for people and never read back.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mergegate.config import Config, StateLayout, redact_url
from mergegate.decisions import ExitCode
from mergegate.engine._context.journal import RunJournal, StreamEnd, close_stream
from mergegate.engine._context.orphans import RunProcesses, kill_orphans
from mergegate.engine._context.outcomes import PhaseOutcome
from mergegate.engine._context.plan_views import (
    compute_waves,
    selected_phases,
    task_checks,
    validate_plan,
)
from mergegate.engine._context.run_agents import AgentSpec, RunAgents, build_backend
from mergegate.engine._context.run_events import EventSink, RunEvent
from mergegate.engine._context.runtime import Human, RunOptions, Runtime, install, uninstall
from mergegate.engine._flow.answers import task_answers
from mergegate.engine._flow.workflows import run_workflow
from mergegate.engine._records.run_status import shown_status
from mergegate.engine._records.summary import (
    build_report,
    load_plan_snapshot,
    run_outcome,
    write_run_summary,
)
from mergegate.engine._steps.phase_check import (
    latest_verification,
    record_criterion_answers,
)
from mergegate.errors import EscalationError, RunInterruptedError, UsageError
from mergegate.events import Alert, EventBase, RunFinished, RunStarted
from mergegate.git import (
    branch_tip,
    checked_out_branches,
    create_branch,
    head_commit,
    push_branch,
    remote_tip,
    remote_url,
    remove_tree,
    remove_workspace,
    repository_root,
    uncommitted_paths,
    valid_branch_name,
)
from mergegate.ids import (
    WorkflowId,
    event_id,
    integration_branch,
    queue_for_run,
    run_app_version,
)
from mergegate.implementer import advisors_from_config
from mergegate.metrics import AlertRules
from mergegate.plans import Plan
from mergegate.processes import (
    ProcessIdentity,
    install_ledger,
    interrupt,
    wait_until_stopped,
)
from mergegate.store import (
    APP_VERSION,
    FLEET_APP,
    DurableEngine,
    EngineConfig,
    RunRecord,
    RunRows,
    RunState,
    RunStore,
    StateKind,
    WorkflowState,
    app_name_for_run,
    cancel_from_outside,
    new_run_id,
    plan_lease,
    run_lease,
    sqlite_url,
)
from mergegate.verify import Answer, GapAcceptance, answers_for

__all__ = [
    "Answers",
    "RunFailure",
    "RunRequest",
    "cancel_run",
    "create_run",
    "database_url_of",
    "dry_run_lines",
    "execute_run",
    "kill_orphans",
    "latest_run",
    "list_runs",
    "prepare_resume",
    "record_plan_answers",
    "recorded_agents",
    "run_input",
    "run_report",
]


@dataclass(frozen=True)
class RunRequest:
    """Everything `mergegate run` was asked to do."""

    plan: Plan
    repo: Path
    state_dir: Path
    agents: RunAgents
    options: RunOptions
    plan_path: Path | None = None
    """The plan as given (file or directory): keys the answers ledger `verify` shares."""
    plan_root: Path | None = None
    """The directory the plan's source paths are relative to (GSD write-back)."""
    into: str | None = None
    run_id: str | None = None
    database_url: str | None = None
    """`[engine] database_url` (the whole URL: never recorded, never shown); None: the run
    keeps its durable state in its own SQLite file."""
    fleet: bool = False
    """Only create the run (`run --queue`): a fleet worker executes it."""
    remote: str | None = None
    """A fleet across hosts (`run --queue --remote`): the git remote the workers share, by
    its name in the repository or its URL (recorded as the URL)."""
    allow_dirty: bool = False
    """Start although the work tree has uncommitted changes (`run --allow-dirty`): the run
    starts from HEAD, and they are left out of it."""
    config_file: Path | None = None
    """The configuration file the run was set up from: read from disk, like the plan, so its
    uncommitted changes do not make the work tree dirty."""


# ---------------------------------------------------------------- creating a run


def _integration_branch(repo: Path, run_id: str, into: str | None) -> tuple[str, str]:
    """The branch units merge into and the commit it starts from; refuses a branch checked
    out in a work tree (moving it under a person's feet would corrupt their checkout)."""
    branch = into or integration_branch(run_id)
    if not valid_branch_name(repo, branch):
        raise UsageError(f"not a valid branch name: {branch!r}")
    holder = checked_out_branches(repo).get(branch)
    if holder is not None:
        raise UsageError(
            f"branch {branch!r} is checked out in {holder}; mergegate merges without a checkout "
            "and will not move a branch under a work tree. Check out another branch, or pass "
            "--into a new branch name."
        )
    tip = branch_tip(repo, branch)
    if tip is not None:
        return branch, tip
    head = head_commit(repo)
    if head is None:
        raise UsageError(f"the repository {repo} has no commit to start from")
    create_branch(repo, branch, head)
    return branch, head


def _offer_branch(repo: Path, url: str, branch: str, tip: str) -> None:
    """The integration branch onto the fleet's remote: created there at `tip`, or found
    there at `tip` already; a remote branch elsewhere is a usage error (merging into it would
    bury what it holds, or drop this repository's commits)."""
    found = remote_tip(repo, url, branch)
    if found == tip:
        return
    if found is not None:
        raise UsageError(
            f"branch {branch!r} is at {found[:12]} on {url} and at {tip[:12]} here: bring them "
            "together first, or pass --into a new branch name"
        )
    push_branch(repo, url, branch, tip, expect=None)


def create_run(request: RunRequest) -> RunRecord:
    """Validate the plan, make the integration branch and the run's folder; the run's card.

    A run whose agents need a sandbox that cannot be made here is refused first (`AgentError`,
    exit 4), before anything is made; a run queued for a fleet is checked by its workers."""
    if not request.fleet:
        request.options.sandbox.require()
    validate_plan(request.plan)
    selected_phases(request.plan, request.options.phase)
    if not request.agents.reviewer and request.options.review_mode != "off":
        raise UsageError(
            "no reviewer: pass --reviewer NAME or --reviewer-cmd (or set review.mode = off)"
        )
    repo = repository_root(request.repo)
    remote = None
    if request.remote is not None:
        if not request.fleet:
            raise UsageError("--remote is for a run queued for a fleet: add --queue")
        remote = remote_url(repo, request.remote)  # a usage error before anything is made
    if not request.allow_dirty:
        read = [p for p in (request.plan_path, request.config_file) if p is not None]
        _refuse_dirty(repo, [request.state_dir, *read])
    run_id = request.run_id or new_run_id()
    store = RunStore(request.state_dir, request.database_url)
    if not request.fleet:  # before anything is made: a second run of the plan is refused
        _hold_leases(store, run_id, str(repo), request.plan_path)
    try:
        return _create(request, store, repo, run_id, remote)
    except BaseException:
        leases = store.leases()
        for name in _lease_names(run_id, str(repo), request.plan_path):
            leases.release(name, run_id)
        raise


_DIRTY_SHOWN = 20


def _refuse_dirty(repo: Path, exclude: list[Path]) -> None:
    """`UsageError` listing the uncommitted paths of the work tree (the state directory and
    the plan aside): a run starts from HEAD, and would silently leave them out."""
    dirty = uncommitted_paths(repo, exclude)
    if not dirty:
        return
    shown = ", ".join(dirty[:_DIRTY_SHOWN]) + (
        f" and {len(dirty) - _DIRTY_SHOWN} more" if len(dirty) > _DIRTY_SHOWN else ""
    )
    raise UsageError(
        f"the work tree of {repo} has {len(dirty)} uncommitted path(s): {shown}. A run starts "
        "from HEAD and would leave them out: commit or stash them, or pass --allow-dirty"
    )


def _create(
    request: RunRequest, store: RunStore, repo: Path, run_id: str, remote: str | None
) -> RunRecord:
    into, base = _integration_branch(repo, run_id, request.into)
    if remote is not None:
        _offer_branch(repo, remote, into, base)
    record = RunRecord(
        run_id=run_id,
        plan=request.plan.title or str(request.plan_path or "") or "(untitled plan)",
        plan_path=str(request.plan_path.resolve()) if request.plan_path else None,
        plan_root=str(request.plan_root.resolve()) if request.plan_root else None,
        repo=str(repo),
        into=into,
        base_sha=base,
        agents=request.agents.model_dump(mode="json"),
        options=request.options.model_dump(mode="json"),
        database=redact_url(request.database_url) if request.database_url else None,
        fleet=request.fleet,
        remote=remote,
    )
    store.create(record, request.plan)  # the card and the plan in one transaction
    if not request.fleet:  # a launch here would make this process take fleet work
        # the queue's row exists before the first real launch, so DBOS's queue manager
        # (which looks for new queues once a second) serves it at once
        with DurableEngine(_engine_config(store, run_id, request.options, request.database_url)):
            pass
    return record


def _lease_names(run_id: str, repo: str, plan_path: Path | str | None) -> list[str]:
    names = [run_lease(run_id)]
    if plan_path is not None:
        names.append(plan_lease(repo, str(Path(plan_path).resolve())))
    return names


def _hold_leases(store: RunStore, run_id: str, repo: str, plan_path: Path | str | None) -> None:
    """This process executes the run, and the run is the active one of its plan on its
    repository; `UsageError` naming the live holder when another process or run has either
    (and then nothing is held)."""
    leases = store.leases()
    held: list[str] = []
    for name in _lease_names(run_id, repo, plan_path):
        holder = leases.take(name, run_id)
        if holder is None:
            held.append(name)
            continue
        for taken in held:
            leases.release(taken, run_id)
        where = f"pid {holder.process.pid} on {holder.process.host}"
        if holder.run_id == run_id:
            raise UsageError(
                f"run {run_id} is being executed by another process ({where}): wait for it, "
                f"or stop it with `mergegate cancel {run_id}`"
            )
        raise UsageError(
            f"run {holder.run_id} of this plan is still active on {repo} ({where}): wait for "
            f"it, follow it with `mergegate status {holder.run_id}`, or stop it with "
            f"`mergegate cancel {holder.run_id}`"
        )


def _release_leases(store: RunStore, record: RunRecord) -> None:
    leases = store.leases()
    for name in _lease_names(record.run_id, record.repo, record.plan_path):
        with contextlib.suppress(Exception):  # a lease left behind is free once we exit
            leases.release(name, record.run_id)


def dry_run_lines(plan: Plan, options: RunOptions) -> list[str]:
    """What a run would do, and nothing run: phases, waves, units, tasks, checks."""
    validate_plan(plan)
    lines = [f"plan: {plan.title or '(untitled)'} ({plan.format.value})"]
    for phase in selected_phases(plan, options.phase):
        lines.append(f"phase {phase.id}: {phase.name}".rstrip(": "))
        for number, wave in enumerate(compute_waves(phase), start=1):
            lines.append(f"  wave {number} (up to {options.concurrency} at once)")
            for unit in wave:
                deps = f" after {', '.join(unit.depends_on)}" if unit.depends_on else ""
                done = " [already completed]" if unit.completed else ""
                lines.append(f"    unit {unit.id}: {unit.name}{deps}{done}".rstrip())
                for task in unit.tasks:
                    kind = f" [{task.type}]" if task.is_checkpoint else ""
                    lines.append(f"      task {task.id}: {task.name}{kind}")
                    lines += [f"        check: {c.run}" for c in task_checks(task)]
        lines.append(f"  then: verify phase {phase.id} on the integration branch")
    lines.append(
        f"review: {options.review_mode}; fix commits: {options.fix_commits}; "
        f"on escalation: {options.on_escalation}"
    )
    lines.append(f"sandbox: {options.sandbox.describe()}")
    return lines


# ---------------------------------------------------------------- running

DBOS_LOG = "dbos.log"
"""The durable engine's own log lines, in the run's folder (never on the console)."""


def _engine_config(
    store: RunStore, run_id: str, options: RunOptions, database_url: str | None = None
) -> EngineConfig:
    """The run's own SQLite file; or a shared database (`[engine] database_url`), where the
    run has its own DBOS application name so no other run's process touches its workflows
    (and its own application version and queue: DBOS wants their names unique across
    applications)."""
    log_file = store.run_dir(run_id) / DBOS_LOG
    if database_url is None:
        return EngineConfig(
            sqlite_url(store.database_path(run_id)),
            concurrency=options.concurrency,
            log_file=log_file,
        )
    return EngineConfig(
        database_url,
        concurrency=options.concurrency,
        app_name=app_name_for_run(run_id),
        application_version=run_app_version(APP_VERSION, run_id),
        queue=queue_for_run(run_id),
        log_file=log_file,
    )


def database_url_of(config: Config) -> str | None:
    """`[engine] database_url` as the driver needs it (password included), or None."""
    found = config.engine.database_url
    return None if found is None else found.get_secret_value()


def _check_database(record: RunRecord, database_url: str | None) -> None:
    """A run continues on the database it started on, never silently on another one."""
    given = redact_url(database_url) if database_url else None
    if record.database != given:
        where = record.database or "its own SQLite file"
        raise UsageError(
            f"run {record.run_id} keeps its state in {where}, and this process is configured "
            f"for {given or 'per-run SQLite files'}: set [engine] database_url "
            "(or MERGEGATE_DATABASE_URL) as when the run started"
        )


def _runtime(
    store: RunStore,
    record: RunRecord,
    config: Config,
    events: EventSink,
    *,
    human: Human | None,
    journal: RunJournal,
) -> Runtime:
    agents = RunAgents.model_validate(record.agents)
    options = RunOptions.model_validate(record.options)
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


def _journal(store: RunStore, record: RunRecord, config: Config, events: EventSink) -> RunJournal:
    """The run's event stream for this process; an alert is shown live as a notice."""

    def show(alert: Alert) -> None:
        events.emit(RunEvent("notice", f"alert ({alert.rule}): {alert.message}"))

    return RunJournal(
        store.run_dir(record.run_id), AlertRules.from_config(config.alerts), on_alert=show
    )


def _started(record: RunRecord) -> EventBase:
    agents = RunAgents.model_validate(record.agents)
    roles = {"implementer": agents.implementer, "reviewer": agents.reviewer}
    roles["verifier"] = agents.verifier
    return RunStarted(
        run_id=record.run_id,
        event_id=event_id(record.run_id, f"g{record.generation}/run.started"),
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
) -> dict[str, Any]:
    """Run (or continue) the run's current generation to its end; the run report.

    With `stream_agents`, every agent's output line goes to `listener` as it comes (an
    `agent` event: its phase, unit, task, and its role in `step`).

    When `stop` is set (a person's Ctrl-C), the run's agents are stopped, the run is recorded
    as interrupted and `RunInterruptedError` is raised with DBOS's threads held: the caller
    must end the process (`resume` continues the run from its last recorded step)."""
    database_url = database_url_of(config)
    store = RunStore(state_dir, database_url)
    record = store.load(run_id)
    if record.status not in (RunState.RUNNING,):
        return build_report(store, run_id)
    if record.fleet:
        raise UsageError(
            f"run {run_id} was queued for the fleet: a `mergegate worker` executes it "
            f"(see `mergegate status {run_id}`)"
        )
    _check_database(record, database_url)
    RunOptions.model_validate(record.options).sandbox.require()  # before any agent starts
    # before anything of the run is touched: its agents belong to the process holding it
    _hold_leases(store, run_id, record.repo, record.plan_path)
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
        _release_leases(store, record)


def _execute(
    store: RunStore,
    record: RunRecord,
    config: Config,
    *,
    listener: Callable[[RunEvent], None] | None,
    human: Human | None,
    tick: Callable[[], None],
    stop: threading.Event | None,
    stream_agents: bool = False,
) -> dict[str, Any]:
    run_id, database_url = record.run_id, database_url_of(config)
    kill_orphans(store.rows(run_id))
    events = EventSink(listener)
    journal = _journal(store, record, config, events)
    journal.emit(_started(record))
    rt = _runtime(store, record, config, events, human=human, journal=journal)
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
    engine = DurableEngine(_engine_config(store, run_id, rt.options, database_url))
    wf_id = WorkflowId.run(run_id, record.generation).format()
    try:
        engine.launch()
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
    return _finish(store, run_id, state, failure, rt.plan, journal=journal)


def run_input(record: RunRecord) -> dict[str, Any]:
    """The run workflow's input for the record's generation: the first one starts from the
    integration tip the run was created at (`base_sha`), recorded with the workflow from
    then on; a later one from the tip its previous generation recorded (`_start_tip`)."""
    return {"generation": record.generation, "tip": record.base_sha}


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
    record = store.load(rt.run_id)
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
    work tree (the units' work trees stay: they belong to units a person must look at), and
    the agents' private HOMEs once no unit's work tree is left (their sessions served those)."""
    remove_tree(rt.checkouts)
    remove_tree(rt.worktrees / ".writeback")
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


def _finish(
    store: RunStore,
    run_id: str,
    state: str | None,
    failure: RunFailure,
    plan: Plan,
    *,
    journal: RunJournal | None = None,
) -> dict[str, Any]:
    record = store.load(run_id)
    cancelled = state == WorkflowState.CANCELLED or record.status == RunState.CANCELLED
    if cancelled:
        record.status = RunState.CANCELLED
    report = build_report(store, run_id, plan)
    status, code = run_outcome(report["units"], report["phases"], cancelled)
    if state == WorkflowState.ERROR:
        status, code = RunState.FAILED, ExitCode.AGENT_FAILURE
        if failure.escalated:
            status, code = RunState.ESCALATED, ExitCode.ESCALATED
    record.status, record.exit_code = status, int(code)
    record.message = failure.message or record.message
    record.finished = datetime.now(UTC).isoformat(timespec="seconds")
    store.save(record)
    end = _close(store, record, journal)
    report = build_report(store, run_id, plan)
    report["metrics"] = end.metrics
    if end.error:
        report["message"] = "; ".join(m for m in (report["message"], end.error) if m)
    write_run_summary(report)
    return report


def _close(store: RunStore, record: RunRecord, journal: RunJournal | None) -> StreamEnd:
    """The run's end into its stream; every alert of the stream; the HTML report."""
    rules = journal.rules if journal is not None else AlertRules()
    journal = journal or RunJournal(store.run_dir(record.run_id), rules)
    journal.emit(
        RunFinished(
            run_id=record.run_id,
            event_id=event_id(record.run_id, f"g{record.generation}/run.finished"),
            status=record.status.value,
            exit_code=record.exit_code or 0,
            message=record.message or "",
        )
    )
    end = close_stream(store.run_dir(record.run_id), rules, journal)
    if journal.failed:
        return StreamEnd(end.alerts, end.report, end.metrics, error=journal.failed)
    return end


# ---------------------------------------------------------------- people


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
) -> RunRecord:
    """Record a person's answers in the run's database, and start the next generation of a
    run that waits for a person (it goes on from where it stopped). Unknown tasks or criteria
    are a usage error, and then nothing is recorded."""
    store = RunStore(state_dir, database_url)
    record = store.load(run_id)
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


def _refuse_held(store: RunStore, record: RunRecord) -> None:
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


def _waiting_phase(rows: RunRows, plan: Plan, record: RunRecord) -> str:
    """The phase whose verification stopped the run (answers and acceptances are for it)."""
    for phase in reversed(selected_phases(plan, record.options.get("phase"))):
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
    for record in store.list():
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


# ---------------------------------------------------------------- cancel, queries


def cancel_run(
    state_dir: Path, run_id: str, *, clean: bool = False, database_url: str | None = None
) -> dict[str, Any]:
    """Stop a run: no agent starts any more (the stop request, in the run's database, is seen
    by every process and worker of the run before its next agent), every recorded agent
    group still running on this host is killed, the workflows are cancelled, the run is
    marked cancelled. Work trees of unfinished units are kept for inspection unless `clean`."""
    store = RunStore(state_dir, database_url)
    record = store.load(run_id)
    rows = store.rows(run_id)
    rows.request_stop("cancelled by mergegate cancel", replace=True)
    killed = kill_orphans(rows)
    _cancel_workflows(store, record, database_url)
    if record.status in (RunState.RUNNING, RunState.WAITING_FOR_HUMAN):
        record.status, record.exit_code = RunState.CANCELLED, int(ExitCode.AGENT_FAILURE)
        record.message = "cancelled by mergegate cancel"
        record.finished = datetime.now(UTC).isoformat(timespec="seconds")
        store.save(record)
    removed = _clean_worktrees(store, record) if clean else []
    _close(store, record, None)
    report = build_report(store, run_id)
    write_run_summary(report)
    return {**report, "killed_groups": killed, "removed_worktrees": removed}


def _cancel_workflows(store: RunStore, record: RunRecord, database_url: str | None) -> None:
    run_id = record.run_id
    if record.database is None:
        cancel_from_outside(sqlite_url(store.database_path(run_id)))
        return
    _check_database(record, database_url)
    assert database_url is not None
    if record.fleet:
        cancel_from_outside(database_url, app_name=FLEET_APP, prefix=WorkflowId.of_run(run_id))
    else:
        cancel_from_outside(database_url, app_name=app_name_for_run(run_id))


def _clean_worktrees(store: RunStore, record: RunRecord) -> list[str]:
    """Remove the run's workspaces (and its throwaway checkouts); their paths."""
    root = store.layout.worktrees(record.run_id)
    removed = []
    if root.is_dir():
        for path in sorted(root.iterdir()):
            if not path.name.startswith("."):
                removed.append(str(path))
            remove_workspace(path)
        remove_tree(root)
    return removed


def recorded_agents(
    state_dir: Path, run_id: str, database_url: str | None = None
) -> tuple[RunAgents, Path]:
    """The agents a run was made with (what `resume` rebuilds) and its repository."""
    record = RunStore(state_dir, database_url).load(run_id)
    return RunAgents.model_validate(record.agents), Path(record.repo)


def run_report(state_dir: Path, run_id: str, database_url: str | None = None) -> dict[str, Any]:
    """The run as one object, from its database (see `build_report`)."""
    return build_report(RunStore(state_dir, database_url), run_id)


def list_runs(state_dir: Path, database_url: str | None = None) -> list[dict[str, object]]:
    """Every run with a folder here and a record in a database, oldest first (a run recorded
    as running that no live process executes is `crashed`)."""
    store = RunStore(state_dir, database_url)
    return [{**r.summary(), "status": shown_status(store, r)} for r in store.list()]


def latest_run(state_dir: Path, database_url: str | None = None) -> str:
    """The id of the run started last here; `UsageError` when there is none."""
    found = RunStore(state_dir, database_url).list()
    if not found:
        runs = StateLayout(state_dir).runs
        raise UsageError(f"no runs under {runs}: start one with mergegate run PLAN")
    return found[-1].run_id
