"""Help signals: an agent asks for a person by writing a marker on a line of its own.

The markers (seed 002, "HELP Request System Integration") are `>>>HELP<<<` and the namespaced
`CLAUDE_CADENCE_SYSTEM_SIGNAL::HELP_REQUEST`. A marker counts only as a **whole line of
assistant text** (surrounding whitespace ignored): never inside a sentence, never in an echoed
prompt, a user event or a tool result. Backends feed only assistant text, message by message;
the detector keeps a per-message line buffer, so a marker split across stream deltas
(`">>>HE"`, `"LP<<<\\n"`) is still found, and a line is judged only once it is complete.

An optional JSON object on the next line is attached as the signal's context. The stream is
the source of truth: `reconcile_requested_help` lets a signal found here override a
`requested_help` flag that the agent's own JSON output left out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from mergegate.agents.base import HelpSignal

__all__ = [
    "HELP_MARKERS",
    "HelpDetector",
    "HelpReconciliation",
    "reconcile_requested_help",
    "scan_text",
]

HELP_MARKERS: tuple[str, ...] = (">>>HELP<<<", "CLAUDE_CADENCE_SYSTEM_SIGNAL::HELP_REQUEST")
_MAX_LINE = 64 * 1024
"""A longer line cannot be a marker, nor a context we would keep: it is skipped unread."""
_MAX_SIGNALS = 64


@dataclass
class _Message:
    parts: list[str] = field(default_factory=list)
    size: int = 0
    overlong: bool = False
    pending: tuple[str, float] | None = None
    """A marker seen on the previous line, waiting for an optional JSON context line."""


class HelpDetector:
    """Finds help markers in assistant text fed as deltas, one buffer per message."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._start = clock()
        self._messages: dict[str, _Message] = {}
        self._signals: list[HelpSignal] = []

    @property
    def signals(self) -> tuple[HelpSignal, ...]:
        """Signals found so far (pending markers are included once their message ends)."""
        return tuple(self._signals)

    def feed(self, text: str, message: str = "") -> None:
        """Add a delta of assistant text belonging to `message` (any stable key)."""
        state = self._messages.setdefault(message, _Message())
        start = 0
        while (end := text.find("\n", start)) != -1:
            self._append(state, text[start:end])
            self._complete_line(state)
            start = end + 1
        self._append(state, text[start:])

    def end_message(self, message: str = "") -> None:
        """The message is complete: judge its last line and any pending marker."""
        state = self._messages.pop(message, None)
        if state is None:
            return
        if state.parts or state.overlong:
            self._complete_line(state)
        if state.pending is not None:
            self._emit(state.pending, None)

    def finish(self) -> tuple[HelpSignal, ...]:
        """End every open message and return all signals."""
        for key in list(self._messages):
            self.end_message(key)
        return self.signals

    def _append(self, state: _Message, piece: str) -> None:
        if state.overlong or not piece:
            return
        state.size += len(piece)
        if state.size > _MAX_LINE:
            state.overlong = True
            state.parts.clear()
        else:
            state.parts.append(piece)

    def _complete_line(self, state: _Message) -> None:
        line = "" if state.overlong else "".join(state.parts).strip()
        state.parts.clear()
        state.size = 0
        state.overlong = False
        if state.pending is not None:
            self._emit(state.pending, _context(line))
            state.pending = None
        if line in HELP_MARKERS:
            state.pending = (line, self._clock() - self._start)

    def _emit(self, pending: tuple[str, float], context: dict[str, Any] | None) -> None:
        if len(self._signals) < _MAX_SIGNALS:
            marker, offset = pending
            self._signals.append(HelpSignal(marker=marker, context=context, offset_s=offset))


def _context(line: str) -> dict[str, Any] | None:
    """A JSON object on its own line, or None."""
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def scan_text(text: str) -> tuple[HelpSignal, ...]:
    """Signals in one complete piece of assistant text (for backends without a stream)."""
    detector = HelpDetector(clock=lambda: 0.0)
    detector.feed(text)
    return detector.finish()


@dataclass(frozen=True)
class HelpReconciliation:
    """Whether help was requested, and which source said so."""

    requested_help: bool
    source: Literal["stream", "json", "both", "none"]
    note: str | None = None


def reconcile_requested_help(
    claimed: bool | None, signals: Iterable[HelpSignal]
) -> HelpReconciliation:
    """Combine the agent's own `requested_help` (None when its JSON omitted it) with the stream.

    A signal in the stream always wins: help is requested even when the JSON says false or
    says nothing. A JSON claim without a stream signal still counts (asking a person is the
    safe side), with a note that the stream did not confirm it.
    """
    streamed = any(True for _ in signals)
    if streamed and claimed:
        return HelpReconciliation(True, "both")
    if streamed:
        note = (
            "the stream carries a help signal the agent's JSON omitted"
            if claimed is None
            else "the stream carries a help signal; the agent's JSON said requested_help=false"
        )
        return HelpReconciliation(True, "stream", note)
    if claimed:
        return HelpReconciliation(
            True, "json", "requested_help=true in the agent's JSON, but no signal in the stream"
        )
    return HelpReconciliation(False, "none")
