"""The steps of a run outside the review: implementer runs, commits, checks, git, people.

A step's result is recorded when it returns and is never recomputed: after a crash, the
workflow replays and gets the recorded value back. A step that was in flight when the process
died runs again, so each one starts by making its own re-run safe:

* an implementer step whose attempt folder already exists is running again: the lost
  attempt's folder is kept aside (`NN-implementer.lost-K`) and the workspace is reset to the
  last recorded commit first, so a half-finished edit never leaks into the retry;
* a commit step commits on the last recorded commit (`commit_with_key(onto=…)`), whatever it
  or the agent committed before: run again, it makes the same tree on the same parent;
* a merge is two steps: the merge commit is made on the recorded integration tip and recorded
  (`merge_step`), then the branch is moved from that tip to it by compare and swap
  (`advance_step`), which finds the move already made after a crash (the branch at the
  recorded commit) and stops the run (`BranchMovedError`, exit 5) when anyone else moved it;
  trailers (`Mergegate-Task:`, `Mergegate-Unit:` …) are labels, never looked up;
* workspace and branch steps reuse what exists; publishing the same commit again is a no-op.

Git in a unit's workspace runs only through `Runtime.workspace`, the workspace as its step
recorded it (its `.git`'s identity, checked before every command: `mergegate.git._identity`).

The review's own steps (each reviewer attempt, each fix round) are in `review_stage`.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.agents.base import AgentRequest, AgentResult
from mergegate.atomic_files import write_json_atomic
from mergegate.engine._context.journal import event_key, place_of
from mergegate.engine._context.outcomes import (
    CheckpointAnswer,
    CheckResult,
    Merged,
    TakeoverAnswer,
)
from mergegate.engine._context.runtime import Runtime, current
from mergegate.errors import UsageError
from mergegate.events import AgentAttempt, AgentRole, CheckRun, FixRound
from mergegate.git import (
    BranchMovedError,
    GitError,
    MergeResult,
    Workspace,
    add_workspace,
    advance_branch,
    branch_tip,
    commit_with_key,
    prepare_merge,
    publish,
    remove_tree_soon,
    remove_workspace,
    reset_clean,
    wip_branch,
)
from mergegate.plans import Check
from mergegate.processes import Limits, supervise
from mergegate.store import StateKind, not_retried, step
from mergegate.verify import command_environment

__all__ = [
    "RESULT_FILE",
    "AdvanceCall",
    "AgentCall",
    "AgentRun",
    "CommitCall",
    "Committed",
    "FixCommit",
    "MergeCall",
    "UnitStart",
    "WorkspaceMade",
    "adopt_step",
    "advance_step",
    "agent_step",
    "answer_step",
    "check_step",
    "clock_step",
    "commit_step",
    "human_step",
    "keep_lost_attempt",
    "merge_step",
    "publish_step",
    "request_stop_step",
    "retire_workspace_step",
    "start_unit_step",
    "takeovers_step",
    "tip_step",
]

_OUTPUT_TAIL = 4000
RESULT_FILE = "result.json"


# ---------------------------------------------------------------- step data


class _StepData(BaseModel):
    """What a step takes or returns; a returned one is recorded in its JSON form (the seam:
    `mergegate.store.Seam`), in the field order the untyped code recorded."""

    model_config = ConfigDict(extra="forbid")


class FixCommit(_StepData):
    """The commit a fix of failing checks is made as, in its agent step."""

    message: str
    key: str
    amend: bool = False


class CommitCall(_StepData):
    """A commit of everything in the unit's `worktree` on `onto` (the last recorded commit),
    with its `message` and trailer `key`; folded into `onto` with `amend`. The task's
    `checks`, if any, are run on the commit in the same step, their output under
    `checks_folder`."""

    worktree: str
    message: str
    key: str
    onto: str
    amend: bool = False
    checks: list[Check] = []
    checks_folder: str = ""


class Committed(_StepData):
    """A commit as `commit_step` recorded it: the `commit` (None: nothing to commit) and the
    `checks` run on it (None: not run, for want of a commit or of checks)."""

    commit: str | None
    checks: list[CheckResult] | None = None


class AgentCall(_StepData):
    """An implementer run as a step takes it: the `request`, the `attempt_dir`, `reset_to`
    (the last recorded commit), the `deadline`, and for a fix of failing checks `commit` (the
    fix is committed in the same step, on `reset_to`)."""

    request: AgentRequest
    attempt_dir: str
    reset_to: str
    deadline: float | None = None
    commit: FixCommit | None = None


class AgentRun(_StepData):
    """An implementer run as its step recorded it: the agent's `result`, why it was `stopped`
    (a budget, a stop request) or None, its `tokens`, and the `commit` (None when the agent
    changed nothing or no commit was asked for)."""

    result: AgentResult
    stopped: str | None
    tokens: int
    commit: str | None


class WorkspaceMade(_StepData):
    """A unit's workspace as `workspace_step` made (or found) it: its HEAD, and the
    workspace with its `.git`'s identity."""

    head: str
    workspace: Workspace


class UnitStart(_StepData):
    """A unit's start as `start_unit_step` recorded it: why it may not start (`stopped`),
    or the workspace it was `made` (exactly one of the two)."""

    stopped: str | None = None
    made: WorkspaceMade | None = None


class MergeCall(_StepData):
    """A unit's merge as `merge_step` takes it: its approved head `theirs` into `ours`, the
    integration tip mergegate recorded, with the merge commit's `message` and trailer `key`;
    across hosts the unit's `branch` and the `carrier` branch the commit waits on."""

    repo: str
    ours: str
    theirs: str
    message: str
    key: str
    branch: str
    carrier: str


class AdvanceCall(_StepData):
    """A move of the integration branch `into` from the recorded tip `expected` to `new` (a
    commit a recorded step made), by compare and swap; `reason` for the reflog, across
    hosts the `carrier` branch `new` waits on, and the merged unit's `workspace` to remove
    once the branch is there (None: a verification's write-back, which has none)."""

    repo: str
    into: str
    expected: str
    new: str
    reason: str
    carrier: str
    workspace: str | None = None


# ---------------------------------------------------------------- time and stops


@step("mergegate.clock")
def clock_step() -> float:
    """Now, recorded (a task's wall-time budget starts at a fixed moment across replays)."""
    return time.time()


@step("mergegate.request_stop")
def request_stop_step(reason: str) -> None:
    """`on_escalation = "stop"`: no agent of this run starts after this (an earlier request,
    `cancel`'s, keeps its reason)."""
    current().rows.request_stop(reason)


def keep_lost_attempt(path: Path) -> bool:
    """An attempt folder already there belongs to a run lost in a crash: keep it aside.
    True when there was one (the step is running again)."""
    if not path.exists():
        return False
    n = 1
    while (lost := path.with_name(f"{path.name}.lost-{n}")).exists():
        n += 1
    path.rename(lost)
    return True


# ---------------------------------------------------------------- the implementer


@step("mergegate.agent")
def agent_step(call: AgentCall) -> AgentRun:
    """Run the implementer once in the unit's workspace (resuming its session); with
    `call.commit`, commit what it changed as one keyed commit in the same step."""
    rt = current()
    request = call.request.model_copy(update={"cwd": rt.here(call.request.cwd)})
    attempt_dir = Path(call.attempt_dir)
    again = keep_lost_attempt(attempt_dir)
    attempt_dir.mkdir(parents=True)
    if again and call.reset_to:
        # the lost attempt may have half-edited (or committed in) the tree: start over from
        # the last recorded commit (a first attempt finds the tree as the last step left it)
        reset_clean(rt.workspace(request.cwd), call.reset_to)
    agent = rt.metered(rt.implementer, call.deadline, role="implementer")
    result = agent.run(request.model_copy(update={"attempt_dir": attempt_dir}))
    write_json_atomic(attempt_dir / RESULT_FILE, result, durable=False)
    role = "fixer" if call.commit else "implementer"
    rt.record_attempt(attempt_dir, result, role)
    sha = None
    commit = call.commit
    if commit and result.ok:
        sha = commit_with_key(
            rt.workspace(request.cwd),
            commit.message,
            commit.key,
            onto=call.reset_to,
            amend=commit.amend,
        )
    rt.checkpoint(request.cwd)  # across hosts: the commit, or the files changed, pushed
    _attempt_facts(rt, attempt_dir, result, commit, sha, rerun=again)
    return AgentRun(result=result, stopped=agent.stopped, tokens=agent.tokens, commit=sha)


_CHECK_FIX = re.compile(r"/checks-(\d+)$")


def _attempt_facts(
    rt: Runtime,
    attempt_dir: Path,
    result: AgentResult,
    commit: FixCommit | None,
    sha: str | None,
    *,
    rerun: bool,
) -> None:
    """The implementer run into the run's stream: an `agent.attempt` (a fix of failing checks
    is the `fixer` role, stage `checks`) and, for a fix, its `fix.round`. Where it happened is
    read from the attempt folder (`<run dir>/<phase>/<unit>/<task>/attempts/NN-implementer`);
    the id is the folder's, so a replay is written once, and a run again after a crash (its
    lost attempt kept aside as `….lost-N`) is an attempt of its own (it really ran); the fix
    round is one whatever ran it (the first written is kept)."""
    where = place_of(rt.run_dir, attempt_dir)
    base = key = event_key(rt.run_id, rt.run_dir, attempt_dir)
    if rerun:
        key += f"#rerun-{len(list(attempt_dir.parent.glob(attempt_dir.name + '.lost-*')))}"
    found = _CHECK_FIX.search(commit.key if commit else "")
    fix_round = int(found.group(1)) if found else 0
    role: AgentRole = "fixer" if commit else "implementer"
    rt.journal.emit(
        AgentAttempt.from_result(
            result,
            role=role,
            **where,
            run_id=rt.run_id,
            event_id=key,
            operation=attempt_dir.name,
            stage="checks" if commit else "implement",
            round=fix_round,
            max_attempts=1,
            attempt_dir=str(attempt_dir),
        )
    )
    if commit:
        unchanged = result.ok and sha is None
        rt.journal.emit(
            FixRound(
                **where,
                run_id=rt.run_id,
                event_id=f"{base}:fix",
                round=fix_round,
                source="checks",
                operation=attempt_dir.name,
                commit=sha or "",
                ok=sha is not None,
                error=(result.error or "")
                if not result.ok
                else ("the implementer changed nothing" if unchanged else ""),
            )
        )


# ---------------------------------------------------------------- git


@step("mergegate.commit_check", retries=3)
def commit_step(call: CommitCall) -> Committed:
    """One commit of everything in the workspace on `call.onto` (the last recorded commit),
    None when there was nothing to commit; then the task's checks on it. Run again, the same
    tree on the same parent, and the checks again.

    One recorded step, not two: the checks of a new commit always ran right after it, and
    each recorded step is a write transaction of its own (about 3 ms of the engine's CPU and
    a turn at SQLite's one write lock, per task). The commit is retried (a git lock left for
    a moment); the checks, as in a step of their own (`check_step`), never are
    (`not_retried`): what they raise reaches the workflow as it is."""
    rt = current()
    workspace = rt.workspace(call.worktree)
    sha = commit_with_key(workspace, call.message, call.key, onto=call.onto, amend=call.amend)
    rt.checkpoint(workspace.root)
    if sha is None or not call.checks:
        return Committed(commit=sha)
    with not_retried():
        checks = _run_checks(rt, call.worktree, call.checks, call.checks_folder)
    return Committed(commit=sha, checks=checks)


@step("mergegate.tip", retries=3)
def tip_step(repo: str, branch: str, expected: str) -> str:
    """`expected`, the integration tip mergegate recorded, once the branch is found there (at
    the start of a wave, before a verification; across hosts: on the remote);
    `BranchMovedError` (exit 5) when anyone else moved it."""
    remote = current().remote
    if remote is not None:
        with remote.locked():
            remote.fetch(branch)
    tip = branch_tip(Path(repo), branch)
    if tip != expected:
        raise BranchMovedError(branch, expected, tip)
    return tip


@step("mergegate.start_unit", retries=3)
def start_unit_step(repo: str, path: str, branch: str | None, base: str) -> UnitStart:
    """A unit's start: why none of its agents may run (a stop request, a spent budget), or
    else its workspace (made, or found after a crash) with its HEAD and its `.git`'s identity
    (recorded here: the unit's workflows adopt it, and every later git command there is held
    to it). `branch` None: detached. Across hosts the base comes from the remote first, and
    the new branch goes to it. One step, not two: the question and the workspace always ran
    together, and each recorded step is a write transaction of its own. Run again after a
    crash, it asks again; a workspace the lost run made is found, or stays for a later
    generation when a stop came in between."""
    rt = current()
    budget = rt.budget
    assert budget is not None
    why = budget.stop_reason(None)
    if why is not None:
        return UnitStart(stopped=why)
    return UnitStart(made=_workspace(rt, repo, path, branch, base))


def _workspace(rt: Runtime, repo: str, path: str, branch: str | None, base: str) -> WorkspaceMade:
    if rt.remote is not None:
        rt.remote.ensure_commit(base, rt.record.into)
    # across hosts a unit that already has a branch on the remote (a later generation, after
    # `resume --answer`; or this step run again on another worker) goes on from it
    where = rt.here(path, rebuild=branch is not None)
    workspace, head = add_workspace(Path(repo), where, branch, base)
    rt.made(workspace)
    if branch is not None:
        rt.checkpoint(path)
    return WorkspaceMade(head=head, workspace=workspace)


@step("mergegate.retire_workspace", retries=3)
def retire_workspace_step(path: str, branch: str) -> None:
    """Across hosts, a unit whose branch is on the remote: its workspace on this worker
    removed, and its progress branch on the remote deleted."""
    rt = current()
    if rt.remote is not None:
        with rt.remote.locked():
            rt.remote.drop_branch(wip_branch(branch))
    remove_workspace(rt.here(path, rebuild=False))
    rt.forget(path)


@step("mergegate.publish", retries=3)
def publish_step(repo: str, workspace: str, branch: str, sha: str, base: str) -> None:
    """The unit's commits into the user's repository, its branch at the recorded head
    (across hosts: into the worker's mirror, then the branch pushed to the remote)."""
    rt = current()
    remote = rt.remote
    if remote is None:
        publish(Path(repo), rt.workspace(workspace), sha, base, branch=branch)
        return
    where = rt.workspace(workspace)
    with remote.locked():
        remote.take(where, sha, branch)
        remote.force_branch(branch, sha)


@step("mergegate.merge", retries=3)
def merge_step(call: MergeCall) -> Merged:
    """The merge of a unit's approved head `call.theirs` into `call.ours`, the
    integration tip mergegate recorded (never whatever the branch points at now): the merge
    commit, made on no branch and recorded here (`advance_step` publishes it), or the
    conflict. Across hosts the commit is made in the worker's mirror and parked on the
    remote's `call.carrier` branch, so whichever worker publishes it finds it."""
    rt = current()
    ours, theirs = call.ours, call.theirs
    if rt.remote is None:
        result = prepare_merge(Path(call.repo), ours, theirs, call.message, call.key)
    else:
        rt.remote.ensure_commit(ours, rt.record.into)
        with rt.remote.locked():
            rt.remote.fetch(call.branch)
            if not rt.remote.has_commit(theirs):
                raise GitError(f"the unit's head {theirs} is not on {rt.remote.url}")
            result = prepare_merge(rt.remote.mirror, ours, theirs, call.message, call.key)
            if result.commit is not None:
                rt.remote.force_branch(call.carrier, result.commit)
    return _merged(result)


def _merged(result: MergeResult) -> Merged:
    return Merged(
        commit=result.commit,
        already=result.already,
        conflicts=list(result.conflicts),
        ours=result.ours,
        theirs=result.theirs,
        base=result.base,
    )


@step("mergegate.advance", retries=3)
def advance_step(call: AdvanceCall) -> bool:
    """Move the integration branch `call.into` from `call.expected` (the tip mergegate
    recorded) to `call.new` (a commit a recorded step made) by compare and swap. True
    when it moved now; False when it was there already (this move, made before a crash);
    `BranchMovedError` (exit 5, never retried) when anyone else moved it; then the merged
    unit's `call.workspace`, if any, removed. Across hosts the
    move is a `--force-with-lease` push, the commit fetched from its `call.carrier`
    branch when this worker's mirror lacks it (the carrier is deleted after)."""
    rt = current()
    into, expected, new = call.into, call.expected, call.new
    if rt.remote is None:
        moved = advance_branch(Path(call.repo), into, expected, new, call.reason)
    else:
        # from its carrier; or, moved before a crash (the carrier deleted), from the branch
        rt.remote.ensure_commit(new, call.carrier, into)
        with rt.remote.locked():
            moved = rt.remote.advance(into, expected, new)
            rt.remote.drop_branch(call.carrier)
    if call.workspace is not None:
        _remove_merged_workspace(rt, call.workspace)
    return moved


def _remove_merged_workspace(rt: Runtime, path: str) -> None:
    """A merged unit's workspace gone from its path at once, its files deleted in the
    background (`remove_tree_soon`): the phase merges its units one at a time, and deleting
    each work tree there held up every later unit's merge. The run's end waits for the
    deletions (`settle_removals`). In the advance's own step, not one of its own: it always
    followed the move, each recorded step is a write transaction, and run again (a crash
    before the step was recorded) it finds the path gone and does nothing."""
    remove_tree_soon(rt.here(path, rebuild=False))


# ---------------------------------------------------------------- checks and people


def _run_check(rt: Runtime, check: Check, worktree: Path, attempt_dir: Path) -> CheckResult:
    keep_lost_attempt(attempt_dir)
    outcome = supervise(
        ["/bin/sh", "-c", check.run],
        cwd=worktree,
        attempt_dir=attempt_dir,
        env=command_environment(),
        limits=Limits(
            timeout_s=check.timeout_s or rt.options.check_timeout_s,
            stall_timeout_s=None,
            kill_grace_s=5.0,
        ),
        log_prefix="check",
        sandbox=rt.check_sandbox(worktree),
    )
    output = (outcome.stdout_tail + outcome.stderr_tail).decode("utf-8", "replace")
    result = CheckResult(
        run=check.run,
        expect_exit=check.expect_exit,
        exit=outcome.returncode,
        reason=outcome.reason.value,
        passed=outcome.reason.value == "exited" and outcome.returncode == check.expect_exit,
        output=output[-_OUTPUT_TAIL:],
        duration_s=round(outcome.duration_s, 3),
    )
    write_json_atomic(attempt_dir / RESULT_FILE, result.dump(), durable=False)
    _check_fact(rt, attempt_dir, result, outcome.duration_s)
    return result


def _check_fact(rt: Runtime, attempt_dir: Path, result: CheckResult, duration: float) -> None:
    """One check into the run's stream (its folder: `<task>/checks/<round>/<NN>`)."""
    try:
        round_no = int(attempt_dir.parent.name)
    except ValueError:
        round_no = 0
    ended = datetime.now(UTC)
    rt.journal.emit(
        CheckRun(
            **place_of(rt.run_dir, attempt_dir),
            run_id=rt.run_id,
            event_id=event_key(rt.run_id, rt.run_dir, attempt_dir),
            at=ended,
            command=result.run,
            round=round_no,
            exit_code=result.exit,
            expect_exit=result.expect_exit,
            passed=result.passed,
            reason=result.reason,
            duration_s=max(0.0, duration),
            started_at=datetime.fromtimestamp(ended.timestamp() - max(0.0, duration), UTC),
        )
    )


@step("mergegate.check")
def check_step(worktree: str, checks: list[Check], folder: str) -> list[CheckResult]:
    """Run the task's machine checks in the workspace, each under the supervisor.

    A check is plan text for a shell (`/bin/sh -c`) running code an agent wrote: it runs in
    the run's sandbox (the workspace read-write, nothing else of the user's), with the check's
    time limit, no stall limit, bounded output and `verify`'s allow-listed environment (no
    API key, no token: `mergegate.verify.command_environment`).
    """
    return _run_checks(current(), worktree, checks, folder)


def _run_checks(rt: Runtime, worktree: str, checks: list[Check], folder: str) -> list[CheckResult]:
    return [
        _run_check(rt, check, rt.here(worktree), Path(folder) / f"{i:02d}")
        for i, check in enumerate(checks, start=1)
    ]


@step("mergegate.answer")
def answer_step(unit_id: str, task_id: str) -> CheckpointAnswer | None:
    """A person's recorded answer to a checkpoint task (`resume --answer`), if any: from the
    run's database, where only the CLI writes answers."""
    return current().rows.get(StateKind.ANSWER, (unit_id, task_id), CheckpointAnswer)


@step("mergegate.takeovers")
def takeovers_step(unit_id: str, task_id: str) -> list[TakeoverAnswer]:
    """The answers people gave to take over this task (`resume --answer
    UNIT/TASK=approve|skip|retry`), oldest first, up to this generation: from the run's
    database, where only the CLI writes them."""
    rt = current()
    found = rt.rows.items(StateKind.TAKEOVER, TakeoverAnswer, (unit_id, task_id))
    return [a for _, a in found if a.generation <= rt.record.generation]


@step("mergegate.adopt", retries=3)
def adopt_step(worktree: str, sha: str) -> str:
    """The unit's workspace at `sha` (a commit a person made on the unit's branch, or a
    task's start): the tree reset to it, nothing left of what was there. `sha`."""
    reset_clean(current().workspace(worktree), sha)
    return sha


@step("mergegate.human")
def human_step(text: str) -> bool:
    """Show a review to the person at the terminal; their yes/no (review.mode = manual)."""
    human = current().human
    if human is None:
        raise UsageError("review.mode = manual needs a person at a terminal (no TTY here)")
    return human(text)
