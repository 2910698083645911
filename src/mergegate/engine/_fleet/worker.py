"""The fleet: runs queued in one Postgres database, executed by any number of workers.

`mergegate run --queue` creates the run (its folder, plan snapshot and integration branch, as
a local run does) and puts one `fleet_run_workflow` on DBOS's run queue; it launches nothing
itself. A worker (`Worker`) launches DBOS on the shared database under its own, stable
executor id and takes runs and units from the queues: the run's phases put their units on the
units queue, with a global concurrency limit and a per-worker one, and whichever worker is
free takes the next unit.

A worker runs workflows of many runs, so it installs a resolver instead of one runtime: a
workflow's id starts with its run's id, and the worker builds that run's `Runtime` from the
run's card in the fleet's database (again when a workflow of a later generation shows up). Its
folder: across hosts (`--remote`) under the worker's own state directory, made from the run's
rows; on a shared filesystem, under the state directory recorded with the queued run. Each
worker keeps its units' workspaces under its own work directory. Without a remote, a unit
recovered by another worker keeps the workspace its first worker made (its path a row of the
run's state, `StateKind.WORKSPACE`): every worker must reach the same paths. With one (`run
--queue --remote`), `FleetRuntime` rebuilds a unit's workspace from the remote wherever the
unit goes (docs/fleet.md). Every process a worker starts is recorded in the run's rows under the
worker's id (`_orphans.WorkerProcesses`).

Recovery is DBOS's: a worker started again under the same id recovers its own pending
workflows at launch; `admin.recover_worker` (and a worker's `Janitor`) puts a dead
worker's pending workflows back on the queues for the live workers. Both first kill the agent
process groups the dead worker recorded (on this host) for the units and verifications it held.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.config import DEFAULT_CONCURRENCY, Config, StateLayout, load_config, state_dir
from mergegate.engine._context.journal import RunJournal
from mergegate.engine._context.orphans import (
    WorkerProcesses,
    kill_orphans_of,
    previous_generation,
)
from mergegate.engine._context.outcomes import WorkspaceRecord
from mergegate.engine._context.run_events import EventSink, RunEvent
from mergegate.engine._context.runtime import EngineRunRecord, Runtime, current, install_resolver
from mergegate.engine._fleet.admin import (
    fleet_database_url,
    recover_executor,
    run_state_dir,
    settle_global_concurrency,
)
from mergegate.engine._fleet.janitor import Janitor, Outage
from mergegate.engine._flow.workflows import run_workflow
from mergegate.engine._runs.execute import (
    RunFailure,
    build_runtime,
    finish_run,
    open_journal,
    run_input,
    started_event,
)
from mergegate.git import Remote, Workspace, remove_tree
from mergegate.ids import WorkflowId
from mergegate.processes import install_ledger
from mergegate.store import (
    FLEET_APP,
    DurableEngine,
    EngineConfig,
    RunRows,
    RunStore,
    StateKind,
    WorkflowState,
    child_id,
    enqueue_from_outside,
    executor_work,
    step,
    workflow,
    workflow_id,
)

__all__ = [
    "FleetRun",
    "FleetRunEnd",
    "FleetRuntime",
    "Worker",
    "WorkerOptions",
    "enqueue_run",
    "fleet_run_workflow",
]

_FLEET_RUN = "mergegate.fleet_run"


def _fleet_run_id(run_id: str, generation: int) -> str:
    return WorkflowId.fleet_run(run_id, generation).format()


def _generation_of(wf_id: str) -> int | None:
    """The generation a workflow id names (`WorkflowId.generation`), or None (a task's id
    names none; a unit called `g2` makes it look as if it did, which costs one read of the
    card)."""
    return WorkflowId.parse(wf_id).generation


class FleetRun(BaseModel):
    """What a queued run's workflow takes (DBOS records it as its input, a dict of these
    fields, as before it was typed): the `state_dir` the run was made in, the `generation` to
    run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    state_dir: str
    generation: int


class FleetRunEnd(BaseModel):
    """How a queued run's generation ended (its workflow's recorded output): the run's
    `status` as its summary says it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: str


def enqueue_run(state_dir: Path, record: EngineRunRecord, config: Config) -> str:
    """Put the run's current generation on the fleet's run queue; its workflow id."""
    url = fleet_database_url(config)
    args = FleetRun(state_dir=str(state_dir.resolve()), generation=record.generation)
    return enqueue_from_outside(
        url, _FLEET_RUN, _fleet_run_id(record.run_id, record.generation), args
    )


# ---------------------------------------------------------------- the run, on a worker


@step("mergegate.fleet_finish")
def fleet_finish_step(state: str, message: str, escalated: bool = False) -> FleetRunEnd:
    """Mark the run finished and write its summary (as `execute_run` does on one machine)."""
    rt = current_fleet()
    journal = rt.journal if isinstance(rt.journal, RunJournal) else None
    failure = RunFailure(message, escalated=escalated)
    report = finish_run(rt.store, rt.run_id, state, failure, rt.plan, journal=journal)
    return FleetRunEnd(status=report.status)


@workflow(_FLEET_RUN)
def fleet_run_workflow(args: FleetRun) -> FleetRunEnd:
    """One generation of a queued run: `run_workflow` as a child, then the run's summary."""
    rt = current_fleet()
    gen = args.generation
    try:
        with child_id(WorkflowId.run(rt.run_id, gen).format()):
            run_workflow(run_input(rt.record).model_copy(update={"generation": gen}))
    except Exception as exc:  # the run's own error: recorded on the run, as locally
        failure = RunFailure.of(exc)
        return fleet_finish_step(WorkflowState.ERROR, failure.message, failure.escalated)
    return fleet_finish_step(WorkflowState.SUCCESS, "")


def current_fleet() -> FleetRuntime:
    rt = current()
    if not isinstance(rt, FleetRuntime):  # pragma: no cover - a bug
        raise RuntimeError("a fleet workflow runs only on a fleet worker")
    return rt


_NOBODY = "-"
"""Not a workflow id: what `FleetRuntime.here` compares with for a workspace not trusted."""


@dataclass
class FleetRuntime(Runtime):
    """A run's runtime on one worker: its workspaces under the worker's work directory.

    With a shared filesystem (no `remote`), a unit another worker started keeps the workspace
    that worker made. Across hosts (`remote` set, `repo` the worker's mirror), every worker
    works in its own: a unit that comes to it from another worker has its workspace rebuilt
    from what the other worker pushed (`here`), and every step that changes a workspace
    pushes the unit's branch (`checkpoint`)."""

    _rebuilding: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _asked: set[int] = field(default_factory=set, repr=False)
    """Generations the card was read for (each one read once)."""
    _trusted: dict[Path, str | None] = field(default_factory=dict, repr=False)
    """Workspaces this process rebuilt from the remote or pushed from (across hosts), each
    with the workflow that did it last: another workflow checks the remote first (`here`)."""

    def outdated(self, generation: int | None) -> bool:
        """Whether a workflow of `generation` needs a runtime built again: a generation newer
        than this runtime's (`resume --answer` queued one) whose card says so. The card is read
        from the database once per generation asked about, never per workflow step."""
        if generation is None or generation <= self.record.generation:
            return False
        if generation in self._asked:
            return False
        self._asked.add(generation)
        return self.store.load(self.run_id, EngineRunRecord).generation != self.record.generation

    def here(self, worktree: str | Path, *, rebuild: bool = True) -> Path:
        if self.remote is None:
            return Path(worktree)
        own = super().unit_worktree(Path(worktree).name)
        if rebuild and self._trusted.get(own, _NOBODY) != workflow_id():
            with self._rebuilding:
                if not self._in_step(self.remote, own):
                    self._rebuild(self.remote, own)
        return own

    def _in_step(self, remote: Remote, own: Path) -> bool:
        """Whether `own` is still the unit's workspace for the workflow asking. Trusted by
        this workflow: yes. Trusted by another one: only if no other host moved the unit
        since (its task may have run here after a recovery and the unit gone on elsewhere;
        a workspace left behind then lacks the commits the run recorded since). Checked once
        per workflow that takes the workspace up (one ls-remote), never per step."""
        wanted = workflow_id()
        if own not in self._trusted:
            return False
        if self._trusted[own] != wanted:
            with remote.locked():
                if not remote.unchanged(self.unit_branch(own.name)):
                    return False
            self._trusted[own] = wanted
        return True

    def _rebuild(self, remote: Remote, own: Path) -> None:
        """Make `own` what the remote says the unit is. A workspace this process did not
        make or push from is never trusted: one left by an earlier process of this worker
        may be behind what another worker did with the unit since (its uncommitted files
        too), and everything a recorded step produced is on the remote (commits on the
        unit's branch, an implementer's uncommitted files on its progress branch)."""
        remove_tree(own)
        rebuilt = remote.rebuild_workspace(own, self.unit_branch(own.name))
        if rebuilt is None:
            return  # no branch on the remote yet: the workspace step makes it
        workspace, head = rebuilt
        super().made(workspace)
        self._trusted[own] = workflow_id()
        self.emit(
            "unit",
            f"{own.name}: workspace rebuilt in {own} from {remote.url} at {head[:12]}",
            unit=own.name,
            step="rebuild",
        )

    def adopt(self, workspace: Workspace) -> None:
        """Across hosts a workspace recorded by another worker is not this worker's: only
        the ones this process makes or rebuilds (`made`) are used here."""
        if self.remote is None:
            super().adopt(workspace)

    def forget(self, worktree: str | Path) -> None:
        """The unit's workspace is gone from this worker (retired): a later use rebuilds it."""
        self._trusted.pop(super().unit_worktree(Path(worktree).name), None)

    def checkpoint(self, worktree: str | Path) -> None:
        if self.remote is not None:
            own = self.here(worktree, rebuild=False)  # the step began with `here`
            workspace = self.workspace(own, rebuild=False)
            self.remote.checkpoint(workspace, self.unit_branch(own.name))
            # made (or rebuilt) here, and now what the remote holds
            self._trusted[own] = workflow_id()

    def unit_worktree(self, unit_id: str) -> Path:
        """The unit's workspace. Across hosts: this worker's own path. On a shared filesystem:
        the first worker to ask records its own path in the run's state (before the workspace
        is made, so a worker dying at any point leaves it recorded); every later call, on any
        worker, returns the recorded one. One worker at a time runs a unit (DBOS's dequeue),
        and the first writer wins the row."""
        if self.remote is not None:
            return super().unit_worktree(unit_id)
        own = WorkspaceRecord(path=str(super().unit_worktree(unit_id)))
        if self.rows.put(StateKind.WORKSPACE, (unit_id,), own, replace=False):
            return Path(own.path)
        found = self.rows.get(StateKind.WORKSPACE, (unit_id,), WorkspaceRecord)
        assert found is not None  # a row the put found there
        return Path(found.path)


# ---------------------------------------------------------------- the worker


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker runs: its identity, limits and work directory."""

    executor_id: str
    workdir: Path
    concurrency: int = DEFAULT_CONCURRENCY
    """Units at once on this worker (its own number: other workers keep theirs)."""
    global_concurrency: int | None = None
    """Units at once across the fleet: stored once for the fleet by the first `run --queue`
    or worker that names it; a worker naming another is refused (None: the stored value, or
    no cap when none is stored)."""
    polling_interval_s: float = 0.1
    recover_silent_after_s: float | None = None
    """Recover the work of a worker silent for longer than this (None: only by hand)."""


Listener = Callable[[str, RunEvent], None]
_SWEEP_TICKS = 10
"""Every 10 waits of 0.5 s: how often a worker looks for finished runs to clean up."""


class Worker:
    """A long-lived fleet worker: launch, take work until `stop()`, shut down.

    The work itself happens on DBOS's threads; `serve` only waits.
    """

    def __init__(self, options: WorkerOptions, config: Config, listener: Listener) -> None:
        self.options = options
        self.config = config
        self.database_url = fleet_database_url(config)
        self._listener = listener
        self._runtimes: dict[str, FleetRuntime] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self.outage = Outage(
            self.database_url, lambda text: self._listener("-", RunEvent("notice", text))
        )
        """One line when the database stops answering this worker's routine reads, one when
        it answers again (the janitor's beat and looks, the global concurrency, the sweep)."""
        self.engine = DurableEngine(
            EngineConfig(
                self.database_url,
                concurrency=options.concurrency,
                executor_id=options.executor_id,
                app_name=FLEET_APP,
                global_concurrency=options.global_concurrency,
                run_queue=True,
                polling_interval_s=options.polling_interval_s,
                log_file=options.workdir / "dbos.log",
            )
        )

    def runtime(self, wf_id: str) -> FleetRuntime:
        """The runtime of the run a workflow belongs to (its id's first part), built once per
        generation (thread-safe)."""
        run_id = WorkflowId.run_of(wf_id)
        with self._lock:
            found = self._runtimes.get(run_id)
            if found is None or found.outdated(_generation_of(wf_id)):
                found = self._build(run_id)
                self._runtimes[run_id] = found
            return found

    def _rows_of_caller(self) -> RunRows | None:
        """The rows of the run whose workflow calls (None outside any run's workflow)."""
        try:
            return current().rows
        except RuntimeError:
            return None

    def _store(self, run_id: str) -> tuple[RunStore, EngineRunRecord]:
        """The run's store on this worker and its card. A run queued with a remote keeps
        its folder (records, attempt folders, logs, copies for people) under this worker's
        own state directory (`$MERGEGATE_STATE_DIR`, else the project's `.mergegate`), made
        from the run's rows: nothing it needs is on another host's disk. Without a remote
        (one shared filesystem) every worker writes into the state directory the run was
        queued from, as it always did."""
        queued_in = run_state_dir(self.database_url, run_id)
        if queued_in is None:
            raise RuntimeError(f"run {run_id} was not queued in this database")
        store = RunStore(queued_in, self.database_url)
        record = store.load(run_id, EngineRunRecord)
        if record.remote:
            store = RunStore(state_dir(self.config), self.database_url)
            store.folder_here(record)
        return store, record

    def _build(self, run_id: str) -> FleetRuntime:
        store, record = self._store(run_id)
        # across hosts the user's repository is not here: the worker's own configuration
        config = self.config if record.remote else load_config(Path(record.repo))
        events = EventSink(lambda event: self._listener(run_id, event))
        # every worker appends to the run's one event stream; an event's stable id makes it
        # count once however many workers (or replays) emit it
        journal = open_journal(store, record, config, events)
        journal.emit(started_event(record))
        base = build_runtime(store, record, config, events, human=None, journal=journal)
        # every field `mergegate run` would set (whatever it grows), but the workspaces' root
        shared = {
            f.name: getattr(base, f.name)
            for f in fields(Runtime)
            if f.init and not f.name.startswith("_") and f.name not in ("worktree_root", "remote")
        }
        layout = StateLayout(self.options.workdir)  # worktrees/ and mirrors/, as in a state dir
        if record.remote:
            remote = Remote(record.remote, layout.mirror(mirror_name(record.remote)))
            shared["repo"] = remote.mirror
        else:
            remote = None
        rt = FleetRuntime(**shared, worktree_root=layout.worktrees(run_id), remote=remote)
        remove_tree(rt.checkouts)  # this worker's throwaway checkouts of an earlier process
        assert rt.budget is not None
        rt.budget.seed()
        return rt

    def serve(self, ready: Callable[[], None] = lambda: None) -> None:
        """Kill what a dead process of this worker left running, launch (which recovers this
        executor's pending workflows) and take work until `stop()`; then shut down and kill
        the agents of the units it leaves pending (they are recovered as after a crash)."""
        limit = settle_global_concurrency(self.database_url, self.options.global_concurrency)
        self.engine.config = replace(self.engine.config, global_concurrency=limit)
        earlier = previous_generation(self.database_url, self.options.executor_id)
        if earlier.orphaned:
            self._listener(
                "-",
                RunEvent(
                    "notice",
                    f"{earlier.orphaned} agent group(s) of this worker's earlier process run "
                    "on another host: recorded as orphaned (mergegate status RUN names it)",
                ),
            )
        self.options.workdir.mkdir(parents=True, exist_ok=True)
        install_resolver(self.runtime)
        install_ledger(WorkerProcesses(self.options.executor_id, self._rows_of_caller))
        janitor = Janitor(
            self.database_url,
            self.options.executor_id,
            self.options.recover_silent_after_s,
            recover=lambda dead, here: (
                recover_executor(
                    self.database_url, dead, kill=here, noted_by=self.options.executor_id
                ).recovered
            ),
            notice=lambda text: self._listener("-", RunEvent("notice", text)),
            outage=self.outage,
        )
        try:
            self.engine.launch()
            janitor.started()
            ready()
            ticks = 0
            while not self._stopped.wait(0.5):
                ticks += 1
                janitor.tick(0.5)
                if ticks % _SWEEP_TICKS == 0:
                    self._follow_global_limit()
                    self._sweep()
        finally:
            janitor.stopped()
            # the threads of units in flight fail from here on (DBOS is gone): expected
            logging.getLogger("dbos").setLevel(logging.CRITICAL)
            self.engine.shutdown()
            install_resolver(None)
            install_ledger(None)
            # what this worker was running stays pending for its next start (or `workers
            # recover`); its agents do not outlive it
            kill_orphans_of(self.database_url, self.options.executor_id)

    def stop(self) -> None:
        self._stopped.set()

    def _follow_global_limit(self) -> None:
        """Apply the fleet's global concurrency when it was stored after this worker started
        (a `run --queue` naming it later): the queue's row, read by every worker's poll, gets
        it within a sweep."""
        try:
            stored = settle_global_concurrency(self.database_url, None)
        except Exception as exc:  # the database away for a moment: next sweep
            self.outage.failed("global concurrency not read", exc)
            return
        if stored is not None and stored != self.engine.config.global_concurrency:
            self.engine.config = replace(self.engine.config, global_concurrency=stored)
            self.engine.limit_queue(stored)
            self._listener("-", RunEvent("notice", f"global concurrency {stored} (stored)"))

    def _sweep(self) -> None:
        """Across hosts, remove a finished run's workspaces from this worker: a unit retires
        its own when it ends, but a task this worker took over for a unit another worker runs
        leaves the workspace it rebuilt. A run is finished when none of its workflows is
        pending or queued (a later generation, after `resume --answer`, rebuilds from the
        remote what it needs)."""
        with self._lock:
            remote = [(i, rt) for i, rt in self._runtimes.items() if rt.remote is not None]
        for run_id, rt in remote:
            try:
                if executor_work(self.database_url, prefix=WorkflowId.of_run(run_id)):
                    continue
            except Exception as exc:  # the database away for a moment: next sweep
                self.outage.failed(f"{run_id}: sweep skipped", exc)
                continue
            with self._lock:
                self._runtimes.pop(run_id, None)
            remove_tree(rt.worktrees)


def mirror_name(url: str) -> str:
    """The folder of a remote's mirror under a worker's work directory: readable, unique."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", url.rstrip("/").rsplit("/", 1)[-1])[:40]
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return f"{stem.removesuffix('.git') or 'remote'}-{digest}.git"
