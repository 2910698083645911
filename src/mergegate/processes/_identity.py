"""A process named so that another one can tell whether it still runs: the holder of a run's
lease (`mergegate.store`), read by `status`, a second `run` and `resume`."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict

from mergegate.processes._groups import boot_id, host_name, pid_namespace, process_start_ticks

__all__ = ["ProcessIdentity"]


class ProcessIdentity(BaseModel):
    """One process: its host, boot, PID namespace, pid and start time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str
    boot_id: str | None
    pid_ns: str | None
    pid: int
    start_ticks: int | None

    @classmethod
    def here(cls) -> ProcessIdentity:
        """This process."""
        pid = os.getpid()
        return cls(
            host=host_name(),
            boot_id=boot_id(),
            pid_ns=pid_namespace(),
            pid=pid,
            start_ticks=process_start_ticks(pid),
        )

    def running(self) -> bool:
        """Whether the process still runs. Fails closed: a process on another host, in
        another PID namespace, or named without a start time is taken as running (nothing
        here can show it is gone); one from an earlier boot of this host is gone; one here is
        running while its pid names a process with its start time."""
        if self.host != host_name():
            return True
        here_boot = boot_id()
        if self.boot_id is not None and here_boot is not None and self.boot_id != here_boot:
            return False
        if self.pid_ns != pid_namespace() or self.start_ticks is None:
            return True
        return process_start_ticks(self.pid) == self.start_ticks
