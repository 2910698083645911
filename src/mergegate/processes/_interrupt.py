"""A process-wide interrupt (a person's Ctrl-C of a run): every supervised child stopped, and
no caller told how it ended.

An interrupted run must end as a crash at that instant would, with its agents killed: a
durable step whose agent was killed must never record that outcome (a resume would then see a
failed agent instead of running it again). `interrupt()` makes every running `supervise` stop
its child the way it stops one on a timeout (SIGTERM to the group, the grace, SIGKILL, the
escapees swept), and then holds the thread that called it instead of returning; `run_command`
and `supervise` start no child once it is set, and hold their caller too. The process is
expected to exit while they are held (`wait_until_stopped` says when no child is left).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator

__all__ = [
    "clear_interrupt",
    "hold_if_interrupted",
    "interrupt",
    "interrupted",
    "kill_now",
    "supervising",
    "wait_until_stopped",
    "watching",
]

_INTERRUPT = threading.Event()
_RELEASE = threading.Event()
_LOCK = threading.Condition()
_active = [0]
"""Supervised children being watched right now (their callers not yet held)."""


def interrupt() -> None:
    """Stop every supervised child, and hold every caller of the supervisor from now on."""
    _RELEASE.clear()
    _INTERRUPT.set()


def interrupted() -> bool:
    return _INTERRUPT.is_set()


def clear_interrupt() -> None:
    """Let held callers go on and new children start again (for a process that goes on after
    an interrupt, such as a test); the callers get the outcomes of their stopped children."""
    _INTERRUPT.clear()
    _RELEASE.set()


def hold_if_interrupted() -> None:
    """Block the calling thread while the interrupt is set (until `clear_interrupt`)."""
    while _INTERRUPT.is_set():
        _RELEASE.wait(1.0)


@contextlib.contextmanager
def supervising() -> Iterator[None]:
    """Counts a supervised child while its caller watches it."""
    with _LOCK:
        _active[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _active[0] -= 1
            _LOCK.notify_all()


_GROUPS: set[int] = set()
"""The process groups of the children being watched now."""


@contextlib.contextmanager
def watching(pgid: int) -> Iterator[None]:
    """The group of a child while its caller watches it (`kill_now` reaches it)."""
    _GROUPS.add(pgid)
    try:
        yield
    finally:
        _GROUPS.discard(pgid)


def kill_now() -> None:
    """SIGKILL every watched group at once (a second Ctrl-C: the process exits next, and
    leaves no agent behind). Safe in a signal handler: no lock, a copy of the set."""
    for pgid in tuple(_GROUPS):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


def wait_until_stopped(timeout_s: float) -> bool:
    """Wait until no supervised child is watched any more (each stopped, its caller held);
    False when some still are after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    with _LOCK:
        while _active[0] > 0:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _LOCK.wait(left)
    return True
