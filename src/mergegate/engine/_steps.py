"""The steps of a run: every piece of I/O (agents, git, checks, a person's answer).

A step's result is recorded when it returns and is never recomputed: after a crash, the
workflow replays and gets the recorded value back. A step that was in flight when the process
died runs again, so each one starts by making its own re-run safe:

* an implementer step first resets its work tree to the last recorded commit (a half-finished
  edit of the lost attempt is discarded), and keeps the lost attempt's folder as a record;
* commit and merge steps look for their own trailer first (`Mergegate-Task:`, `Mergegate-Fix:`,
  `Mergegate-Unit:`) and return what they find instead of committing twice;
* work tree and branch steps reuse what exists.

`DurableBackend` and `DurableRepository` put these steps behind the interfaces the review loop
already takes (`Backend`, `Repository`), so the loop's agent runs and fix commits are steps
too, each one recorded on its own.
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mergegate.agents.base import AgentRequest, AgentResult, BackendCapabilities, RunStatus
from mergegate.atomic_files import read_json_validated
from mergegate.engine._files import write_json_atomic
from mergegate.engine._runtime import current
from mergegate.errors import UsageError
from mergegate.git import (
    GitRepository,
    MergeResult,
    add_worktree,
    branch_tip,
    commit_with_key,
    create_branch,
    merge_no_ff,
    remove_worktree,
    reset_clean,
)
from mergegate.plans import Check
from mergegate.processes import Limits, supervise
from mergegate.store import step

__all__ = [
    "Cursor",
    "DurableBackend",
    "DurableRepository",
    "answer_step",
    "branch_step",
    "check_step",
    "commit_step",
    "human_step",
    "merge_step",
    "remove_worktree_step",
    "stop_reason",
    "tip_step",
    "worktree_step",
]

_OUTPUT_TAIL = 4000
RESULT_FILE = "result.json"


@dataclass
class Cursor:
    """What one execution of a task workflow knows so far: deterministic on replay, because
    every field changes only from recorded step results."""

    run_id: str
    phase: str
    unit: str
    task: str
    number: int
    worktree: Path
    task_dir: Path
    head: str
    """The last recorded commit: an agent step that re-runs starts from here."""
    session: str | None
    """The unit's implementer session, resumed from task to task."""
    deadline: float | None = None
    attempts: int = 0
    commits: int = 0
    nonces: int = 0
    stopped: str | None = None
    """Why a step refused to run (a budget, a stop request): the task stops cleanly."""
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.run_id}/{self.unit}/{self.task}"

    def next_attempt_dir(self, role: str) -> Path:
        self.attempts += 1
        return self.task_dir / "attempts" / f"{self.attempts:02d}-{role}"


# ---------------------------------------------------------------- stop conditions


def stop_reason(deadline: float | None) -> str | None:
    """Why no further agent may start now: a stop request or a budget, else None."""
    rt = current()
    stop = rt.stop_file()
    if stop.exists():
        return stop.read_text("utf-8").strip() or "the run was asked to stop"
    opts, now = rt.options, time.time()
    if opts.run_wall_s is not None and now - rt.record.started_epoch >= opts.run_wall_s:
        return f"budget: run wall time {opts.run_wall_s:g} s reached"
    if deadline is not None and now >= deadline:
        return f"budget: task wall time {opts.task_wall_s:g} s reached"
    if opts.max_tokens is not None and rt.usage.tokens >= opts.max_tokens:
        return f"budget: {rt.usage.tokens} tokens used of {opts.max_tokens}"
    if opts.max_cost_usd is not None and rt.usage.cost_usd >= opts.max_cost_usd:
        return f"budget: ${rt.usage.cost_usd:.2f} spent of ${opts.max_cost_usd:.2f}"
    return None


def _remaining(deadline: float | None) -> float | None:
    rt = current()
    ends = [d for d in (deadline,) if d is not None]
    if rt.options.run_wall_s is not None:
        ends.append(rt.record.started_epoch + rt.options.run_wall_s)
    return max(1.0, min(ends) - time.time()) if ends else None


def _keep_lost_attempt(path: Path) -> bool:
    """An attempt folder already there belongs to a run lost in a crash: keep it aside.
    True when there was one (the step is running again)."""
    if not path.exists():
        return False
    n = 1
    while (lost := path.with_name(f"{path.name}.lost-{n}")).exists():
        n += 1
    path.rename(lost)
    return True


# ---------------------------------------------------------------- agents


@step("mergegate.agent")
def agent_step(call: dict[str, Any]) -> dict[str, Any]:
    """Run one agent attempt (implementer or reviewer) in the unit's work tree."""
    rt = current()
    request = AgentRequest.model_validate(call["request"])
    backend = rt.implementer if call["role"] == "implementer" else rt.reviewer
    assert backend is not None
    why = stop_reason(call.get("deadline"))
    if why is not None:
        refused = AgentResult(
            backend=backend.name, status=RunStatus.KILLED, error=f"stopped: {why}"
        )
        return {"result": refused.model_dump(mode="json"), "stopped": why}
    attempt_dir = Path(call["attempt_dir"])
    again = _keep_lost_attempt(attempt_dir)
    attempt_dir.mkdir(parents=True)
    if again and call.get("reset_to"):
        # the lost attempt may have half-edited the tree: start from the last recorded commit
        # (a first attempt finds the tree as the previous step recorded it)
        reset_clean(request.cwd, call["reset_to"])
    left = _remaining(call.get("deadline"))
    update: dict[str, Any] = {"attempt_dir": attempt_dir}
    if left is not None:
        update["timeout_s"] = min(request.timeout_s, left)
    result = backend.run(request.model_copy(update=update))
    write_json_atomic(attempt_dir / RESULT_FILE, result)
    rt.usage.add(result.usage.total_tokens, result.cost_usd)
    stopped: str | None = None
    if not result.ok and rt.stop_file().exists():
        stopped = stop_reason(call.get("deadline"))  # killed by `cancel`: not an agent failure
    elif (
        result.status is RunStatus.TIMEOUT
        and update.get("timeout_s", request.timeout_s) < request.timeout_s
    ):
        # the limit was the budget's, not the agent's: a clean budget stop, not an agent failure
        stopped = stop_reason(call.get("deadline")) or "budget: wall time reached"
    return {"result": result.model_dump(mode="json"), "stopped": stopped}


class DurableBackend:
    """A `Backend` whose every run is a recorded step (for the review loop's agent calls).

    The implementer role resumes the unit's session when the loop starts a new one, and starts
    each attempt from the cursor's last recorded commit.
    """

    def __init__(
        self, role: str, name: str, capabilities: BackendCapabilities, cursor: Cursor
    ) -> None:
        self.role, self.name, self.capabilities, self.cursor = role, name, capabilities, cursor

    def run(self, request: AgentRequest) -> AgentResult:
        cur = self.cursor
        if self.role == "implementer" and request.resume_session_id is None:
            request = request.model_copy(update={"resume_session_id": cur.session})
        label = self.role if self.role == "implementer" else f"review-a{request.attempt}"
        call = {
            "role": self.role,
            "request": request.model_dump(mode="json"),
            "attempt_dir": str(cur.next_attempt_dir(label)),
            "reset_to": cur.head if self.role == "implementer" else None,
            "deadline": cur.deadline,
        }
        out = agent_step(call)
        result = AgentResult.model_validate(out["result"])
        if out["stopped"]:
            cur.stopped = out["stopped"]
        if self.role == "implementer" and result.session_id:
            cur.session = result.session_id
        for name, value in result.usage.model_dump().items():
            cur.usage[name] = cur.usage.get(name, 0) + int(value)
        return result


# ---------------------------------------------------------------- git


@step("mergegate.commit", retries=3)
def commit_step(call: dict[str, Any]) -> str | None:
    """One commit, idempotent by its key trailer; None when there was nothing to commit."""
    return commit_with_key(
        Path(call["worktree"]),
        call["message"],
        call["key"],
        squash_onto=call.get("squash_onto"),
        amend=bool(call.get("amend")),
    )


class DurableRepository:
    """The review loop's `Repository` on a unit's work tree; fix commits are recorded steps."""

    def __init__(self, cursor: Cursor, *, amend: bool) -> None:
        self.cursor = cursor
        self.amend = amend
        self._git = GitRepository(cursor.worktree)
        self.root = self._git.root

    def resolve(self, ref: str) -> str:
        return self._git.resolve(ref)

    def diff(self, base: str, head: str) -> str:
        return self._git.diff(base, head)

    def changed_files(self, base: str, head: str) -> list[str]:
        return self._git.changed_files(base, head)

    def read_file(self, rev: str, path: str) -> str | None:
        return self._git.read_file(rev, path)

    def checkout(self, rev: str) -> AbstractContextManager[Path]:
        return self._git.checkout(rev)

    def commit_all(self, message: str) -> str | None:
        cur = self.cursor
        cur.commits += 1
        sha = commit_step(
            {
                "worktree": str(cur.worktree),
                "message": message,
                "key": f"Mergegate-Fix: {cur.key}/c{cur.commits}",
                "amend": self.amend,
            }
        )
        if sha is not None:
            cur.head = sha
        return sha


@step("mergegate.branch", retries=3)
def branch_step(repo: str, branch: str, sha: str) -> str:
    """Create `branch` at `sha` unless it exists; its tip."""
    return create_branch(Path(repo), branch, sha)


@step("mergegate.tip", retries=3)
def tip_step(repo: str, branch: str) -> str:
    """The integration branch's tip at the start of a wave."""
    tip = branch_tip(Path(repo), branch)
    if tip is None:
        raise UsageError(f"the integration branch {branch!r} is gone")
    return tip


@step("mergegate.worktree", retries=3)
def worktree_step(repo: str, path: str, branch: str, base: str) -> str:
    """The unit's work tree (made, or found after a crash); its HEAD."""
    return add_worktree(Path(repo), Path(path), branch, base)


@step("mergegate.remove_worktree", retries=3)
def remove_worktree_step(repo: str, path: str) -> None:
    remove_worktree(Path(repo), Path(path))


@step("mergegate.merge", retries=3)
def merge_step(repo: str, into: str, branch: str, message: str, key: str) -> dict[str, Any]:
    """Merge a unit into the integration branch exactly once (see `merge_no_ff`)."""
    result: MergeResult = merge_no_ff(Path(repo), into, branch, message, key)
    return {
        "commit": result.commit,
        "already": result.already,
        "conflicts": list(result.conflicts),
        "ours": result.ours,
        "theirs": result.theirs,
        "base": result.base,
    }


# ---------------------------------------------------------------- checks and people


@step("mergegate.check")
def check_step(worktree: str, checks: list[dict[str, Any]], folder: str) -> list[dict[str, Any]]:
    """Run the task's machine checks in the work tree, each under the supervisor.

    A check is plan text for a shell (`/bin/sh -c`), run with the check's time limit, no
    stall limit, bounded output and a scrubbed environment.
    """
    rt = current()
    results = []
    for i, raw in enumerate(checks, start=1):
        check = Check.model_validate(raw)
        attempt_dir = Path(folder) / f"{i:02d}"
        _keep_lost_attempt(attempt_dir)
        timeout = check.timeout_s or rt.options.check_timeout_s
        outcome = supervise(
            ["/bin/sh", "-c", check.run],
            cwd=Path(worktree),
            attempt_dir=attempt_dir,
            limits=Limits(timeout_s=timeout, stall_timeout_s=None, kill_grace_s=5.0),
            log_prefix="check",
        )
        output = (outcome.stdout_tail + outcome.stderr_tail).decode("utf-8", "replace")
        passed = outcome.reason.value == "exited" and outcome.returncode == check.expect_exit
        result = {
            "run": check.run,
            "expect_exit": check.expect_exit,
            "exit": outcome.returncode,
            "reason": outcome.reason.value,
            "passed": passed,
            "output": output[-_OUTPUT_TAIL:],
            "duration_s": round(outcome.duration_s, 3),
        }
        write_json_atomic(attempt_dir / RESULT_FILE, result)
        results.append(result)
    return results


@step("mergegate.answer")
def answer_step(run_dir: str, key: str) -> dict[str, Any] | None:
    """A person's recorded answer to a checkpoint task (`resume --answer`), if any."""
    path = Path(run_dir) / "answers.json"
    if not path.is_file():
        return None
    answers = json.loads(path.read_text("utf-8"))
    found = answers.get(key)
    return dict(found) if isinstance(found, dict) else None


@step("mergegate.human")
def human_step(text: str) -> bool:
    """Show a review to the person at the terminal; their yes/no (review.mode = manual)."""
    human = current().human
    if human is None:
        raise UsageError("review.mode = manual needs a person at a terminal (no TTY here)")
    return human(text)


def read_result(path: Path) -> AgentResult | None:
    """The recorded result of an attempt folder, if it finished."""
    if not (path / RESULT_FILE).is_file():
        return None
    try:
        return read_json_validated(path / RESULT_FILE, AgentResult)
    except UsageError:
        return None
