"""The values of the supervisor: limits, stop reasons, process records and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.config import DEFAULT_AGENTS

__all__ = ["CommandResult", "Limits", "ProcessOutcome", "ProcessRecord", "StopReason", "Stream"]

Stream = Literal["stdout", "stderr"]


class StopReason(StrEnum):
    """Why the supervisor stopped watching a process."""

    EXITED = "exited"
    """The process exited on its own."""
    DONE = "done"
    """The backend reported the terminal event (the process exited or was killed after a grace)."""
    TIMEOUT = "timeout"
    STALLED = "stalled"
    CANCELLED = "cancelled"
    MISSING = "missing"
    """The executable could not be started (not found, not executable)."""


class Limits(BaseModel):
    """Time and size limits of one supervised run. Defaults are the `[agents]` configuration's;
    limits are finite (an infinite grace would never send SIGKILL)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    timeout_s: float = Field(DEFAULT_AGENTS.default_timeout_s, gt=0)
    """Wall-clock limit."""
    stall_timeout_s: float | None = Field(DEFAULT_AGENTS.default_stall_timeout_s, gt=0)
    """Stop when neither stdout nor stderr grew for this long; None disables it."""
    kill_grace_s: float = Field(DEFAULT_AGENTS.kill_grace_s, ge=0)
    """Seconds between SIGTERM and SIGKILL to the group."""
    done_grace_s: float = Field(10.0, ge=0)
    """Seconds a process may linger after its terminal event before its group is stopped."""
    log_cap_bytes: int = Field(DEFAULT_AGENTS.max_output_bytes, ge=0)
    """Per stream: bytes written to the log file before only the tail is kept."""
    tail_bytes: int = 1 << 20
    """Per stream: bytes of the end of the output kept in memory."""
    max_line_bytes: int = 16 << 20
    """Longer lines are logged but not handed to the line callback (counted as oversize)."""


class ProcessRecord(BaseModel):
    """Enough to find (and safely kill) a process group after the orchestrator died."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pid: int
    pgid: int
    start_ticks: int | None
    """Start time in clock ticks since boot (`/proc/<pid>/stat` field 22); None off Linux."""
    boot_id: str | None
    started_at: float
    """Wall-clock start (seconds since the epoch), for people."""
    argv: tuple[str, ...]
    cwd: str
    tag: str | None = None
    """The tag the supervisor put in the process's environment (`MERGEGATE_TREE`): a process
    without it was not started by this record's supervisor, and is never killed for it."""
    pid_ns: str | None = None
    """The PID namespace the supervisor ran in (`/proc/self/ns/pid`): the pids of the record
    mean these processes only there."""
    host: str | None = Field(default=None, exclude_if=lambda host: host is None)
    """The machine the supervisor ran on (`socket.gethostname()`): only a process there may
    act on the record, and `status` names it for an agent nobody here can reach. None in a
    record written before hosts were recorded, whose JSON has no such field (and keeps it
    that way: the rows are found again by their exact JSON)."""


@dataclass(frozen=True)
class ProcessOutcome:
    """What happened to one supervised process."""

    reason: StopReason
    record: ProcessRecord | None
    returncode: int | None
    """As `subprocess.Popen.returncode`: negative for a signal."""
    duration_s: float
    stdout_tail: bytes = b""
    stderr_tail: bytes = b""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    stdout_log: Path | None = None
    stderr_log: Path | None = None
    terminal_seen: bool = False
    """The line callback reported the terminal event."""
    signalled: bool = False
    """The supervisor sent SIGTERM/SIGKILL to the group while the leader ran."""
    leftovers_killed: int = 0
    """Processes still in the group after the leader exited, and therefore killed."""
    escapees_killed: int = 0
    """Processes of the run found outside its group when it ended (`setsid`, a double fork),
    and therefore killed."""
    oversize_lines: int = 0
    error: str | None = None

    @property
    def signal(self) -> int | None:
        """The signal that ended the leader, if any."""
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None

    @property
    def output_truncated(self) -> bool:
        return self.stdout_bytes > len(self.stdout_tail)


@dataclass(frozen=True)
class CommandResult:
    """The result of a short command run by `run_command`."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    missing: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out
