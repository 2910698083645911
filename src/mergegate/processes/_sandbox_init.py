"""The first process of a sandbox, as the supervisor follows it.

bwrap (the process group's leader, our child) forks the sandbox's first process, pid 1 of its
PID namespace; when that one exits, the kernel kills everything left in the namespace. bwrap
reports its pid on an info pipe (`--info-fd`: a JSON object whose first field is `child-pid`).
When bwrap exits normally it has reaped it already. When bwrap is killed first (a stop, a
timeout), the first process dies a moment later on its parent-death signal and is reparented
to us, the subreaper, as a zombie of the group. So, once the leader exited, the supervisor
waits for that one process (by pid and start time, never a recycled pid) and reaps it if it
became ours: the group is then empty before the group sweep looks, and no zombie is left.

That process's exit is also the end of everything the sandbox started: nothing leaves a PID
namespace, and the kernel kills what is left in it before its first process is gone (or a
zombie). So once `await_exit` saw it gone, no process of the sandbox can be left anywhere,
and the supervisor spares itself the scans of /proc that look for them.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import time
from dataclasses import dataclass, field

from mergegate.processes._groups import process_start_ticks, read_stat

__all__ = ["SandboxInit"]

_CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')
_MAX_INFO = 64 << 10
_READ_SIZE = 4096
_POLL_S = 0.002


def _proc_readable() -> bool:
    """/proc shows this process: a pid it does not show is no process."""
    return process_start_ticks(os.getpid()) is not None


@dataclass
class SandboxInit:
    """bwrap's info pipe (the read end, non-blocking) and the first process it names."""

    fd: int
    info: bytearray = field(default_factory=bytearray)
    pid: int | None = None
    start_ticks: int | None = None
    gone_when_named: bool = False
    """bwrap named a pid that was already no process: its first process had exited."""

    def feed(self) -> bool:
        """Read what bwrap wrote so far; False at the end of the pipe."""
        while True:
            try:
                chunk = os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if len(self.info) < _MAX_INFO:
                self.info += chunk[: _MAX_INFO - len(self.info)]
            self._find_pid()

    def _find_pid(self) -> None:
        if self.pid is not None:
            return
        found = _CHILD_PID.search(self.info)
        if found is not None:
            self.pid = int(found.group(1))
            # read now, while it runs: it is how a recycled pid is told apart later
            self.start_ticks = process_start_ticks(self.pid)
            # no process under a pid bwrap just named: its first process exited and was
            # reaped already (a quick child), which is what `await_exit` waits for
            self.gone_when_named = self.start_ticks is None and _proc_readable()

    def _same(self) -> tuple[bool, bool]:
        """(it is still our process, it is a zombie)."""
        if self.pid is None or self.start_ticks is None:
            return False, False
        stat = read_stat(self.pid)
        if stat is None or stat[2] != self.start_ticks:
            return False, False
        return True, stat[0] == "Z"

    def await_exit(self, timeout_s: float) -> bool:
        """Wait (at most `timeout_s`) until the first process has exited, and reap it if it
        is a zombie of ours (by pid: never anyone else's child). True when it was seen gone
        (and with it every process of the sandbox); False when it was never named (bwrap
        failed, or was killed before it wrote its info) or still runs at the deadline."""
        self.feed()
        deadline = time.monotonic() + timeout_s
        while True:
            same, zombie = self._same()
            if not same:
                # gone: reaped by bwrap (a normal exit), or never named
                return self.pid is not None and (
                    self.gone_when_named or self.start_ticks is not None
                )
            if zombie:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(self.pid or 0, os.WNOHANG)
                return True
            if time.monotonic() >= deadline:
                return False
            select.select([], [], [], _POLL_S)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
