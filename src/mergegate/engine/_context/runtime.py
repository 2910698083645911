"""The live context of the run this process executes: what workflows and steps look up.

DBOS passes workflows only their (serialisable) arguments, and recovers pending workflows in
the background as soon as it launches. So the process installs one `Runtime` before launch: the
plan snapshot, the repository, the agents rebuilt from the run's card (all three read from the
run's database, never from its folder), the options, the run's state rows and the event sink.
One run per process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents import OutputTap
from mergegate.agents.base import AgentRequest, AgentResult, Backend
from mergegate.agents.sandbox import SandboxedBackend, SandboxPolicy, Toolchains
from mergegate.config import DEFAULT_CONCURRENCY, Config, RunLayout
from mergegate.engine._context.attempt_rows import attempt_record, ship_log
from mergegate.engine._context.journal import NullJournal
from mergegate.engine._context.run_agents import Budget, Metered, RunAgents
from mergegate.engine._context.run_events import EventSink, RunEvent
from mergegate.events import EventBase
from mergegate.events import EventSink as JournalSink
from mergegate.git import (
    GitRepository,
    Remote,
    Workspace,
    WorkspaceError,
    object_dirs,
    workspace_objects,
)
from mergegate.ids import EventKey, UnitBranch, event_id
from mergegate.implementer import Advisor
from mergegate.plans import Phase, Plan, Task, Unit
from mergegate.processes import Sandbox, Stream
from mergegate.review import ReviewOptions
from mergegate.store import RunRecord, RunRows, RunStore, workflow_id

__all__ = [
    "EngineRunRecord",
    "Human",
    "RunOptions",
    "Runtime",
    "current",
    "install",
    "install_resolver",
    "uninstall",
    "working_on",
]

_WHERE: ContextVar[tuple[str, str, str]] = ContextVar("mergegate_where", default=("", "", ""))
_STREAM_LINE_CHARS = 2000


@contextmanager
def working_on(phase: str, unit: str = "", task: str = "") -> Iterator[None]:
    """Agents started by this thread inside the block work on this phase, unit and task (what
    a streamed output line is prefixed with)."""
    token = _WHERE.set((phase, unit, task))
    try:
        yield
    finally:
        _WHERE.reset(token)


Human = Callable[[str], bool]
"""Shows a person a text on the terminal and returns their yes/no (review.mode = manual)."""


class RunOptions(BaseModel):
    """How a run behaves; recorded on the run's card in its database so `resume` behaves the
    same (the review options too: a replay must decide exactly as the interrupted run did)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int = Field(DEFAULT_CONCURRENCY, ge=1)
    review_mode: Literal["auto", "manual", "off"] = "auto"
    on_escalation: Literal["skip", "continue", "stop"] = "skip"
    fix_commits: Literal["separate", "amend"] = "separate"
    phase: str | None = None
    check_timeout_s: float = Field(600.0, gt=0)
    run_wall_s: float | None = None
    task_wall_s: float | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    review: ReviewOptions = Field(default_factory=lambda: ReviewOptions(base="HEAD"))
    """The review of every task: caps, policy, stages, agent limits (base/head/spec per task)."""
    sandbox: SandboxPolicy = Field(default_factory=SandboxPolicy)
    """Every agent and task check of the run in a sandbox (or not: `--no-sandbox`), and what
    a person opened to them (`--sandbox-allow`, `--sandbox-read`, `[sandbox]`)."""

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        concurrency: int | None = None,
        phase: str | None = None,
        max_rounds: int | None = None,
        fix_commits: Literal["separate", "amend"] | None = None,
        sandbox: SandboxPolicy | None = None,
    ) -> RunOptions:
        """The options `config` describes; the arguments (flags) win where given (`sandbox`:
        default `[sandbox]`'s policy)."""
        run = config.run
        policy = sandbox or SandboxPolicy.from_config(config.sandbox)
        review = ReviewOptions.from_config(config, base="HEAD").model_copy(
            update={"sandbox": policy}  # recorded in each task review's summary
        )
        if max_rounds is not None:
            review = review.model_copy(update={"max_rounds": max_rounds})
        return cls(
            concurrency=concurrency or run.concurrency,
            review_mode=config.review.mode,
            on_escalation=run.on_escalation,
            fix_commits=fix_commits or run.fix_commits,
            phase=phase,
            check_timeout_s=run.check_timeout_s,
            run_wall_s=run.max_wall_s,
            task_wall_s=run.task_wall_s,
            max_tokens=run.max_tokens,
            max_cost_usd=run.max_cost_usd,
            review=review,
            sandbox=policy,
        )


EngineRunRecord = RunRecord[RunAgents, RunOptions]
"""A run's card as the engine reads and writes it: the store's `RunRecord` over the engine's
own models of the agents and options, validated once where the card is read (never a dict
re-validated by whoever needs them). Pass it to every `RunStore.load`, `list` and
`folder_here`; the bytes stored are the same as when both were dicts."""


@dataclass
class Runtime:
    """Everything the workflows of one run need that is not in their arguments."""

    record: EngineRunRecord
    store: RunStore
    plan: Plan
    repo: Path
    config: Config
    options: RunOptions
    implementer: Backend
    reviewer: Backend | None
    verifier: Backend | None = None
    fresh_implementer: Backend | None = None
    advisors: tuple[Advisor, ...] = ()
    """Consulted when an implementer asks for help (none: a help request escalates)."""
    events: EventSink = field(default_factory=EventSink)
    journal: JournalSink = field(default_factory=NullJournal)
    """The run's typed event stream (`events.jsonl`, see `journal`): each id written once."""
    human: Human | None = None
    budget: Budget | None = None
    worktree_root: Path | None = None
    remote: Remote | None = None
    """A fleet run across hosts: the shared git remote, through this worker's mirror (`repo`
    is then the mirror). None: `repo` is the user's repository itself."""
    _rows: RunRows | None = field(default=None, repr=False)
    _workspaces: dict[Path, Workspace] = field(default_factory=dict, repr=False)
    """The units' workspaces as recorded (`adopt`) or made here (`made`): where git may run."""
    _repos: dict[Workspace, GitRepository] = field(default_factory=dict, repr=False)
    _objects: tuple[Path, ...] | None = field(default=None, repr=False)
    _reads: dict[str, dict[tuple[str, ...], Any]] = field(default_factory=dict, repr=False)
    _toolchains: Toolchains = field(default_factory=Toolchains, repr=False)
    """This machine's toolchain binds, found at the run's first sandbox (`Toolchains`)."""
    stream_agents: bool = False
    """`--stream-agents`: every agent's output lines go to the live view as they come (this
    process's choice, not the run's: never recorded)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.budget is None:
            opts = self.options
            self.budget = Budget(
                started=self.record.started_epoch,
                ledger=self.rows,
                run_wall_s=opts.run_wall_s,
                task_wall_s=opts.task_wall_s,
                max_tokens=opts.max_tokens,
                max_cost_usd=opts.max_cost_usd,
            )

    @property
    def run_id(self) -> str:
        return self.record.run_id

    @property
    def rows(self) -> RunRows:
        """The run's state in its database: answers, stop request, outcomes, processes."""
        if self._rows is None:
            self._rows = self.store.rows(self.record.run_id)
        return self._rows

    @property
    def run_dir(self) -> Path:
        return self.store.run_dir(self.record.run_id)

    @property
    def worktrees(self) -> Path:
        return self.worktree_root or self.store.layout.worktrees(self.run_id)

    @property
    def checkouts(self) -> Path:
        """Where reviewers' throwaway checkouts go (one folder per unit): under the run's
        work trees, so a crash leaves nothing in /tmp and `cancel --clean` removes them."""
        return self.worktrees / ".checkouts"

    def phase(self, phase_id: str) -> Phase:
        return next(p for p in self.plan.phases if p.id == phase_id)

    def unit(self, phase_id: str, unit_id: str) -> Unit:
        return next(u for u in self.phase(phase_id).units if u.id == unit_id)

    def task(self, phase_id: str, unit_id: str, index: int) -> Task:
        return self.unit(phase_id, unit_id).tasks[index]

    @property
    def layout(self) -> RunLayout:
        """The folders inside the run's folder."""
        return RunLayout(self.run_dir)

    def unit_dir(self, phase_id: str, unit_id: str) -> Path:
        return self.layout.unit(phase_id, unit_id)

    def unit_branch(self, unit_id: str) -> str:
        return UnitBranch(self.run_id, unit_id).format()

    def unit_worktree(self, unit_id: str) -> Path:
        return self.worktrees / unit_id

    def here(self, worktree: str | Path, *, rebuild: bool = True) -> Path:
        """A unit's workspace, recorded as `worktree`, as this process reaches it: the same
        path on one machine (a fleet worker across hosts maps it to its own, rebuilt from
        the remote when `rebuild` and missing, see `FleetRuntime`)."""
        del rebuild  # one machine: the workspace is where it was made
        return Path(worktree)

    def adopt(self, workspace: Workspace) -> None:
        """A unit's workspace as the run's durable state recorded it (the workspace step's
        output, replayed by its workflows): mergegate's git runs there only while its `.git`
        is the directory it recorded (`mergegate.git.check_workspace`)."""
        self._keep(workspace)

    def made(self, workspace: Workspace) -> None:
        """A workspace this process made (the workspace step, a rebuild): as `adopt`."""
        self._keep(workspace)

    def _keep(self, workspace: Workspace) -> None:
        with self._lock:
            self._workspaces[workspace.root] = workspace

    def workspace(self, worktree: str | Path, *, rebuild: bool = True) -> Workspace:
        """The unit's workspace recorded as `worktree`, as this process reaches it (`here`),
        with the identity git is held to; `WorkspaceError` when there is no record of it (a
        fail-closed guard: every step using a workspace runs after the workflow that
        recorded it adopted it)."""
        path = self.here(worktree, rebuild=rebuild)
        with self._lock:
            found = self._workspaces.get(Path(os.path.abspath(path)))
        if found is None:
            raise WorkspaceError(f"no record of a workspace mergegate made at {path}")
        return found

    def forget(self, worktree: str | Path) -> None:
        """A unit's workspace was removed (nothing to do on one machine)."""

    def checkpoint(self, worktree: str | Path) -> None:
        """After a step that changed a unit's workspace: nothing to do on one machine (a
        fleet worker across hosts pushes the unit's branch, see `FleetRuntime`)."""

    def repository(self, worktree: str | Path, unit_id: str) -> GitRepository:
        """The unit workspace's repository (one per workspace in this process: it owns the
        folder of the reviewers' throwaway checkouts, the same path for every review of the
        unit, so a resumed reviewer session finds its directory again)."""
        workspace = self.workspace(worktree)
        with self._lock:
            found = self._repos.get(workspace)
            if found is None:
                found = GitRepository(workspace, scratch=self.checkouts / unit_id)
                self._repos[workspace] = found
            return found

    def review_reads(self, review_dir: str) -> dict[tuple[str, ...], Any]:
        """The reads kept for one review (see `_review.TaskRepository`); a review that ended
        is forgotten when the next one starts, so at most a few are held."""
        with self._lock:
            if review_dir not in self._reads:
                if len(self._reads) > 16:
                    self._reads.clear()
                self._reads[review_dir] = {}
            return self._reads[review_dir]

    @property
    def homes(self) -> Path:
        """The private HOMEs of the run's agents (one per seat: a backend, in a role, in a
        working directory), beside the workspaces: they persist across a crash, so a resumed
        agent finds its CLI's session, and go with `cancel --clean`."""
        return self.worktrees / ".homes"

    def borrowed_objects(self, request: AgentRequest) -> tuple[Path, ...]:
        """The object directories an agent's working directory borrows: the repository's
        (asked of git once) and, for a checkout of a unit's workspace (a reviewer's), the
        workspace's own, which mergegate made (never read from a file the agent wrote)."""
        if self._objects is None:
            self._objects = object_dirs(self.repo)
        own = (workspace_objects(p) for p in request.protected_repos)
        return (*self._objects, *(p for p in own if p is not None))

    def sandboxed(self, backend: Backend) -> Backend:
        """`backend` with every run in the run's sandbox (as it is with `--no-sandbox`)."""
        policy = self.options.sandbox
        if not policy.enabled:
            return backend
        return SandboxedBackend(
            backend,
            policy,
            self.homes,
            objects=self.borrowed_objects,
            hidden=self.hidden(),
            toolchains=self._toolchains,
        )

    def hidden(self) -> tuple[Path, ...]:
        """What no sandbox of the run shows, even under a path a person opened: the state
        directory and its run records (a workspace inside the state directory is still
        bound: only it)."""
        return (self.store.layout.root, self.store.layout.runs)

    def check_sandbox(self, worktree: Path) -> Sandbox | None:
        """The sandbox of a task check in a unit's workspace: the workspace read-write, the
        repository's objects read-only, an empty HOME of its own, the network shared (tests
        download packages, reach a local database)."""
        if self._objects is None:
            self._objects = object_dirs(self.repo)
        found = self.options.sandbox.sandbox(
            worktree,
            writable=True,
            home=None,
            objects=self._objects,
            hidden=self.hidden(),
            toolchains=self._toolchains,
        )
        return None if found is None else found.model_copy(update={"network": True})

    def metered(
        self, backend: Backend, deadline: float | None, *, role: str = "agent", record: bool = False
    ) -> Metered:
        """`backend` in the run's sandbox, held to its budgets and stop requests: how every
        agent of a run runs (implementer, fixer, reviewer, advisor, verifier). With
        `stream_agents`, its output lines are shown live as `agent` events, placed by
        `working_on` and labelled with `role`. With `record`, each run with an attempt
        folder becomes an attempt row as `role`, its log shipped (`record_attempt`); the
        implementer's step records its own (with the commit's role)."""
        assert self.budget is not None
        tap = self._tap(role) if self.stream_agents else None
        ended = None
        if record:

            def ended(request: AgentRequest, result: AgentResult) -> None:
                if request.attempt_dir is not None:
                    self.record_attempt(Path(request.attempt_dir), result, role)

        return Metered(self.sandboxed(backend), self.budget, deadline, tap=tap, ended=ended)

    def record_attempt(self, attempt_dir: Path, result: AgentResult, role: str) -> None:
        """The attempt that ran in `attempt_dir` as a row of the run, and its log shipped off
        this host for `report` on others (`[engine] log_store`, else the database)."""
        attempt = attempt_record(self.run_dir, attempt_dir, result, role)
        self.rows.record_attempt(attempt)
        ship_log(self.rows, attempt, self.config.engine.log_store)

    def _tap(self, role: str) -> OutputTap:
        phase, unit, task = _WHERE.get()

        def show(stream: Stream, line: str) -> None:
            label = role if stream == "stdout" else f"{role} stderr"
            message = line[:_STREAM_LINE_CHARS]
            event = RunEvent("agent", message, phase=phase, unit=unit, task=task, step=label)
            self.events.emit(event)

        return show

    def emit(self, kind: str, message: str, **fields: str | int) -> None:
        self.events.emit(RunEvent(kind, message, **fields))  # type: ignore[arg-type]

    def fact(self, model: type[EventBase], key: EventKey, **fields: Any) -> None:
        """Write one typed event into the run's stream, with the stable id `<run>/<key>` (a
        replay after a crash emits it again: the journal keeps the first)."""
        self.journal.emit(model(run_id=self.run_id, event_id=event_id(self.run_id, key), **fields))


_installed: list[Runtime] = []
_resolvers: list[Callable[[str], Runtime]] = []
"""A fleet worker's: the runtime of the workflow whose id it is given."""


def install(runtime: Runtime) -> None:
    _installed[:] = [runtime]


def install_resolver(resolver: Callable[[str], Runtime] | None) -> None:
    """A fleet worker runs workflows of many runs: `current()` asks `resolver` for the
    runtime of the workflow the caller runs in, by its id (`<run>/...`: its first part is the
    run's id; a generation in it, `<run>/g<N>/...`, may be newer than a runtime built before)."""
    _resolvers[:] = [] if resolver is None else [resolver]


def uninstall() -> None:
    _installed.clear()


def current() -> Runtime:
    """The runtime installed by `mergegate run`/`resume`, or the one a worker's resolver
    gives for the calling workflow's run (a bug if there is none)."""
    if _installed:
        return _installed[0]
    wf_id = workflow_id() if _resolvers else None
    if wf_id:
        return _resolvers[0](wf_id)
    raise RuntimeError("no mergegate run is installed in this process")
