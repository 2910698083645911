"""What to do after an implementer run: a pure decision table (seed 002: stuck vs parse error vs
timeout, plus help requests and unreachable endpoints).

First matching row wins:

1. help requested (stream or JSON) → `consult` the advisors; past the limit `escalate` (exit 5);
2. stuck: a timeout or stall (the supervisor has killed the group) → `fresh_start` (clean work
   tree, new session, the original prompt); past the limit `escalate` (exit 5);
3. the CLI is not installed (`not_installed`) → `fail` at once (exit 4): no backoff brings a
   program onto PATH; a transport failure (the endpoint could not be reached) →
   `retry_transport` with backoff; past the limit `fail` (exit 4);
4. the run failed otherwise (error, crash, kill), in the implementer's run or in a retry →
   `fail` (exit 4);
5. a valid `agent-result` → `accept` (then mergegate's own checks);
6. an invalid `agent-result` → `ask_again` in the same session;
7. still invalid at the retry cap → `escalate` (exit 3: an invalid handoff is undecidable).

The limits are `agents.max_help_requests` (2), `agents.stuck_restarts` (1) and
`agents.transport_retries` (2); the counters are the task's, kept by the caller in its own
state (`RecoveryCounters.after(action)` gives the next one).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import RunStatus
from mergegate.config import AgentsConfig
from mergegate.decisions import ExitCode
from mergegate.implementer._results import ResultCollection

__all__ = [
    "Recovery",
    "RecoveryAction",
    "RecoveryCounters",
    "RecoveryLimits",
    "Situation",
    "decide_recovery",
]

_STUCK = frozenset({RunStatus.TIMEOUT, RunStatus.STALLED})


class RecoveryAction(StrEnum):
    ACCEPT = "accept"
    """A valid `agent-result`: go on to mergegate's own checks."""
    ASK_AGAIN = "ask_again"
    """A parse error: ask again in the same session with the exact error."""
    CONSULT = "consult"
    """The agent asked for help: consult the advisors, then resume its session with the advice."""
    FRESH_START = "fresh_start"
    """Stuck: reset the work tree to the task's start, start a new session with the prompt."""
    RETRY_TRANSPORT = "retry_transport"
    """The endpoint could not be reached: wait (backoff), run again."""
    ESCALATE = "escalate"
    """A person must decide (a cap was reached)."""
    FAIL = "fail"
    """An agent failure."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RecoveryLimits(_Value):
    max_help_requests: int = Field(2, ge=0)
    stuck_restarts: int = Field(1, ge=0)
    transport_retries: int = Field(2, ge=0)

    @classmethod
    def from_config(cls, agents: AgentsConfig) -> RecoveryLimits:
        return cls(
            max_help_requests=agents.max_help_requests,
            stuck_restarts=agents.stuck_restarts,
            transport_retries=agents.transport_retries,
        )


class RecoveryCounters(_Value):
    """What one task has used so far; part of the caller's serialisable task state."""

    help_requests: int = Field(0, ge=0)
    fresh_starts: int = Field(0, ge=0)
    transport_retries: int = Field(0, ge=0)

    def after(self, action: RecoveryAction) -> RecoveryCounters:
        """The counters once `action` has been taken."""
        field = {
            RecoveryAction.CONSULT: "help_requests",
            RecoveryAction.FRESH_START: "fresh_starts",
            RecoveryAction.RETRY_TRANSPORT: "transport_retries",
        }.get(action)
        if field is None:
            return self
        return self.model_copy(update={field: getattr(self, field) + 1})


class Situation(_Value):
    """The facts the table reads (build it with `Situation.of(collection)`)."""

    run_status: RunStatus
    handoff: Literal["valid", "invalid", "escalated", "fatal"]
    help_requested: bool = False
    stuck: bool = False
    """A run timed out or stalled (the implementer's own, or a retry)."""
    transport_failure: bool = False

    @classmethod
    def of(cls, collection: ResultCollection) -> Situation:
        handoff: Literal["valid", "invalid", "escalated", "fatal"]
        if collection.status == "escalated":
            handoff = "escalated"
        elif collection.status == "fatal":
            handoff = "fatal"
        else:  # recovered, or help requested (with or without a valid result)
            handoff = "valid" if collection.result_data is not None else "invalid"
        return cls(
            run_status=collection.run_status,
            handoff=handoff,
            help_requested=collection.help.requested,
            stuck=collection.stuck,
            transport_failure=collection.transport_failure,
        )


class Recovery(_Value):
    """The decision: what to do, why, and the exit code when it ends the task."""

    action: RecoveryAction
    reason: str
    exit_code: ExitCode | None = None


def decide_recovery(
    situation: Situation, counters: RecoveryCounters, limits: RecoveryLimits | None = None
) -> Recovery:
    """Pure: the table in the module docstring, first matching row."""
    lim = limits or RecoveryLimits()
    if situation.help_requested:
        return _help(counters, lim)
    if situation.stuck or situation.run_status in _STUCK:
        return _stuck(situation, counters, lim)
    if situation.run_status is RunStatus.NOT_INSTALLED:
        return Recovery(
            action=RecoveryAction.FAIL,
            reason="the implementer's CLI is not installed (never retried: install it, then "
            "mergegate resume)",
            exit_code=ExitCode.AGENT_FAILURE,
        )
    if situation.transport_failure or situation.run_status is RunStatus.MISSING:
        return _transport(counters, lim)
    if situation.run_status is not RunStatus.OK or situation.handoff == "fatal":
        return Recovery(
            action=RecoveryAction.FAIL,
            reason=f"the implementer's run failed ({situation.run_status.value})",
            exit_code=ExitCode.AGENT_FAILURE,
        )
    return _handoff(situation)


def _help(counters: RecoveryCounters, lim: RecoveryLimits) -> Recovery:
    if counters.help_requests < lim.max_help_requests:
        n = counters.help_requests + 1
        return Recovery(
            action=RecoveryAction.CONSULT,
            reason=f"help request {n} of at most {lim.max_help_requests}",
        )
    return Recovery(
        action=RecoveryAction.ESCALATE,
        reason=(
            f"the implementer asked for help again after {counters.help_requests} answered "
            f"request(s) (max_help_requests = {lim.max_help_requests})"
        ),
        exit_code=ExitCode.ESCALATED,
    )


def _stuck(situation: Situation, counters: RecoveryCounters, lim: RecoveryLimits) -> Recovery:
    what = situation.run_status.value if situation.run_status in _STUCK else "stuck"
    if counters.fresh_starts < lim.stuck_restarts:
        return Recovery(
            action=RecoveryAction.FRESH_START,
            reason=f"the implementer's run {what}: start it fresh in a clean work tree",
        )
    return Recovery(
        action=RecoveryAction.ESCALATE,
        reason=f"the implementer's run {what} again after {counters.fresh_starts} fresh start(s)",
        exit_code=ExitCode.ESCALATED,
    )


def _transport(counters: RecoveryCounters, lim: RecoveryLimits) -> Recovery:
    if counters.transport_retries < lim.transport_retries:
        return Recovery(
            action=RecoveryAction.RETRY_TRANSPORT,
            reason=(
                f"the agent could not be reached: retry {counters.transport_retries + 1} of "
                f"{lim.transport_retries}, after a backoff"
            ),
        )
    return Recovery(
        action=RecoveryAction.FAIL,
        reason=f"the agent could not be reached after {counters.transport_retries} retries",
        exit_code=ExitCode.AGENT_FAILURE,
    )


def _handoff(situation: Situation) -> Recovery:
    if situation.handoff == "valid":
        return Recovery(action=RecoveryAction.ACCEPT, reason="a valid agent-result")
    if situation.handoff == "invalid":
        return Recovery(
            action=RecoveryAction.ASK_AGAIN,
            reason="the agent-result is invalid: ask again in the same session",
        )
    return Recovery(
        action=RecoveryAction.ESCALATE,
        reason="the agent-result stayed invalid after the retry cap",
        exit_code=ExitCode.UNDECIDABLE,
    )
