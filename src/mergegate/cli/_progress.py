"""How `mergegate review` shows a run while it happens: live on a terminal, plain lines in CI.

Two renderers consume the loop's `ReviewEvent`s: `RichRenderer` (a spinner with the elapsed time
while an agent runs, one coloured line per stage result) and `PlainRenderer` (timestamp-free
`mergegate: ...` lines that stay greppable in CI logs). `choose_mode` picks one for `auto`.
Plain lines go through a `Heartbeat` (`review` here, `run` in `_run_view`): an agent can work
for minutes between two lines, so after `HEARTBEAT_S` without one it writes a line saying so.

Event text quotes reviewer output, which is untrusted: a finding title can carry terminal escape
sequences (clear the screen, set the window title, hide text) or rich markup. Everything shown
goes through `clean` (control and escape characters removed, whitespace collapsed, length
capped) and, where markup is parsed, `rich.markup.escape` after it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import IO, Literal

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from mergegate.review import EventKind, ReviewEvent
from mergegate.untrusted import one_line

__all__ = [
    "HEARTBEAT_S",
    "MAX_DETAIL_LINES",
    "Heartbeat",
    "PlainRenderer",
    "RichRenderer",
    "choose_mode",
    "clean",
    "model_activity",
    "open_renderer",
]

Mode = Literal["auto", "rich", "plain", "none"]
MODES: tuple[Mode, ...] = ("auto", "rich", "plain", "none")

MAX_DETAIL_LINES = 20
"""Findings listed under one stage result; the rest are counted (the reports have them all)."""

HEARTBEAT_S = 8.0
"""Longest silence of plain progress while a command goes on, so a log (CI, `make demo`) gets
a line at least every 10 s: a heartbeat is ticked at least every half second, and asking the
local model what it is doing takes at most a second more."""


def clean(text: str, limit: int = 300) -> str:
    """One line of untrusted text that is safe to print on a terminal: `mergegate.untrusted.
    one_line` (escape sequences, controls, bidi and zero-width characters removed, whitespace
    folded, cut to `limit` characters with an ellipsis)."""
    return one_line(text, limit)


def choose_mode(requested: Mode, *, isatty: bool, env: Mapping[str, str]) -> Mode:
    """`auto` means rich on an interactive terminal, plain lines everywhere else.

    Plain when stderr is not a TTY, when `CI` is set to anything but a false value (GitHub
    Actions, GitLab and most CIs set `CI=true`), or when `TERM=dumb`. `NO_COLOR` keeps the live
    display but drops colour (rich honours it itself).
    """
    if requested != "auto":
        return requested
    ci = env.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    if not isatty or ci or env.get("TERM") == "dumb":
        return "plain"
    return "rich"


class Heartbeat:
    """Plain progress lines, and after `every` seconds without one a heartbeat: the last step,
    how long ago it began and what `activity` says (the local model's tokens so far).

    Lines come from the command's threads (`say`), heartbeats from whoever calls `tick`: one
    lock keeps lines whole and in order. Texts given here are already `clean`.
    """

    def __init__(
        self,
        write: Callable[[str], None],
        activity: Callable[[], str | None] = lambda: None,
        *,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._activity = activity
        self._every = HEARTBEAT_S if every is None else every
        self._clock = clock
        self._lock = threading.Lock()
        self._where = ""
        self._what: str | None = None
        self._started = self._printed = clock()

    def say(self, line: str, *, what: str | None = None, where: str = "") -> None:
        """Write `line`; with `what`, it is the step later heartbeats name (`where` goes in
        front of them, e.g. `[1-01 1] `)."""
        with self._lock:
            now = self._clock()
            if what is not None:
                self._where, self._what, self._started = where, what, now
            self._printed = now
            self._write(line)

    def tick(self) -> None:
        """A heartbeat line when nothing was written for `every` seconds, else nothing."""
        now = self._clock()
        if now - self._printed < self._every:
            return
        doing = self._activity()  # outside the lock: it may take up to a second
        with self._lock:
            if now - self._printed < self._every:
                return  # a line came in meanwhile
            self._printed = now
            step = f": {self._what}" if self._what else ""
            extra = f"; {clean(doing, 200)}" if doing else ""
            since = f"still working ({now - self._started:.0f} s)"
            self._write(f"mergegate: {self._where}{since}{step}{extra}")


@contextmanager
def ticking(heartbeat: Heartbeat, every_s: float = 0.5) -> Iterator[None]:
    """`heartbeat` ticked from a thread of its own while the block runs (a command whose
    main thread is busy with the work itself); stopped and joined at the end."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every_s):
            heartbeat.tick()

    thread = threading.Thread(target=beat, name="mergegate-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def model_activity() -> str | None:
    """What the local model of this process is writing, for a heartbeat: its answers are
    not streamed, so without this minutes pass without a sign. None when no model runs."""
    # Here, not at the top: the agents package costs every command that shows progress
    # (`plan`, `stats`, …) about 0.15 s to import. Asking loads no model and starts nothing.
    from mergegate.agents.local import generation  # noqa: PLC0415

    now = generation()
    if now is None:
        return None
    if now.tokens == 0:
        return "the local model is reading the prompt"
    most = f" of at most {now.limit:,}" if now.limit else ""
    return f"the local model has written {now.tokens:,}{most} tokens"


def _detail_lines(details: tuple[str, ...]) -> list[str]:
    lines = [clean(d) for d in details[:MAX_DETAIL_LINES]]
    if len(details) > MAX_DETAIL_LINES:
        lines.append(f"… and {len(details) - MAX_DETAIL_LINES} more (see the reports)")
    return lines


class PlainRenderer:
    """Timestamp-free `mergegate: ...` lines, one per step; findings indented under a result.

    A finished event prints nothing (the CLI prints the outcome), nor does an agent that
    finished normally (the next line says what came of it); an agent that failed does. Every
    line goes through `heartbeat`, which `open_renderer` ticks while the review runs.
    """

    def __init__(self, write: Callable[[str], None], heartbeat: Heartbeat | None = None) -> None:
        self._heartbeat = heartbeat or Heartbeat(write)

    def __call__(self, event: ReviewEvent) -> None:
        if event.kind is EventKind.FINISHED:
            return
        if event.kind is EventKind.AGENT_FINISHED and event.ok is not False:
            return
        message = clean(event.message, 500)
        self._heartbeat.say(f"mergegate: {message}", what=message)
        for line in _detail_lines(event.details):
            self._heartbeat.say(f"mergegate:   {line}")


_STYLES: dict[EventKind, tuple[str, str]] = {
    EventKind.NOTICE: ("·", "dim"),
    EventKind.ROUND_STARTED: ("▶", "bold"),
    EventKind.RETRY: ("↻", "yellow"),
    EventKind.FIX_COMMITTED: ("→", "cyan"),
    EventKind.ESCALATED: ("!", "bold red"),
}


class RichRenderer:
    """A live display on a terminal: the running agent with a spinner and its elapsed time
    (round, stage, attempt, backend), and a line per step as it completes.

    Use as a context manager (it starts and stops the live display). The spinner line is
    transient: once the agent finishes, only the result lines stay on screen.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        # markup=False: the task description is shown as plain text, never parsed as markup.
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False, style="bold"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> RichRenderer:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop_spinner()
        self._progress.stop()

    def __call__(self, event: ReviewEvent) -> None:
        if event.kind is EventKind.AGENT_STARTED:
            self._stop_spinner()
            self._task = self._progress.add_task(clean(event.message, 200), total=None)
            self._progress.refresh()
        elif event.kind is EventKind.AGENT_FINISHED:
            self._stop_spinner()
            if event.ok is False:
                self._line("✗", "red", event.message)
        elif event.kind is EventKind.STAGE_RESULT:
            mark, style = ("✓", "green") if event.ok else ("✗", "red")
            self._line(mark, style, event.message)
            for line in _detail_lines(event.details):
                self.console.print(f"    {escape(line)}", highlight=False, emoji=False)
        elif event.kind in _STYLES:
            mark, style = _STYLES[event.kind]
            self._line(mark, style, event.message)

    def _line(self, mark: str, style: str, message: str) -> None:
        # clean() first: it bounds the text, so escape()'s regex only ever sees a short line.
        body = escape(clean(message, 500))
        self.console.print(f"[{style}]{mark}[/] {body}", highlight=False, emoji=False)

    def _stop_spinner(self) -> None:
        if self._task is not None:
            self._progress.remove_task(self._task)
            self._task = None
            # Redraw now: lines printed next would otherwise re-show the last frame's spinner.
            self._progress.refresh()


@contextmanager
def open_renderer(
    mode: Mode,
    stream: IO[str],
    write: Callable[[str], None],
    activity: Callable[[], str | None] = lambda: None,
) -> Iterator[Callable[[ReviewEvent], None] | None]:
    """The event sink for `mode` (already chosen, not `auto`), live for the `with` block; in
    plain mode with a heartbeat ticked from a thread (`activity` says what an agent is doing)."""
    if mode == "none":
        yield None
    elif mode == "plain":
        heartbeat = Heartbeat(write, activity)
        with ticking(heartbeat):
            yield PlainRenderer(write, heartbeat)
    else:
        console = Console(file=stream, force_terminal=True, emoji=False, highlight=False)
        with RichRenderer(console) as renderer:
            yield renderer
