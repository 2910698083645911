"""What a review run reports while it runs: small typed events for progress displays.

The loop emits one `ReviewEvent` per step (a round starts, an agent starts and finishes, a stage
is decided, a malformed review is retried, a fix is committed, the run escalates or finishes).
A renderer turns them into a live terminal display or plain log lines.

Event text is **raw**: `message` and `details` may quote reviewer output (finding titles and
ids, parse problems, agent errors), which is untrusted. Whoever renders an event on a terminal
must strip control characters and escape markup; the loop does not, because only the renderer
knows its medium.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["EventKind", "ReviewEvent"]


class EventKind(StrEnum):
    """The steps of a run, in the order they can happen."""

    NOTICE = "notice"
    """Something the user should know that changes nothing (no spec given; diff only)."""
    ROUND_STARTED = "round_started"
    AGENT_STARTED = "agent_started"
    """A reviewer (stage `spec`/`quality`) or the implementer (stage `fix`) starts."""
    AGENT_FINISHED = "agent_finished"
    RETRY = "retry"
    """A malformed or empty review is retried (seed 000's "— retrying once")."""
    STAGE_RESULT = "stage_result"
    """A stage has a valid verdict; `ok` says whether it passed the gate."""
    FIX_COMMITTED = "fix_committed"
    ESCALATED = "escalated"
    FINISHED = "finished"
    """The run's outcome; `ok` is true only when approved."""


@dataclass(frozen=True)
class ReviewEvent:
    """One step of a run. `round`, `stage` and `attempt` are 0/"" when they do not apply."""

    kind: EventKind
    message: str
    round: int = 0
    stage: str = ""
    attempt: int = 0
    ok: bool | None = None
    details: tuple[str, ...] = ()
    """Extra lines (e.g. one per finding of a stage result); untrusted like `message`."""
