"""Ctrl-C of a command that runs agents: the first SIGINT or SIGTERM asks the run to stop,
a second one ends the process at once. Both exit 130 (the shell's 128 + SIGINT)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

from mergegate.decisions import ExitCode
from mergegate.processes import kill_now

__all__ = ["exit_now", "interruptible"]

_FIRST = b"\nmergegate: interrupted: stopping the run's agents (Ctrl-C again to quit at once)\n"
_SECOND = b"\nmergegate: interrupted again: quitting now\n"


def exit_now(code: int = int(ExitCode.INTERRUPTED)) -> None:
    """End the process now, without joining threads or running exit handlers: an
    interrupted run's engine threads are held and must never go on."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


@contextlib.contextmanager
def interruptible() -> Iterator[threading.Event]:
    """While inside, SIGINT and SIGTERM set the event the engine watches (it stops the run's
    agents and records the run as interrupted); a second signal exits at once with 130.
    A SIGINT the process was started ignoring (a background job of a script) stays ignored.
    Only from the main thread (where Python runs signal handlers)."""
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        if stop.is_set():
            _say(_SECOND)
            kill_now()  # the agents' groups go with the process, not after it
            exit_now()
        stop.set()
        _say(_FIRST)

    wanted = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        wanted.append(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {sig: signal.signal(sig, handler) for sig in wanted}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _say(text: bytes) -> None:
    """A line on stderr from a signal handler: one write, no Python stream (the handler may
    have interrupted a write to it)."""
    with contextlib.suppress(OSError):
        os.write(2, text)
