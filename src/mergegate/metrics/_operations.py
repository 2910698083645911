"""Retryable operations, rebuilt from events: the unit every success and retry rate counts.

An *operation* is one thing a component was asked to do, with its attempts:

* an agent role (`implementer`, `reviewer`, `advisor`, `verifier`, `fixer`): the
  `agent.attempt` events sharing task, role, `operation`, round and stage. A reviewer attempt
  whose run was fine but whose `verdict` was malformed or empty is a failed attempt (the
  verdict decides); an advisor attempt whose `help.advice` failed likewise;
* a handoff type (`handoff:<type>`): the `handoff.attempt` events of one handoff up to its
  `handoff.finished`, whose final status decides (recovered / escalated = exhausted / fatal).

Success is the last attempt's; an operation is *exhausted* when it failed on its last allowed
attempt (`max_attempts`, when the producer said), unless that attempt was stopped from
outside (`killed`: a cancel or a Ctrl-C is no retry budget running out). `Operations.add`
takes one event at a time and says which operations it touched, so a live monitor re-checks
only those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mergegate.events import (
    AgentAttempt,
    EventBase,
    HandoffAttempt,
    HandoffFinished,
    HelpAdvice,
    VerdictEvent,
)

__all__ = ["Operation", "Operations", "Try", "signature"]

OpKey = tuple[str, tuple[str, str, str, str], str, int, str]
"""(component, task key, operation, round, stage)."""

_DIGITS = re.compile(r"\d+")
_STOPPED = "killed"
"""The agent status of a run stopped from outside (`RunStatus.KILLED`)."""


def signature(failure: str, error: str) -> str:
    """A failure's identity across attempts: its type and its first words, numbers masked
    (`line 1 column 57` and `line 1 column 60` are the same failure)."""
    words = " ".join(error.split())[:160]
    return f"{failure}: {_DIGITS.sub('#', words)}".rstrip(": ")


@dataclass
class Try:
    """One attempt of an operation: how its run ended and what its output was worth, each
    `None` until an event said, `""` when fine, else why not."""

    attempt: int
    run: str | None = None
    """An agent status (timeout, error, …) or a handoff error type (json_syntax, stuck, …)."""
    output: str | None = None
    """A verdict that is no verdict (malformed, empty), advice that failed."""
    detail: str = ""
    timed_out: bool = False
    duration_s: float = 0.0
    where: str = ""

    @property
    def ok(self) -> bool:
        return not self.run and not self.output and (self.run, self.output) != (None, None)

    @property
    def failure(self) -> str:
        return self.run or self.output or ""

    @property
    def signature(self) -> str:
        return signature(self.failure, self.detail) if self.failure else ""


@dataclass
class Operation:
    component: str
    key: tuple[object, ...]
    tries: dict[int, Try] = field(default_factory=dict)
    max_attempts: int = 0
    final: str | None = None
    """A handoff's final status once finished; None for agent operations."""

    def ordered(self) -> list[Try]:
        return [self.tries[n] for n in sorted(self.tries)]

    @property
    def attempts(self) -> int:
        return len(self.tries)

    @property
    def succeeded(self) -> bool:
        if self.final is not None:
            return self.final == "recovered"
        tries = self.ordered()
        return bool(tries) and tries[-1].ok

    @property
    def exhausted(self) -> bool:
        if self.final is not None:
            return self.final == "escalated"
        if self.succeeded or not self.max_attempts or not self.tries:
            return False
        if self.ordered()[-1].run == _STOPPED:
            return False  # stopped from outside (cancel, Ctrl-C): no retry budget ran out
        return max(self.tries) >= self.max_attempts


def _where(event: EventBase, attempt: int) -> str:
    parts = [p for p in (event.run_id, event.phase, event.unit, event.task) if p]
    return "/".join(parts) + f" attempt {attempt}"


class Operations:
    """Every operation of a stream, built one event at a time."""

    def __init__(self) -> None:
        self.ops: dict[tuple[object, ...], Operation] = {}
        self._components: dict[str, list[Operation]] = {}
        self._handoff_serial: dict[tuple[object, ...], int] = {}

    def by_component(self) -> dict[str, list[Operation]]:
        """Operations by component, in the order they started (kept as events arrive)."""
        return self._components

    def add(self, event: EventBase) -> Operation | None:
        """Fold `event` in; the operation it touched, if any."""
        if isinstance(event, AgentAttempt):
            return self._agent(event)
        if isinstance(event, VerdictEvent):
            return self._judged(
                ("reviewer", event.task_key, event.operation, event.round, event.stage),
                event,
                ok=event.valid,
                failure=event.decision,
                max_attempts=event.max_attempts,
            )
        if isinstance(event, HelpAdvice):
            return self._judged(
                ("advisor", event.task_key, event.operation, 0, ""),
                event,
                ok=event.status == "ok",
                failure="advice_" + event.status if event.status != "ok" else "",
                max_attempts=event.max_attempts,
                error=event.error,
            )
        if isinstance(event, HandoffAttempt):
            return self._handoff_attempt(event)
        if isinstance(event, HandoffFinished):
            return self._handoff_finished(event)
        return None

    def _op(self, key: tuple[object, ...], component: str) -> Operation:
        op = self.ops.get(key)
        if op is None:
            op = self.ops[key] = Operation(component, key)
            self._components.setdefault(component, []).append(op)
        return op

    def _agent(self, event: AgentAttempt) -> Operation:
        key: OpKey = (event.role, event.task_key, event.operation, event.round, event.stage)
        op = self._op(key, event.role)
        op.max_attempts = max(op.max_attempts, event.max_attempts)
        found = op.tries.setdefault(event.attempt, Try(event.attempt))
        found.run = "" if event.ok else event.status
        if not event.ok:
            found.detail = event.error
        found.timed_out = event.timed_out
        found.duration_s = event.duration_s
        found.where = _where(event, event.attempt)
        return op

    def _judged(
        self,
        key: OpKey,
        event: VerdictEvent | HelpAdvice,
        *,
        ok: bool,
        failure: str,
        max_attempts: int,
        error: str = "",
    ) -> Operation:
        """A judgement of an attempt's output: an agent run that went fine is still a failed
        attempt when its output was unusable."""
        op = self._op(key, key[0])
        op.max_attempts = max(op.max_attempts, max_attempts)
        found = op.tries.setdefault(event.attempt, Try(event.attempt))
        found.output = "" if ok else failure
        if not ok and not found.detail:
            found.detail = event.reason if isinstance(event, VerdictEvent) else error
        found.where = found.where or _where(event, event.attempt)
        return op

    def _handoff_key(self, event: HandoffAttempt | HandoffFinished) -> tuple[object, ...]:
        base = (event.task_key, event.handoff_type, event.component, event.session_id)
        return ("handoff", *base, self._handoff_serial.get(base, 0))

    def _handoff_attempt(self, event: HandoffAttempt) -> Operation:
        op = self._op(self._handoff_key(event), f"handoff:{event.handoff_type}")
        op.max_attempts = max(op.max_attempts, event.max_attempts)
        ok = event.result == "success"
        op.tries[event.attempt] = Try(
            attempt=event.attempt,
            run="" if ok else (event.error_type or "failure"),
            detail=event.error,
            timed_out=event.error_type == "stuck",
            duration_s=event.duration_s,
            where=_where(event, event.attempt),
        )
        return op

    def _handoff_finished(self, event: HandoffFinished) -> Operation:
        key = self._handoff_key(event)
        op = self._op(key, f"handoff:{event.handoff_type}")
        op.final = event.final_status
        op.max_attempts = max(op.max_attempts, event.max_attempts)
        for n in range(1, event.attempts + 1):  # attempts the stream did not carry
            if n not in op.tries:
                last = n == event.attempts
                ok = last and event.final_status == "recovered"
                op.tries[n] = Try(attempt=n, run="" if ok else (event.error_type or "failure"))
        base = (event.task_key, event.handoff_type, event.component, event.session_id)
        self._handoff_serial[base] = self._handoff_serial.get(base, 0) + 1
        return op
