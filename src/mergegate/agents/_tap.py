"""Live agent output for a person watching (`mergegate run --stream-agents`).

A caller that wants an agent's output as it comes sets a tap around the backend's run
(`with output_tap(tap): backend.run(request)`); a CLI backend hands it to the supervisor,
which calls it once per complete line of the agent's stdout and stderr while it monitors the
process (`supervise(on_tail=...)`). The tap only shows: what is parsed and decided is the
logged output, as without it. It lives in a context variable, so a tap set in one thread (one
unit of a run) never sees another's agents. HTTP backends have no process output to show.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mergegate.processes import Stream

__all__ = ["OutputTap", "current_tap", "output_tap"]

OutputTap = Callable[[Stream, str], None]
"""Called with the stream and one complete line (untrusted text: the caller escapes it)."""

_TAP: ContextVar[OutputTap | None] = ContextVar("mergegate_output_tap", default=None)


@contextmanager
def output_tap(tap: OutputTap | None) -> Iterator[None]:
    """Agents run by this thread inside the block show their output lines to `tap` (None:
    to nobody, as outside any block)."""
    token = _TAP.set(tap)
    try:
        yield
    finally:
        _TAP.reset(token)


def current_tap() -> OutputTap | None:
    """The tap set around the current agent run, or None."""
    return _TAP.get()
