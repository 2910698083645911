"""A task's review, run as durable steps over the review's own step API.

The review of one task is a `ReviewState` moved along by `mergegate.review`'s steps; here each
of those steps — one reviewer attempt, or one fix round — is one recorded step of the task's
workflow, and the state it returns is its recorded result:

    state = None
    while True:
        out = review_step(rt, call(state))  # the first step opens the review (start_review),
        state = out.state                   # the one that ends it closes it (finish_review)
        if out.outcome: break

A completed attempt or fix round is never run again: a replay gets its recorded state back.
One that was in flight at a crash runs again: the review writes its records under a fresh
attempt folder (never over the lost one); a fix round first puts the work tree back at the
commit under review (the lost round may have edited or committed), and its commit is made on
that commit (`commit_with_key(onto=…)`: whatever the implementer committed is folded in), with
the label `Mergegate-Fix: <run>/<unit>/<task>/<review>/rNN`.

The reviewer runs in a throwaway checkout of the commit under review, kept under the run's
work trees and shared by the review's reviewers of that commit while nothing under it changed
(`GitRepository.kept_checkout`; each reviewer's run is still checked read-only on its own), and
removed when the review ends; the implementer's session is the unit's, resumed into the
fix rounds; every agent is held to the run's budgets (`Metered`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from mergegate.engine._context.run_agents import Metered
from mergegate.engine._context.run_events import RunEvent
from mergegate.engine._context.runtime import Runtime, current
from mergegate.engine._steps.core import keep_lost_attempt
from mergegate.errors import UsageError
from mergegate.events import Escalation, Notice
from mergegate.git import GitRepository, KeptSnapshots, Workspace, commit_with_key, reset_clean
from mergegate.ids import TrailerLine
from mergegate.review import (
    FixRound,
    ReviewAgents,
    ReviewContext,
    ReviewEvent,
    ReviewOptions,
    ReviewState,
    ReviewStop,
    decide,
    finish_review,
    run_step,
    start_review,
)
from mergegate.review.state import ReviewRecord
from mergegate.review.stream import review_events
from mergegate.store import step

__all__ = ["ReviewCall", "ReviewRun", "TaskRepository", "review_step"]


class ReviewCall(BaseModel):
    """What one review step takes: the review's `options` (the task's base, head and spec),
    its folder `run_dir` and the task's `task_dir`, the unit's `worktree`, the `phase`, `unit`
    and `task`, `key` (the task's `<run>/<unit>/<task>`), the unit's implementer `session`, the
    task's `deadline`, whether fix rounds are folded into the commit under review (`amend`),
    and the review's `state` (None for the first step). A step's arguments are never recorded
    (`mergegate.store.step`): the seam hands the step a copy, validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    options: ReviewOptions
    run_dir: str
    task_dir: str
    worktree: str
    phase: str
    unit: str
    task: str
    key: str
    session: str | None
    deadline: float | None
    amend: bool
    state: ReviewState | None = None


class ReviewRun(BaseModel):
    """One review step as it was recorded: the review's new `state`; its `outcome`
    (`ReviewOutcome.record()`) when this step ended the review, else None; why an agent was
    `stopped` (a budget, a stop request), else None; the `tokens` its agents used; when the
    review ended (`reviewed_at`, epoch seconds; None before)."""

    model_config = ConfigDict(extra="forbid")

    state: ReviewState
    outcome: ReviewRecord | None
    stopped: str | None
    tokens: int
    reviewed_at: float | None


class TaskRepository:
    """The review's `Repository` on a unit's workspace: reads go to `GitRepository`; a fix
    round's commit is made on `onto` (the commit under review) with the label `key`, and
    folded into it with `amend`.

    Reads between two commits are kept in `reads` (one dict per review, across its steps):
    the spec and the quality attempt of a round read the same diff and files, and between
    them nothing but reviewers — who work in throwaway checkouts — runs in the workspace. A
    commit (a fix round) clears it. So are the read-only check's snapshots (`snapshots`): the
    last reviewer's check after is the next reviewer's before."""

    def __init__(
        self,
        git: GitRepository,
        workspace: Workspace,
        *,
        key: str,
        amend: bool,
        reads: dict[tuple[str, ...], Any],
    ) -> None:
        self.git = git
        self.workspace = workspace
        self.root = workspace.root
        self.key = key
        self.amend = amend
        self.reads = reads
        self.onto = ""
        """The commit under review: a fix commit is made on it (set before each step)."""
        self.commits: frozenset[str] = frozenset()
        """Commit ids the engine recorded (the review's base and head, from git when the task
        was made): `resolve` gives them back without asking git again."""

    def _kept(self, *what: str) -> Any:
        return self.reads.get(what, _MISSING)

    @property
    def snapshots(self) -> KeptSnapshots:
        """The review's kept read-only snapshots (of its checkout and of the workspace)."""
        found = self.reads.get(_SNAPSHOTS)
        if not isinstance(found, KeptSnapshots):
            found = self.reads[_SNAPSHOTS] = KeptSnapshots()
        return found

    def resolve(self, ref: str) -> str:
        if ref in self.commits and _FULL_NAME.fullmatch(ref):
            return ref  # a commit the engine's own git call named
        return self.git.resolve(ref)

    def diff(self, base: str, head: str) -> str:
        """The diff, read with the names of the files it changes (one git call: a reviewer
        asks for both)."""
        found = self._kept("diff", base, head)
        if found is _MISSING:
            found, paths = self.git.diff_and_files(base, head)
            self.reads[("diff", base, head)] = found
            self.reads.setdefault(("changed", base, head), paths)
        return str(found)

    def changed_files(self, base: str, head: str) -> list[str]:
        found = self._kept("changed", base, head)
        if found is _MISSING:
            found = self.reads[("changed", base, head)] = self.git.changed_files(base, head)
        return list(found)

    def read_file(self, rev: str, path: str) -> str | None:
        found = self._kept("read", rev, path)
        if found is _MISSING:
            found = self.reads[("read", rev, path)] = self.git.read_file(rev, path)
        return None if found is None else str(found)

    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        missing = [p for p in paths if self._kept("read", rev, p) is _MISSING]
        if missing:
            for path, text in self.git.read_files(rev, missing).items():
                self.reads[("read", rev, path)] = text
        return {p: self.read_file(rev, p) for p in paths}

    def checkout(self, rev: str) -> AbstractContextManager[Path]:
        # one checkout for the review's reviewers of one commit (spec, quality, retries):
        # handed out again only while nothing under it changed (`GitRepository.kept_checkout`)
        return self.git.kept_checkout(rev)

    def commit_all(self, message: str) -> str | None:
        self.snapshots.clear()
        self.reads.clear()
        return commit_with_key(self.workspace, message, self.key, onto=self.onto, amend=self.amend)


_MISSING = object()
_SNAPSHOTS = ("read-only snapshots",)
_FULL_NAME = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _forward(rt: Runtime, call: ReviewCall) -> Any:
    def on_event(event: ReviewEvent) -> None:
        rt.events.emit(
            RunEvent(
                "step",
                event.message,
                phase=call.phase,
                unit=call.unit,
                task=call.task,
                step="fix" if event.stage == "fix" else "review",
            )
        )

    return on_event


def _agents(rt: Runtime, options: ReviewOptions, deadline: float | None) -> list[Metered]:
    """Reviewer, implementer (fix mode), fresh implementer — each held to the budgets."""
    assert rt.reviewer is not None
    # each attempt a row of the run, its log (a reviewer's: its raw output) shipped
    meters = [rt.metered(rt.reviewer, deadline, role="reviewer", record=True)]
    if options.fix:
        meters.append(rt.metered(rt.implementer, deadline, role="fixer", record=True))
        if rt.fresh_implementer is not None:
            meters.append(rt.metered(rt.fresh_implementer, deadline, role="fixer", record=True))
    return meters


def _opened(ctx: ReviewContext, call: ReviewCall) -> ReviewState:
    """The review's first state; a folder left by a first step lost in a crash is kept aside."""
    keep_lost_attempt(ctx.run_dir)
    state = start_review(ctx, run_id=Path(call.run_dir).name)
    return state.model_copy(update={"implementer_session": call.session})


def _fix_marker(call: ReviewCall, round_no: int) -> Path:
    return Path(call.task_dir) / "steps" / f"{Path(call.run_dir).name}-r{round_no:02d}-fix"


def _prepare_fix(call: ReviewCall, state: ReviewState, round_no: int, workspace: Workspace) -> None:
    """A fix round that ran before (lost in a crash) starts again from the commit under
    review: whatever the lost round edited or committed is discarded."""
    marker = _fix_marker(call, round_no)
    if marker.exists():
        reset_clean(workspace, state.current.head_sha)
    else:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


_END = ("summary.json", "summary.md", "escalation")


def _keep_lost_end(run_dir: Path) -> None:
    """A review's end already written belongs to a step lost in a crash (a step that ended the
    review and was recorded is never run again): that step ran its last attempt again, so the
    end it writes now may differ (`finish_review` never overwrites). The lost end is kept
    aside (`summary.json.lost-N`, …)."""
    for name in _END:
        keep_lost_attempt(run_dir / name)


def _review_facts(rt: Runtime, call: ReviewCall, state: ReviewState) -> None:
    """A finished review into the run's stream, read from its records (`review_events`):
    each reviewer and fixer attempt, each verdict, each fix round, the review's end. Their ids
    come from the records, so a step run again writes nothing twice. The review's own
    escalation is left out: the task's end says it (one escalation per thing a person must
    look at)."""
    run_dir = Path(call.run_dir)
    try:
        events = review_events(
            run_dir,
            run_id=rt.run_id,
            phase=call.phase,
            unit=call.unit,
            task=call.task,
            operation=run_dir.name,
            state=state,
        )
    except (UsageError, OSError, ValueError) as exc:
        # the review's decision stands; only its picture is missing
        events = [Notice(run_id=rt.run_id, message=f"review records unreadable: {exc}")]
    for event in events:
        if not isinstance(event, Escalation):
            rt.journal.emit(event)


def review_step(rt: Runtime, call: ReviewCall) -> ReviewRun:
    """One recorded step of a task's review (`_review_step`); when it ended the review, the
    review goes into the run's event stream from the recorded result — so what is counted is
    what the review recorded, once (an attempt a crash lost and ran again is not a second
    verdict), and a replay writes nothing twice (the ids are the records'). `rt` is the
    task workflow's (the step itself fetches its own: a step's arguments are recorded)."""
    out = _review_step(call)
    if out.outcome is not None:
        _review_facts(rt, call, out.state)
    return out


def _snapshots(rt: Runtime, repo: TaskRepository) -> KeptSnapshots | None:
    """The review's kept snapshots, where nothing but its own steps touches the workspace and
    the checkout between two reviewer runs: a step ends with `rt.checkpoint`, a no-op on one
    machine, but across hosts (`rt.remote`) it stages the workspace's files and the next step
    may find the workspace rebuilt. A fix round clears them (`commit_all`, `_review_step`);
    the reviewers' own steps only read the workspace (`reads`) and run agents read-only."""
    if rt.remote is not None:
        return None
    return repo.snapshots


@step("mergegate.review")
def _review_step(call: ReviewCall) -> ReviewRun:
    """One step of a task's review: the next reviewer attempt or fix round (`ReviewRun`)."""
    rt = current()
    workspace = rt.workspace(call.worktree)
    options = call.options
    meters = _agents(rt, options, call.deadline)
    round_name = Path(call.run_dir).name
    key = TrailerLine.fix(call.key, round_name).format()
    repo = TaskRepository(
        rt.repository(call.worktree, call.unit),
        workspace,
        key=key,
        amend=call.amend,
        reads=rt.review_reads(call.run_dir),
    )
    repo.commits = frozenset((options.base, options.head))
    ctx = ReviewContext(
        repo=repo,
        agents=ReviewAgents(*meters),
        options=options,
        run_dir=Path(call.run_dir),
        events=_forward(rt, call),
        snapshots=_snapshots(rt, repo),
    )
    state = _opened(ctx, call) if call.state is None else call.state
    repo.onto = state.current.head_sha
    next_ = decide(state, options)
    stop: ReviewStop | None = next_ if isinstance(next_, ReviewStop) else None
    if stop is None:
        assert not isinstance(next_, ReviewStop)
        if isinstance(next_, FixRound):
            repo.snapshots.clear()  # the fixer writes the workspace (and a lost round did)
            repo.key = TrailerLine.fix(call.key, round_name, next_.round).format()
            _prepare_fix(call, state, next_.round, workspace)
        result = run_step(ctx, state, next_)
        state, stop = result.state, result.stop
    stopped = next((m.stopped for m in meters if m.stopped), None)
    outcome = None
    if stop is not None:
        _keep_lost_end(ctx.run_dir)
        outcome = finish_review(ctx, state, stop).record()
        # no reviewer of this review runs again; its files are deleted in the background
        # (tens of milliseconds of unlinks a task, on the task's path before; the run's end
        # waits for them, `_tidy`)
        repo.git.release_checkout(soon=True)
    rt.checkpoint(workspace.root)  # across hosts: a fix round's commit, pushed
    return ReviewRun(
        state=state,
        outcome=outcome,
        stopped=stopped,
        tokens=sum(m.tokens for m in meters),
        # recorded with the step: the task's report says when it was reviewed, the same on
        # every replay
        reviewed_at=time.time() if outcome is not None else None,
    )
