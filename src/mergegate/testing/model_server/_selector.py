"""Which scripted turn answers a request (the rules are documented on `Script`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from mergegate.testing.model_server._conversation import RequestView
from mergegate.testing.model_server._script import Fault, Script, Turn

__all__ = ["Selection", "TurnSelector"]


@dataclass(frozen=True)
class Selection:
    """The turn chosen for one request, and the fault to inject instead of answering (if any).

    `index` is None when a sequential script is exhausted and `when_exhausted` is `error`.
    """

    index: int | None
    turn: Turn | None
    fault: Fault | None
    matched: bool


class TurnSelector:
    """Thread-safe turn selection: matched turns are stateless, sequential ones use a cursor."""

    def __init__(self, script: Script) -> None:
        self._script = script
        self._sequential = [i for i, t in enumerate(script.turns) if t.match is None]
        self._cursor = 0
        self._fault_hits: dict[int, int] = {}
        self._lock = threading.Lock()

    def select(self, view: RequestView) -> Selection:
        """Choose the turn for `view`; advance the sequential cursor on a normal answer."""
        with self._lock:
            index = self._matched(view)
            matched = index is not None
            if index is None:
                index = self._peek_sequential()
            if index is None:
                return Selection(index=None, turn=None, fault=None, matched=False)
            turn = self._script.turns[index]
            fault = self._take_fault(index, turn)
            if fault is None and not matched and self._cursor < len(self._sequential):
                self._cursor += 1
            return Selection(index=index, turn=turn, fault=fault, matched=matched)

    def _matched(self, view: RequestView) -> int | None:
        group = [
            i
            for i, turn in enumerate(self._script.turns)
            if turn.match is not None and turn.match in view.prompt
        ]
        if not group:
            return None
        return group[min(view.turns_since_prompt, len(group) - 1)]

    def _peek_sequential(self) -> int | None:
        if self._cursor < len(self._sequential):
            return self._sequential[self._cursor]
        if self._sequential and self._script.when_exhausted == "repeat_last":
            return self._sequential[-1]
        return None

    def _take_fault(self, index: int, turn: Turn) -> Fault | None:
        fault = turn.fault
        if fault is None:
            return None
        hits = self._fault_hits.get(index, 0)
        if fault.count is not None and hits >= fault.count:
            return None
        self._fault_hits[index] = hits + 1
        return fault
