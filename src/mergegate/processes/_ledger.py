"""Where the supervisor reports the processes it starts, for whoever must kill them later.

A process that outlives its orchestrator (a crash, a SIGKILL) can only be killed by a later
process that knows it: its pid, group, start time, namespace and tag (`ProcessRecord`). The
supervisor writes that record into the attempt folder for people, but an agent can write there
too, so nothing kills by those files. Instead the caller installs a `ProcessLedger` (the run
engine's keeps the records in the run's database) and the supervisor reports to it: itself
before each child starts (`SupervisorRecord`: a child not yet recorded when a SIGKILL came
is still found by its tag), each process before anyone waits on it, and again when it
ended. Without a ledger nothing is reported, and a crash's leftovers are found by no one (the
library use outside a run: its processes end with it unless the process is SIGKILLed).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol

from mergegate.processes._identity import SupervisorRecord
from mergegate.processes._values import ProcessRecord

__all__ = ["ProcessLedger", "install_ledger", "installed_ledger"]


class ProcessLedger(Protocol):
    """Records of the processes supervised while it is installed."""

    def supervising(self, supervisor: SupervisorRecord) -> None:
        """A child is about to be started by `supervisor` (called before each start, and
        the start waits for it: a ledger records each supervisor once, durably, before
        returning; what it raises reaches the caller of `supervise`, and nothing starts)."""

    def started(self, record: ProcessRecord, attempt_dir: Path | None) -> None:
        """A process was started (called before the supervisor waits on it; what it raises
        stops the process and reaches the caller of `supervise`)."""

    def ended(self, record: ProcessRecord) -> None:
        """The process and its group are gone (nothing is left to kill for this record)."""

    def recorded(self, root: Path) -> list[tuple[Path, ProcessRecord]]:
        """The records still held whose attempt folder is `root` or below it."""


_installed: list[ProcessLedger] = []
_lock = threading.Lock()


def install_ledger(ledger: ProcessLedger | None) -> None:
    """Report every process supervised from now on to `ledger` (None: to no one)."""
    with _lock:
        _installed[:] = [] if ledger is None else [ledger]


def installed_ledger() -> ProcessLedger | None:
    with _lock:
        return _installed[0] if _installed else None
