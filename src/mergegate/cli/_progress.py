"""How `mergegate review` shows a run while it happens: live on a terminal, plain lines in CI.

Two renderers consume the loop's `ReviewEvent`s: `RichRenderer` (a spinner with the elapsed time
while an agent runs, one coloured line per stage result) and `PlainRenderer` (timestamp-free
`mergegate: ...` lines that stay greppable in CI logs). `choose_mode` picks one for `auto`.

Event text quotes reviewer output, which is untrusted: a finding title can carry terminal escape
sequences (clear the screen, set the window title, hide text) or rich markup. Everything shown
goes through `clean` (control and escape characters removed, whitespace collapsed, length
capped) and, where markup is parsed, `rich.markup.escape` after it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import IO, Literal

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from mergegate.review import EventKind, ReviewEvent

__all__ = [
    "MAX_DETAIL_LINES",
    "PlainRenderer",
    "RichRenderer",
    "choose_mode",
    "clean",
    "open_renderer",
]

Mode = Literal["auto", "rich", "plain", "none"]
MODES: tuple[Mode, ...] = ("auto", "rich", "plain", "none")

MAX_DETAIL_LINES = 20
"""Findings listed under one stage result; the rest are counted (the reports have them all)."""

_ESC, _BEL, _CSI8 = "\x1b", "\x07", "\x9b"
# ESC, 8-bit CSI, and the 8-bit control-string introducers DCS, SOS, OSC, PM, APC.
_INTRODUCERS = frozenset("\x1b\x9b\x90\x98\x9d\x9e\x9f")
_STRING_INTRODUCERS = frozenset("]PX^_")  # OSC, DCS, SOS, PM, APC: run until BEL or ESC \
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_SPACE_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})


def _skip_escape(text: str, i: int) -> int:
    """Index just past the escape sequence whose introducer is at `text[i]`.

    Linear and bounded by the text: a sequence that never terminates swallows the rest.
    """
    n = len(text)
    kind = text[i]
    if kind == _ESC:
        if i + 1 >= n:
            return n
        nxt = text[i + 1]
        if nxt == "[":
            kind, i = _CSI8, i + 1
        elif nxt in _STRING_INTRODUCERS:
            kind, i = "\x9d", i + 1
        else:
            return i + 2  # a two-character escape (ESC c, ESC 7, ...)
    j = i + 1
    if kind == _CSI8:  # parameters and intermediates, then one final byte @..~
        while j < n and not ("@" <= text[j] <= "~"):
            j += 1
        return j + 1
    while j < n:  # a control string ends at BEL, ESC \ or (8-bit) ST
        if text[j] in (_BEL, "\x9c"):
            return j + 1
        if text[j] == _ESC:
            return j + 2 if j + 1 < n and text[j + 1] == "\\" else j + 1
        j += 1
    return n


def clean(text: str, limit: int = 300) -> str:
    """One line of untrusted text that is safe to print on a terminal.

    Removes terminal escape sequences (CSI, OSC and other control strings, 7- and 8-bit) and
    every control, format (bidi overrides, zero-width), surrogate and unassigned character;
    turns any run of whitespace into one space; cuts to `limit` characters with an ellipsis.
    Looks at no more than `8 * limit` input characters, so huge input costs nothing extra.
    """
    scan = limit * 8 + 64
    cut = len(text) > scan
    text = text[:scan]
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _INTRODUCERS:
            i = _skip_escape(text, i)
            continue
        i += 1
        category = unicodedata.category(ch)
        if ch.isspace() or category in _SPACE_CATEGORIES:
            if out and out[-1] != " ":
                out.append(" ")
        elif category not in _DROP_CATEGORIES:
            out.append(ch)
    line = "".join(out).strip()
    if cut or len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line


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


def _detail_lines(details: tuple[str, ...]) -> list[str]:
    lines = [clean(d) for d in details[:MAX_DETAIL_LINES]]
    if len(details) > MAX_DETAIL_LINES:
        lines.append(f"… and {len(details) - MAX_DETAIL_LINES} more (see the reports)")
    return lines


class PlainRenderer:
    """Timestamp-free `mergegate: ...` lines, one per step; findings indented under a result.

    A finished event prints nothing (the CLI prints the outcome), nor does an agent that
    finished normally (the next line says what came of it); an agent that failed does.
    """

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write

    def __call__(self, event: ReviewEvent) -> None:
        if event.kind is EventKind.FINISHED:
            return
        if event.kind is EventKind.AGENT_FINISHED and event.ok is not False:
            return
        self._write(f"mergegate: {clean(event.message, 500)}")
        for line in _detail_lines(event.details):
            self._write(f"mergegate:   {line}")


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
    mode: Mode, stream: IO[str], write: Callable[[str], None]
) -> Iterator[Callable[[ReviewEvent], None] | None]:
    """The event sink for `mode` (already chosen, not `auto`), live for the `with` block."""
    if mode == "none":
        yield None
    elif mode == "plain":
        yield PlainRenderer(write)
    else:
        console = Console(file=stream, force_terminal=True, emoji=False, highlight=False)
        with RichRenderer(console) as renderer:
            yield renderer
