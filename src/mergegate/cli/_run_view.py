"""How `mergegate run` shows a run: a live table on a terminal, plain lines in CI.

The live view has one row per unit: its phase, the task and step it is in, the elapsed time and
the tokens its agents used (summed from `usage` events, where backends report tokens); notices
and results scroll above it. Plain mode prints one `mergegate: ...` line per event. Event text
quotes agents and plans (untrusted): everything goes through `clean`, and through
`rich.markup.escape` where markup is parsed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from mergegate.cli._progress import Heartbeat, Mode, clean

if TYPE_CHECKING:  # the engine (and DBOS) load only when a run command runs
    from mergegate.engine import RunEvent

__all__ = ["open_run_view"]


def _prefix(event: RunEvent) -> str:
    parts: tuple[str, ...] = (event.unit, event.task)
    if event.kind == "agent":  # an agent's output line: where it runs, and its role
        parts = (event.unit or event.phase, event.task, event.step)
    where = " ".join(p for p in parts if p)
    return f"[{clean(where, 80)}] " if where else ""


def _line(event: RunEvent) -> str:
    return f"mergegate: {_prefix(event)}{clean(event.message, 400)}"


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
        if event.unit and event.kind != "agent":
            row = self.rows.setdefault(event.unit, _Row(event.phase))
            row.phase = event.phase or row.phase
            row.task = event.task or row.task
            row.step = event.step or row.step
        if event.kind in ("notice", "phase", "wave", "merge", "run", "agent") or event.step in (
            "done",
            "waiting",
        ):
            self.console.print(escape(_line(event)))
        self.tick()

    def tick(self) -> None:
        self.live.update(self._table())


class _PlainView:
    """One line per event (token counts are for the live table), through a `Heartbeat` the
    thread that waits for the run ticks."""

    def __init__(self, heartbeat: Heartbeat) -> None:
        self.heartbeat = heartbeat

    def __call__(self, event: RunEvent) -> None:
        if event.kind == "usage":
            return
        what = clean(event.message, 300)
        self.heartbeat.say(_line(event), what=what, where=_prefix(event))


@contextmanager
def open_run_view(
    mode: Mode,
    console: Console,
    write: Callable[[str], None],
    activity: Callable[[], str | None] = lambda: None,
    *,
    stream_agents: bool = False,
) -> Iterator[tuple[Callable[[RunEvent], None] | None, Callable[[], None]]]:
    """`(listener, tick)` for the chosen mode; the live view is stopped on exit. `activity`
    says what an agent is doing beyond the last event (plain mode's heartbeat shows it).
    Agents' output lines (`agent` events, emitted only with `stream_agents`) are written in
    every mode, `none` included."""
    if mode == "none":

        def agents_only(event: RunEvent) -> None:
            if event.kind == "agent":
                write(_line(event))

        yield (agents_only if stream_agents else None), lambda: None
    elif mode == "plain":
        plain = _PlainView(Heartbeat(write, activity))
        yield plain, plain.heartbeat.tick
    else:
        view = _LiveView(console)
        with view.live:
            yield view, view.tick
