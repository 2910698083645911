"""How `mergegate run` shows a run: a live table on a terminal, plain lines in CI.

The live view has one row per unit: its phase, the task and step it is in, the elapsed time and
the tokens its agents used (summed from `usage` events, where backends report tokens); notices
and results scroll above it. Plain mode prints one `mergegate: ...` line per event. Event text
quotes agents and plans (untrusted): everything goes through `clean`, and through
`rich.markup.escape` where markup is parsed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from mergegate.cli._progress import Mode, clean

if TYPE_CHECKING:  # the engine (and DBOS) load only when a run command runs
    from mergegate.engine import RunEvent

__all__ = ["HEARTBEAT_S", "open_run_view"]

HEARTBEAT_S = 8.0
"""Longest silence of the plain view while a run goes on, so a log (CI, `make demo`) shows a
line at least every 10 s: the view is ticked every polling interval (0.1 s by default), and
asking the local model what it is doing takes at most a second more."""


def _line(event: RunEvent) -> str:
    where = " ".join(p for p in (event.unit, event.task) if p)
    prefix = f"[{clean(where, 80)}] " if where else ""
    return f"mergegate: {prefix}{clean(event.message, 400)}"


@dataclass
class _Row:
    phase: str
    task: str = ""
    step: str = "queued"
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)


class _LiveView:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.rows: dict[str, _Row] = {}
        self.live = Live(self._table(), console=console, refresh_per_second=4, transient=False)

    def _table(self) -> Table:
        table = Table(box=None, pad_edge=False, show_edge=False)
        for column in ("unit", "phase", "task", "step", "elapsed", "tokens"):
            table.add_column(column)
        for unit, row in self.rows.items():
            elapsed = f"{time.monotonic() - row.started:5.0f}s"
            cells = (escape(clean(v, 40)) for v in (unit, row.phase, row.task, row.step))
            table.add_row(*cells, elapsed, f"{row.tokens:,}" if row.tokens else "-")
        return table

    def __call__(self, event: RunEvent) -> None:
        if event.kind == "usage":
            self.rows.setdefault(event.unit, _Row(event.phase)).tokens += event.tokens
            return
        if event.unit:
            row = self.rows.setdefault(event.unit, _Row(event.phase))
            row.phase = event.phase or row.phase
            row.task = event.task or row.task
            row.step = event.step or row.step
        if event.kind in ("notice", "phase", "wave", "merge", "run") or event.step in (
            "done",
            "waiting",
        ):
            self.console.print(escape(_line(event)))
        self.tick()

    def tick(self) -> None:
        self.live.update(self._table())


class _PlainView:
    """One line per event (token counts are for the live table), and after `every` seconds
    without a line, a heartbeat: the last step, how long ago it started, and what `activity`
    says (the local model's tokens so far). Events come from the run's threads, ticks from
    the thread that waits for the run: one lock keeps their lines whole and in order."""

    def __init__(
        self,
        write: Callable[[str], None],
        activity: Callable[[], str | None],
        *,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._activity = activity
        self._every = HEARTBEAT_S if every is None else every
        self._clock = clock
        self._lock = threading.Lock()
        self._last: RunEvent | None = None
        self._started = self._printed = clock()

    def __call__(self, event: RunEvent) -> None:
        if event.kind == "usage":
            return
        with self._lock:
            self._last = event
            self._started = self._printed = self._clock()
            self._write(_line(event))

    def tick(self) -> None:
        now = self._clock()
        if now - self._printed < self._every:
            return
        doing = self._activity()  # outside the lock: it may take up to a second
        with self._lock:
            if now - self._printed < self._every:
                return  # an event came in meanwhile
            self._printed = now
            self._write(self._heartbeat(now, doing))

    def _heartbeat(self, now: float, doing: str | None) -> str:
        last = self._last
        where = " ".join(p for p in (last.unit, last.task) if p) if last else ""
        prefix = f"[{clean(where, 80)}] " if where else ""
        since = f"still working ({now - self._started:.0f} s)"
        step = f": {clean(last.message, 300)}" if last else ""
        extra = f"; {clean(doing, 200)}" if doing else ""
        return f"mergegate: {prefix}{since}{step}{extra}"


@contextmanager
def open_run_view(
    mode: Mode,
    console: Console,
    write: Callable[[str], None],
    activity: Callable[[], str | None] = lambda: None,
) -> Iterator[tuple[Callable[[RunEvent], None] | None, Callable[[], None]]]:
    """`(listener, tick)` for the chosen mode; the live view is stopped on exit. `activity`
    says what an agent is doing beyond the last event (plain mode's heartbeat shows it)."""
    if mode == "none":
        yield None, lambda: None
    elif mode == "plain":
        plain = _PlainView(write, activity)
        yield plain, plain.tick
    else:
        view = _LiveView(console)
        with view.live:
            yield view, view.tick
