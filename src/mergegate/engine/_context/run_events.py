"""What a run reports while it happens: one typed event per step, for live views and logs.

Events are emitted from workflow code, so a run recovered after a crash emits the replayed
steps' events again (marked `replayed` where known); a view shows the latest state of each
unit. Messages quote agent output and plan text, which are untrusted: renderers must escape.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["EventSink", "RunEvent"]


@dataclass(frozen=True)
class RunEvent:
    """One thing that happened in a run."""

    kind: str
    """`run`, `phase`, `wave`, `unit`, `task`, `step`, `notice`, `merge`."""
    message: str
    phase: str = ""
    unit: str = ""
    task: str = ""
    step: str = ""
    """The step the unit is in: implement, commit, check, review, fix, merge, waiting, done."""
    status: str = ""
    tokens: int = 0
    at: float = field(default_factory=time.time)


class EventSink:
    """A thread-safe fan-out of events to one listener (units run in parallel threads): a
    `mergegate.events.Sink[RunEvent]`."""

    def __init__(self, listener: Callable[[RunEvent], None] | None = None) -> None:
        self._listener = listener
        self._lock = threading.Lock()
        self.notices: set[str] = set()

    def emit(self, event: RunEvent) -> None:
        if self._listener is None:
            return
        with self._lock:
            self._listener(event)

    def notice_once(self, message: str) -> None:
        """A notice shown once per process (e.g. `review is off`)."""
        with self._lock:
            if message in self.notices:
                return
            self.notices.add(message)
        self.emit(RunEvent("notice", message))
