"""A process named so that another one can tell whether it still runs: the holder of a run's
lease (`mergegate.store`), read by `status`, a second `run` and `resume`; and a supervisor
(`SupervisorRecord`), whose leftovers a later process kills once it is gone.

A child's `ProcessRecord` can only be written once the child exists, so a SIGKILL between its
`Popen` and the ledger's write leaves a child no record names (a crash test on PostgreSQL,
where that write is a network round trip, once found an agent of a killed run still alive
after the resumed run ended). So before its first child the supervisor reports itself to the
ledger (`ProcessLedger.supervising`): a `SupervisorRecord` holding the token every tag it
gives a child begins with (`new_tag`). Once that process is gone, whatever still carries one
of its tags in `MERGEGATE_TREE` is something it started, or below one: `sweep_left` kills it.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict

from mergegate.processes._groups import boot_id, host_name, pid_namespace, process_start_ticks
from mergegate.processes._reaper import kill_tagged_by, supervisor_token

__all__ = ["ProcessIdentity", "SupervisorRecord", "this_supervisor"]


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


class SupervisorRecord(BaseModel):
    """A process that starts children under a ledger, recorded before its first child: its
    token begins every tag it gives one (`MERGEGATE_TREE`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: str
    process: ProcessIdentity

    def sweep_left(self, grace_s: float = 2.0) -> int | None:
        """Kill what this supervisor left running, once it is gone: every process carrying
        one of its tags, started since it started, and everything below (never this process
        or its ancestors). How many processes were signalled; None when nothing here can act
        for it: it still runs, or it ran on another host or in another PID namespace (its
        record is kept for a process there)."""
        if self.process.running():
            return None
        if self.process.boot_id != boot_id():
            return 0  # an earlier boot: nothing it started runs now
        return kill_tagged_by(self.token, self.process.start_ticks or 0, grace_s)


_here: dict[int, SupervisorRecord] = {}


def this_supervisor() -> SupervisorRecord:
    """This process as a supervisor (one record per process: a fork draws its own)."""
    pid = os.getpid()
    found = _here.get(pid)
    if found is None:
        found = _here.setdefault(
            pid, SupervisorRecord(token=supervisor_token(), process=ProcessIdentity.here())
        )
    return found
