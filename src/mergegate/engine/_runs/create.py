"""Creating a run: the plan validated, the integration branch made (and offered to a fleet's
remote), the work tree checked clean, the run's card and plan recorded; and a dry run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mergegate.config import redact_url
from mergegate.engine._context.plan_views import (
    compute_waves,
    selected_phases,
    task_checks,
    validate_plan,
)
from mergegate.engine._context.run_agents import RunAgents
from mergegate.engine._context.runtime import EngineRunRecord, RunOptions
from mergegate.engine._runs.database import engine_config
from mergegate.engine._runs.leases import hold_leases, lease_names
from mergegate.errors import UsageError
from mergegate.git import (
    branch_tip,
    checked_out_branches,
    create_branch,
    head_commit,
    push_branch,
    remote_tip,
    remote_url,
    repository_root,
    uncommitted_paths,
    valid_branch_name,
)
from mergegate.ids import (
    integration_branch,
)
from mergegate.plans import Plan
from mergegate.store import (
    DurableEngine,
    RunStore,
    new_run_id,
)

__all__ = [
    "RunRequest",
    "create_run",
    "dry_run_lines",
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


def create_run(request: RunRequest) -> EngineRunRecord:
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
        hold_leases(store, run_id, str(repo), request.plan_path)
    try:
        return _create(request, store, repo, run_id, remote)
    except BaseException:
        leases = store.leases()
        for name in lease_names(run_id, str(repo), request.plan_path):
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
) -> EngineRunRecord:
    into, base = _integration_branch(repo, run_id, request.into)
    if remote is not None:
        _offer_branch(repo, remote, into, base)
    record = EngineRunRecord(
        run_id=run_id,
        plan=request.plan.title or str(request.plan_path or "") or "(untitled plan)",
        plan_path=str(request.plan_path.resolve()) if request.plan_path else None,
        plan_root=str(request.plan_root.resolve()) if request.plan_root else None,
        repo=str(repo),
        into=into,
        base_sha=base,
        agents=request.agents,
        options=request.options,
        database=redact_url(request.database_url) if request.database_url else None,
        fleet=request.fleet,
        remote=remote,
    )
    store.create(record, request.plan)  # the card and the plan in one transaction
    if not request.fleet:  # a launch here would make this process take fleet work
        # the queue's row exists before the first real launch, so DBOS's queue manager
        # (which looks for new queues once a second) serves it at once
        with DurableEngine(engine_config(store, run_id, request.options, request.database_url)):
            pass
    return record


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
