"""A worker's roll call: it beats in the fleet's database, kills its agents of runs that were
cancelled (at each beat), and (when asked) recovers the work of a worker that has gone silent.

Without it a dead host's units wait for `mergegate workers recover ID`. With `mergegate
worker --recover-silent-after S`, a worker that sees another one silent for longer than S
seconds (its last beat, by the database's clock) and still holding pending work puts that
work back on the queues itself, killing the silent worker's recorded agents first when they
ran on this host. Several janitors may act on one silent worker at once: recovery is
idempotent (only the silent worker's own pending workflows move, once).

The price is the one of recovering by hand: a worker that was not dead but cut off (a long
pause, a network partition longer than S) runs its units twice — at least once for agent
steps, never a second merge (merges are idempotent by key). Choose S well above any pause a
live worker can have (minutes, not seconds).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mergegate.config import redact_url
from mergegate.engine._context.orphans import kill_orphans_of
from mergegate.store import DatabaseUnavailableError, Roll, executor_work

__all__ = ["BEAT_S", "Janitor", "Outage"]

BEAT_S = 2.0
"""How often a worker beats."""
_LOOK_S = 5.0
"""How often a janitor looks for silent workers."""

Recover = Callable[[str, bool], list[str]]
"""Recover a worker's pending work: (executor id, kill its agents here) → workflows moved."""
Notice = Callable[[str], None]


class Outage:
    """What a worker says while its database does not answer its routine reads and writes
    (the beat, the looks for cancelled runs and silent workers, the global concurrency): one
    line when the first of them fails, mergegate's, naming the database; one when a beat is
    recorded again. Not a line per beat: an outage of minutes would bury every other line.
    A failure that is not the database being away is said each time, as before."""

    def __init__(self, database_url: str, notice: Notice) -> None:
        self.database_url = database_url
        self.notice = notice
        self._since: float | None = None
        self._lock = threading.Lock()

    def failed(self, what: str, exc: Exception) -> None:
        """`what` (a routine read or write) failed with `exc`."""
        if not isinstance(exc, DatabaseUnavailableError):
            self.notice(f"{what}: {type(exc).__name__}: {exc}")
            return
        with self._lock:
            first = self._since is None
            if first:
                self._since = time.monotonic()
        if first:
            self.notice(f"{exc} ({what}); the worker goes on, retrying every {BEAT_S:g} s")

    def answered(self) -> None:
        """A routine write (the beat) was recorded: the database answers."""
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            self.notice(
                f"the database {redact_url(self.database_url)} answers again (unreachable for "
                f"{time.monotonic() - since:.0f} s)"
            )


@dataclass
class Janitor:
    """One worker's beat and watch (`tick` from its serving loop, `stopped` at the end)."""

    database_url: str
    executor_id: str
    recover_after_s: float | None
    recover: Recover
    notice: Notice
    outage: Outage | None = field(default=None)
    """Shared with the worker's other routine reads (`Worker.outage`); made here when None."""

    def __post_init__(self) -> None:
        if self.outage is None:
            self.outage = Outage(self.database_url, self.notice)
        self._outage: Outage = self.outage
        self.host = socket.gethostname()
        self._roll = Roll(self.database_url)
        self._since_beat = self._since_look = 0.0

    def started(self) -> None:
        self._beat("running")

    def tick(self, elapsed_s: float) -> None:
        """Called every `elapsed_s` seconds: beat, and look for silent workers, when due."""
        self._since_beat += elapsed_s
        self._since_look += elapsed_s
        if self._since_beat >= BEAT_S:
            self._since_beat = 0.0
            self._beat("running")
            self._kill_cancelled()
        if self.recover_after_s is not None and self._since_look >= _LOOK_S:
            self._since_look = 0.0
            self._look(self.recover_after_s)

    def stopped(self) -> None:
        self._beat("stopped")
        self._roll.close()

    def _beat(self, state: str) -> None:
        try:
            self._roll.beat(self.executor_id, self.host, os.getpid(), state=state)
        except Exception as exc:  # the database away for a moment: the next beat
            self._outage.failed("could not record this worker's beat", exc)
            return
        self._outage.answered()

    def _kill_cancelled(self) -> None:
        """Kill this worker's agents of runs that were cancelled (`mergegate cancel` on
        another host reaches only its own host's processes)."""
        try:
            killed = kill_orphans_of(self.database_url, self.executor_id, stopping_only=True)
        except Exception as exc:  # the database away for a moment: the next beat
            self._outage.failed("could not look for cancelled runs", exc)
            return
        if killed:
            self.notice(f"{killed} agent process group(s) of cancelled runs killed")

    def _look(self, after_s: float) -> None:
        try:
            silent = self._roll.silent_workers(after_s, but=self.executor_id)
            for worker in silent:
                if not executor_work(self.database_url, executor_id=worker.executor_id):
                    continue  # holds nothing: nothing to recover
                moved = self.recover(worker.executor_id, worker.host == self.host)
                if moved:
                    self.notice(
                        f"worker {worker.executor_id} silent for {worker.silent_s:.0f} s "
                        f"({worker.state}): {len(moved)} workflow(s) back on the queues"
                    )
        except Exception as exc:  # the database away for a moment: the next look
            self._outage.failed("could not look for silent workers", exc)
