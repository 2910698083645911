"""The agents of a run: which ones it uses (recorded, so `resume` rebuilds the same), and the
budgets every agent run of it is held to.

Backends are built the one way every command builds them
(`mergegate.agents.registry.backend_from_config`); a run records only the names and commands
it was given (`RunAgents` in `run.json`). `Metered` puts a backend under the run's budgets and
stop requests, for every role: the implementer, the reviewers inside the review steps, the
verifier. What a budget counts on across processes — the stop request and what earlier
processes spent — is the run's `RunLedger` (its rows in the database), never a file in the
run's folder an agent could delete or write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from mergegate.agents import OutputTap, output_tap
from mergegate.agents.base import AgentRequest, AgentResult, Backend, RunStatus
from mergegate.agents.registry import backend_from_config
from mergegate.config import Config

__all__ = ["AgentSpec", "Budget", "Metered", "RunAgents", "RunLedger", "build_backend"]


class AgentSpec(BaseModel):
    """One agent as the run was asked for it: a backend name, or a command (which wins)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    cmd: str | None = None

    def __bool__(self) -> bool:
        return bool(self.name or self.cmd)

    def label(self) -> str:
        return self.name or f"command ({self.cmd})"


class RunAgents(BaseModel):
    """The agents of a run, recorded in `run.json`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    implementer: AgentSpec
    reviewer: AgentSpec | None = None
    verifier: AgentSpec | None = None
    advisors: tuple[str, ...] = ()
    """Advisor backends (`NAME` or `NAME:MODEL`), as given by `--advisor` or `[agents]`."""
    advisor_cmds: tuple[str, ...] = ()
    """Advisor programs (`--advisor-cmd`, `[agents] advisor_cmds`); `{prompt_file}` is the
    request's file, as for every command backend."""


def build_backend(spec: AgentSpec | None, config: Config) -> Backend | None:
    """The backend `spec` names, with its `[agents.backends.NAME]` options; None for none."""
    if not spec:
        return None
    return backend_from_config(config.agents, spec.name, cmd=spec.cmd)


class RunLedger(Protocol):
    """What a run's budget counts on across its processes (and a fleet's workers): kept where
    agents cannot write (`mergegate.store.RunRows`)."""

    def stop_request(self) -> str | None:
        """Why no agent of the run may start any more (`cancel`, `on_escalation = stop`)."""

    def add_usage(self, tokens: int, cost_usd: float) -> None:
        """One agent run's tokens and cost."""

    def usage(self) -> tuple[int, float]:
        """Tokens and dollars spent so far by every process of the run."""


@dataclass
class Budget:
    """The run's limits and what it has spent so far.

    Wall time is measured from the run's start (`started`, recorded on its card) and from a
    task's recorded start (`deadline`). With a token or cost budget and a ledger, each agent
    run's spending is added to the ledger, and `tokens` and `cost_usd` are the ledger's total
    — what every process and fleet worker of the run recorded — read again before each agent
    starts: no worker goes on from a count it took at its start. Without a ledger (a budget
    outside a run) they count this process's agents only, there is no stop request and
    nothing is kept.

    With a token or cost budget, an agent starts through `admit`: each agent in flight in
    this process reserves one step (the most one agent of this process has spent so far), and
    an agent starts beside others only while what is spent plus what they reserve leaves room
    for its step too; otherwise it waits until this process has no agent in flight, then
    starts if anything is left. So at most one agent per process (a worker, or a local run at
    any `--concurrency`) is ever running without room for it, and the run overspends by at
    most one step per worker — "one step" being that agent's own spending, and each other
    agent's excess over the largest step seen before it started. The reservations live in the
    process: one that dies takes them with it, so nothing is left to release on a resume.
    """

    started: float
    ledger: RunLedger | None = None
    run_wall_s: float | None = None
    task_wall_s: float | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    tokens: int = 0
    cost_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _room: threading.Condition = field(default_factory=threading.Condition, repr=False)
    """Held while deciding whether an agent may start; told when one ends."""
    _in_flight: int = field(default=0, repr=False)
    _step: tuple[int, float] | None = field(default=None, repr=False)
    """The most tokens and dollars one agent of this process spent: what one reserves."""

    def admit(self, deadline: float | None) -> str | None:
        """Why no agent may start now (as `stop_reason`), or None after reserving a step for
        it: the caller then runs the agent and calls `settle` with its result (or None)."""
        with self._room:
            while True:
                why = self.stop_reason(deadline)
                if why is not None or not self.metered or self._fits():
                    if why is None:
                        self._in_flight += 1
                    return why
                # no room beside the agents in flight: wait for one to end (the timeout
                # re-reads stop requests, wall time and what other workers spent)
                self._room.wait(timeout=1.0)

    def settle(self, result: AgentResult | None) -> None:
        """The agent `admit` let start ended: its reservation becomes its real spending."""
        if result is not None:
            self.add(result)
        with self._room:
            self._in_flight -= 1
            if result is not None:
                tokens, cost = result.usage.total_tokens, result.cost_usd or 0.0
                old = self._step or (0, 0.0)
                self._step = (max(old[0], tokens), max(old[1], cost))
            self._room.notify_all()

    def _fits(self) -> bool:
        """Whether one more agent may start now: alone, or with a step's room for each agent
        in flight and for itself (nothing is known of a step before one has ended)."""
        if self._in_flight == 0:
            return True
        if self._step is None:
            return False
        steps = self._in_flight + 1
        tokens, cost = self._step
        if self.max_tokens is not None and self.tokens + steps * tokens > self.max_tokens:
            return False
        return self.max_cost_usd is None or self.cost_usd + steps * cost <= self.max_cost_usd

    def stop_requested(self) -> str | None:
        """Why the run was asked to stop, or None."""
        return self.ledger.stop_request() if self.ledger is not None else None

    def stop_reason(self, deadline: float | None) -> str | None:
        """Why no agent may start now: a stop request or a budget; None to go on."""
        requested = self.stop_requested()
        if requested is not None:
            return requested or "the run was asked to stop"
        self.seed()
        now = time.time()
        if self.run_wall_s is not None and now - self.started >= self.run_wall_s:
            return f"budget: run wall time {self.run_wall_s:g} s reached"
        if deadline is not None and now >= deadline:
            return f"budget: task wall time {self.task_wall_s or 0:g} s reached"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"budget: {self.tokens} tokens used of {self.max_tokens}"
        if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
            return f"budget: ${self.cost_usd:.2f} spent of ${self.max_cost_usd:.2f}"
        return None

    def remaining_s(self, deadline: float | None) -> float | None:
        """Seconds left before a wall-time budget ends (at least 1), or None without one."""
        ends = [d for d in (deadline,) if d is not None]
        if self.run_wall_s is not None:
            ends.append(self.started + self.run_wall_s)
        return max(1.0, min(ends) - time.time()) if ends else None

    @property
    def metered(self) -> bool:
        return self.max_tokens is not None or self.max_cost_usd is not None

    def add(self, result: AgentResult) -> None:
        tokens = result.usage.total_tokens
        with self._lock:
            self.tokens += tokens
            self.cost_usd += result.cost_usd or 0.0
        if self.ledger is not None and self.metered:
            self.ledger.add_usage(tokens, result.cost_usd or 0.0)

    def seed(self) -> None:
        """Count what every process of this run spent so far: the ledger's total (it holds
        this process's spending too), never less than what this process has counted."""
        if self.ledger is None or not self.metered:
            return
        tokens, cost = self.ledger.usage()
        with self._lock:
            self.tokens = max(self.tokens, tokens)
            self.cost_usd = max(self.cost_usd, cost)


class Metered:
    """A `Backend` held to the run's budgets and stop requests.

    Before a run: a stop request or a spent budget refuses it (a `killed` result saying why,
    and `stopped` is set). During: its time limit is cut to the wall time left. After: its
    tokens and cost are counted; a run that failed because the run was asked to stop, or ran
    out of budgeted time, sets `stopped` too, so the task ends cleanly instead of as an agent
    failure.
    """

    def __init__(
        self,
        backend: Backend,
        budget: Budget,
        deadline: float | None,
        *,
        tap: OutputTap | None = None,
        ended: Callable[[AgentRequest, AgentResult], None] | None = None,
    ) -> None:
        self.backend = backend
        self.tap = tap
        """Shown each output line of its runs (`--stream-agents`), or None."""
        self.ended = ended
        """Told of each run that ran (its request and result), or None: the run's attempt
        rows (`Runtime.metered` with `record`)."""
        self.name = backend.name
        self.starts_processes = bool(getattr(backend, "starts_processes", True))
        self.capabilities = backend.capabilities
        self.budget = budget
        self.deadline = deadline
        self.stopped: str | None = None
        self.tokens = 0

    def run(self, request: AgentRequest) -> AgentResult:
        why = self.budget.admit(self.deadline)
        if why is not None:
            self.stopped = why
            return AgentResult(backend=self.name, status=RunStatus.KILLED, error=f"stopped: {why}")
        result: AgentResult | None = None
        try:
            left = self.budget.remaining_s(self.deadline)
            clamped = left is not None and left < request.timeout_s
            if clamped:
                request = request.model_copy(update={"timeout_s": left})
            with output_tap(self.tap):
                result = self.backend.run(request)
            if self.ended is not None:
                self.ended(request, result)
        finally:
            self.budget.settle(result)
        self.tokens += result.usage.total_tokens
        if not result.ok:
            if self.budget.stop_requested() is not None:
                self.stopped = self.budget.stop_reason(self.deadline)
            elif clamped and result.status is RunStatus.TIMEOUT:
                # the limit was the budget's, not the agent's: a budget stop, not a failure
                self.stopped = self.budget.stop_reason(self.deadline) or "budget: wall time"
        return result
