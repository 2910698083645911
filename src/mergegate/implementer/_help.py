"""Help requests: did the implementer ask for help, and the package its advisors are given.

Two sources say whether an implementer asked for help: the **stream** (a `>>>HELP<<<` line of
its assistant text, found by `mergegate.agents.signals.HelpDetector` as a whole line, with an
optional JSON object on the next line as context) and its **result** (`requested_help` and
`help_context` in the `agent-result` handoff). The stream wins (seed 002): a signal in the
stream is a help request even when the JSON says `requested_help: false`, and that
contradiction is a warning. A claim in the JSON without a signal is still honoured (asking is
the safe side), with a warning too. A marker inside a sentence is not a signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import HelpSignal
from mergegate.agents.signals import reconcile_requested_help
from mergegate.handoff import AgentResultPayload
from mergegate.implementer._prompts import MAX_SPEC_CHARS, cut

__all__ = [
    "RECENT_OUTPUT_CHARS",
    "HelpAssessment",
    "HelpRequest",
    "assess_help",
    "help_request",
]

RECENT_OUTPUT_CHARS = 8000
"""How much of the implementer's latest output (its tail) an advisor is given."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HelpAssessment(_Value):
    """Whether help was requested, which source said so, and what the agent said it needs."""

    requested: bool
    source: Literal["stream", "json", "both", "none"]
    context: dict[str, Any] | None = None
    """The stream's context line when there is one, else the result's `help_context`."""
    marker: str | None = None
    """The marker as found in the stream (None when only the JSON asked)."""
    note: str | None = None
    """Why the sources differ, when they do."""
    warning: bool = False
    """The sources contradict each other (a signal with `requested_help: false`, or
    `requested_help: true` without a signal): a `help.discrepancy` warning event."""


def assess_help(signals: Sequence[HelpSignal], result: AgentResultPayload | None) -> HelpAssessment:
    """Reconcile the stream's help signals with the agent's result (None: no valid result).

    Pure. The stream wins; a `requested_help` the JSON left out is no contradiction."""
    claimed = (
        result.requested_help
        if result is not None and "requested_help" in result.model_fields_set
        else None
    )
    reconciled = reconcile_requested_help(claimed, signals)
    streamed = next((s.context for s in signals if s.context is not None), None)
    context = streamed if streamed is not None else (result.help_context if result else None)
    contradiction = (reconciled.source == "stream" and claimed is False) or (
        reconciled.source == "json"
    )
    return HelpAssessment(
        requested=reconciled.requested_help,
        source=reconciled.source,
        context=context if reconciled.requested_help else None,
        marker=signals[0].marker if signals else None,
        note=reconciled.note,
        warning=contradiction,
    )


class HelpRequest(_Value):
    """The package an advisor is given: the task, what the agent is stuck on, its recent output.

    Serialisable: it is the heart of the consultation's state file and of the escalation
    package when no advisor answers."""

    run_id: str = ""
    task_id: str = Field(min_length=1)
    task: str
    """The task as the implementer was given it (bounded)."""
    number: int = Field(ge=1)
    """This task's help request number (1-based)."""
    max_requests: int = Field(ge=1)
    implementer: str = ""
    """The implementer's backend name."""
    session_id: str | None = None
    """The implementer's session, resumed with the advice."""
    source: Literal["stream", "json", "both"]
    context: dict[str, Any] | None = None
    recent_output: str = ""
    """The tail of the implementer's latest output (untrusted)."""

    @property
    def key(self) -> str:
        """A stable name for this request's records, e.g. `help-01`."""
        return f"help-{self.number:02d}"


def help_request(
    *,
    task_id: str,
    task: str,
    assessment: HelpAssessment,
    recent_output: str,
    number: int,
    max_requests: int,
    session_id: str | None = None,
    implementer: str = "",
    run_id: str = "",
) -> HelpRequest:
    """The package for the advisors; `ValueError` when `assessment` asked for no help."""
    if not assessment.requested or assessment.source == "none":
        raise ValueError("no help was requested")
    return HelpRequest(
        run_id=run_id,
        task_id=task_id,
        task=cut(task, MAX_SPEC_CHARS),
        number=number,
        max_requests=max(max_requests, number),
        implementer=implementer,
        session_id=session_id,
        source=assessment.source,
        context=assessment.context,
        recent_output=cut(recent_output, RECENT_OUTPUT_CHARS, keep="tail"),
    )
