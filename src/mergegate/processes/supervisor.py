"""The one module that starts processes: agent CLIs, fake agents, and the tools other modules run.

Every child is started the same way: an argv list (never a shell string), stdin closed
(`/dev/null`, so no CLI waits on an open pipe), its own session and process group
(`start_new_session=True`) so the whole tree can be signalled, and an environment scrubbed of
the parent agent's variables (`SCRUBBED_ENV_NAMES`, `SCRUBBED_ENV_PREFIXES`).

`supervise` runs one agent: stdout and stderr are read concurrently by one selector loop (raw
chunks, split on ``\\n`` here, so a multi-megabyte line never trips a reader limit), written to
log files in the attempt directory and handed line by line to the backend's parser. It stops
the run on a wall timeout, a stall (no byte on stdout *or* stderr for the stall timeout), a
cancel event, or a short grace after the backend reported the terminal event (CLIs hang after
their last event). Stopping is SIGTERM to the group, a grace, then SIGKILL. Processes left in
the group after the leader exits (a grandchild that ignores SIGTERM) are killed too, while the
unreaped leader still pins the group id, so no recycled id is ever signalled.

The `ProcessRecord` (pid, pgid, start time) is written to the attempt directory and passed to
an `on_start` hook before the supervisor waits, so a later orchestrator can kill a group left
over by a crash with `kill_recorded_group`, which checks the start time first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "SCRUBBED_ENV_NAMES",
    "SCRUBBED_ENV_PREFIXES",
    "CommandResult",
    "Limits",
    "ProcessOutcome",
    "ProcessRecord",
    "StopReason",
    "Stream",
    "child_environment",
    "group_members",
    "kill_recorded_group",
    "process_start_ticks",
    "run_command",
    "supervise",
]

Stream = Literal["stdout", "stderr"]
LineCallback = Callable[[Stream, str], bool | None]
"""Called once per complete line; returns True once the line was the terminal event."""
TailCallback = Callable[[Stream, str], None]
"""Called once per complete line for live progress (a UI tail); its return value is ignored."""

SCRUBBED_ENV_NAMES: frozenset[str] = frozenset(
    {
        "CLAUDECODE",  # Claude Code's nesting guard: a child claude refuses or changes behaviour
        "GEMINI_CLI",  # set by Gemini CLI for the commands it runs
        "OPENCODE",  # set by OpenCode for the commands it runs
        "CODEX_SANDBOX",  # set by Codex inside its sandbox; a child would think it is sandboxed
        "CODEX_SANDBOX_NETWORK_DISABLED",
        "CURSOR_AGENT",  # set by the Cursor agent for its commands
        "MERGEGATE_PROMPT_FILE",  # a parent mergegate run's per-attempt variables
        "MERGEGATE_ATTEMPT",
        "MERGEGATE_SESSION_ID",
        "MERGEGATE_REVIEW_ID",
    }
)
"""Variables removed from a child's environment: markers a parent agent sets for its children."""

SCRUBBED_ENV_PREFIXES: tuple[str, ...] = ("CLAUDE_CODE_", "CLAUDE_AGENT_SDK_")
"""Prefixes removed too (Claude Code's entrypoint, SSE port, session and IDE variables).
A backend may set any of them again through `AgentRequest.env`."""

_READ_SIZE = 1 << 20
_POLL_S = 0.05
_MIN_WAIT_S = 0.001
_DRAIN_S = 0.5
_KILL_WAIT_S = 5.0


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
    """Time and size limits of one supervised run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = 1800.0
    """Wall-clock limit."""
    stall_timeout_s: float | None = 300.0
    """Stop when neither stdout nor stderr grew for this long; None disables it."""
    kill_grace_s: float = 10.0
    """Seconds between SIGTERM and SIGKILL to the group."""
    done_grace_s: float = 10.0
    """Seconds a process may linger after its terminal event before its group is stopped."""
    log_cap_bytes: int = 64 << 20
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


# ---------------------------------------------------------------- environment


def child_environment(
    extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a child: `base` (default `os.environ`) scrubbed, then `extra` added."""
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if name not in SCRUBBED_ENV_NAMES and not name.startswith(SCRUBBED_ENV_PREFIXES)
    }
    env.update(extra or {})
    return env


# ---------------------------------------------------------------- /proc helpers


def _read_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, pgid, start_ticks) of a pid from /proc, or None if gone or unavailable."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The command name is in parentheses and may itself hold spaces or parentheses.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        return fields[0].decode(), int(fields[2]), int(fields[19])
    except (IndexError, ValueError):
        return None


def process_start_ticks(pid: int) -> int | None:
    """The start time of `pid` in clock ticks since boot, or None (gone, or not Linux)."""
    stat = _read_stat(pid)
    return stat[2] if stat else None


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def group_members(pgid: int) -> list[int] | None:
    """Live (non-zombie) pids in process group `pgid`; None when /proc is unavailable."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    if "self" not in names:
        return None
    members = []
    for name in names:
        if name.isdigit():
            stat = _read_stat(int(name))
            if stat and stat[1] == pgid and stat[0] != "Z":
                members.append(int(name))
    return members


def _killpg(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


# ---------------------------------------------------------------- output pumping


class _StreamPump:
    """One stream: log file (capped), in-memory tail, and line splitting with a size cap."""

    def __init__(
        self,
        name: Stream,
        log: IO[bytes] | None,
        limits: Limits,
        on_line: LineCallback | None,
        on_tail: TailCallback | None,
    ) -> None:
        self.name: Stream = name
        self.log = log
        self.limits = limits
        self.on_line = on_line
        self.on_tail = on_tail
        self.total = 0
        self.logged = 0
        self.tail = bytearray()
        self.partial = bytearray()
        self.oversize = False
        self.oversize_lines = 0
        self.done = False

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._log(chunk)
        self.tail += chunk
        if len(self.tail) > 2 * self.limits.tail_bytes:
            del self.tail[: len(self.tail) - self.limits.tail_bytes]
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._line(chunk[start:end])
            start = end + 1
        self._keep_partial(chunk[start:])

    def close(self) -> None:
        if self.partial or self.oversize:
            self._line(b"")
        if self.log is not None:
            self._log_tail()
            self.log.close()
            self.log = None

    def tail_bytes(self) -> bytes:
        return bytes(self.tail[-self.limits.tail_bytes :]) if self.limits.tail_bytes else b""

    def _keep_partial(self, rest: bytes) -> None:
        if self.oversize:
            return
        if len(self.partial) + len(rest) > self.limits.max_line_bytes:
            self.oversize = True
            self.partial.clear()
            return
        self.partial += rest

    def _line(self, piece: bytes) -> None:
        if self.oversize or len(self.partial) + len(piece) > self.limits.max_line_bytes:
            self.oversize_lines += 1
            self.oversize = False
            self.partial.clear()
            return
        data = bytes(self.partial) + piece if self.partial else piece
        self.partial.clear()
        text = data.decode("utf-8", "replace").removesuffix("\r")
        if self.on_tail is not None:
            self.on_tail(self.name, text)
        if self.on_line is not None and self.on_line(self.name, text):
            self.done = True

    def _log(self, chunk: bytes) -> None:
        room = self.limits.log_cap_bytes - self.logged
        if self.log is None or room <= 0:
            return
        self.log.write(chunk[:room])
        self.logged += min(room, len(chunk))

    def _log_tail(self) -> None:
        assert self.log is not None
        omitted = self.total - self.logged
        if omitted <= 0:
            return
        kept = self.tail_bytes()[-omitted:]
        self.log.write(
            f"\n[mergegate: log capped at {self.logged} bytes; "
            f"{omitted - len(kept)} bytes omitted; the last {len(kept)} bytes follow]\n".encode()
        )
        self.log.write(kept)


# ---------------------------------------------------------------- the supervised run


@dataclass
class _Watch:
    """Mutable state of one supervised run."""

    proc: subprocess.Popen[bytes]
    record: ProcessRecord
    limits: Limits
    started: float
    cancel: threading.Event | None
    last_activity: float = 0.0
    reason: StopReason | None = None
    done_at: float | None = None
    term_at: float | None = None
    kill_at: float | None = None

    def decide(self, now: float, done: bool) -> None:
        """Set the stop reason the first time a limit is hit."""
        if done and self.done_at is None:
            self.done_at = now
        if self.reason is not None:
            return
        limits = self.limits
        if self.cancel is not None and self.cancel.is_set():
            self.reason = StopReason.CANCELLED
        elif self.done_at is not None and now - self.done_at >= limits.done_grace_s:
            self.reason = StopReason.DONE
        elif now - self.started >= limits.timeout_s:
            self.reason = StopReason.TIMEOUT
        elif (
            limits.stall_timeout_s is not None
            and now - self.last_activity >= limits.stall_timeout_s
        ):
            self.reason = StopReason.STALLED

    def remaining_grace(self) -> float:
        """Grace left for what remains of the group once the leader exited."""
        if self.term_at is None:
            return self.limits.kill_grace_s
        if self.kill_at is not None:
            return 0.0
        return max(0.0, self.limits.kill_grace_s - (time.monotonic() - self.term_at))

    def escalate(self, now: float) -> None:
        """SIGTERM the group once a reason is set, SIGKILL it after the grace."""
        if self.reason is None:
            return
        if self.term_at is None:
            self.term_at = now
            _killpg(self.record.pgid, signal.SIGTERM)
        elif self.kill_at is None and now - self.term_at >= self.limits.kill_grace_s:
            self.kill_at = now
            _killpg(self.record.pgid, signal.SIGKILL)


def _leader_exited(pid: int) -> bool:
    """True once `pid` has exited; it stays unreaped (a zombie) so its ids cannot be reused."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _clear_group(pgid: int, leader: int, grace_s: float) -> int:
    """Kill what is left in the group after the leader exited; returns how many were left."""
    seen = group_members(pgid)
    if seen is None:
        # No /proc: we cannot see the group, so signal it blindly (the zombie leader pins it).
        _killpg(pgid, signal.SIGKILL)
        return 0
    members = [pid for pid in seen if pid != leader]
    if not members:
        return 0
    _killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not [pid for pid in (group_members(pgid) or []) if pid != leader]:
            return len(members)
        time.sleep(_POLL_S)
    _killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + _KILL_WAIT_S
    while time.monotonic() < deadline and [p for p in group_members(pgid) or [] if p != leader]:
        time.sleep(_POLL_S)
    return len(members)


def _make_record(proc: subprocess.Popen[bytes], argv: Sequence[str], cwd: Path) -> ProcessRecord:
    return ProcessRecord(
        pid=proc.pid,
        pgid=proc.pid,  # start_new_session makes the child its own group (and session) leader
        start_ticks=process_start_ticks(proc.pid),
        boot_id=_boot_id(),
        started_at=time.time(),
        argv=tuple(argv),
        cwd=str(cwd),
    )


def _open_log(attempt_dir: Path | None, name: str) -> tuple[IO[bytes] | None, Path | None]:
    if attempt_dir is None:
        return None, None
    path = attempt_dir / name
    return path.open("wb"), path


def supervise(
    argv: Sequence[str],
    *,
    cwd: Path,
    attempt_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    on_line: LineCallback | None = None,
    on_tail: TailCallback | None = None,
    on_start: Callable[[ProcessRecord], None] | None = None,
    cancel: threading.Event | None = None,
    log_prefix: str = "agent",
) -> ProcessOutcome:
    """Run `argv` to completion under the limits; never raises for the child's failures.

    `env` is the child's whole environment (default: `child_environment()`). With an
    `attempt_dir`, writes `<log_prefix>.stdout.log`, `<log_prefix>.stderr.log` and
    `process.json` (the `ProcessRecord`) there. No process of the group survives the return.
    """
    limits = limits or Limits()
    started = time.monotonic()
    if not argv:
        return ProcessOutcome(StopReason.MISSING, None, None, 0.0, error="empty argv")
    if attempt_dir is not None:
        attempt_dir.mkdir(parents=True, exist_ok=True)
    try:
        proc = _spawn(argv, cwd, env)
    except OSError as exc:
        return ProcessOutcome(
            StopReason.MISSING, None, None, time.monotonic() - started, error=f"{argv[0]}: {exc}"
        )
    record = _make_record(proc, argv, cwd)
    try:
        if attempt_dir is not None:
            (attempt_dir / "process.json").write_text(record.model_dump_json(indent=2) + "\n")
        if on_start is not None:
            on_start(record)
        watch = _Watch(proc, record, limits, started, cancel, last_activity=started)
        return _watch(watch, attempt_dir, log_prefix, on_line, on_tail)
    finally:
        if proc.returncode is None:
            # Only reached when a callback raised: never leave the group behind.
            _killpg(record.pgid, signal.SIGKILL)
            proc.wait()


def _spawn(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None
) -> subprocess.Popen[bytes]:
    """Start a child the one way this module does: stdin closed, stdout/stderr piped
    unbuffered, its own session (so its whole group can be killed), inherited fds closed."""
    return subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=child_environment() if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
        bufsize=0,
    )


def _watch(
    watch: _Watch,
    attempt_dir: Path | None,
    log_prefix: str,
    on_line: LineCallback | None,
    on_tail: TailCallback | None,
) -> ProcessOutcome:
    proc = watch.proc
    assert proc.stdout is not None
    assert proc.stderr is not None
    out_log, out_path = _open_log(attempt_dir, f"{log_prefix}.stdout.log")
    err_log, err_path = _open_log(attempt_dir, f"{log_prefix}.stderr.log")
    pumps = {
        proc.stdout.fileno(): _StreamPump("stdout", out_log, watch.limits, on_line, on_tail),
        proc.stderr.fileno(): _StreamPump("stderr", err_log, watch.limits, on_line, on_tail),
    }
    with selectors.DefaultSelector() as sel, _exit_notifier(proc.pid) as pidfd:
        for fd in pumps:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ)  # readable once the leader exits
        try:
            _loop(watch, sel, pumps)
            if pidfd is not None:
                sel.unregister(pidfd)  # stays readable from now on: drop it before draining
            leftovers = _clear_group(watch.record.pgid, proc.pid, watch.remaining_grace())
            _drain(sel, pumps, time.monotonic() + _DRAIN_S)
        finally:
            for pump in pumps.values():
                pump.close()
            proc.stdout.close()
            proc.stderr.close()
    returncode = proc.wait()
    stdout_pump, stderr_pump = pumps.values()  # inserted in this order above
    return ProcessOutcome(
        reason=watch.reason or StopReason.EXITED,
        record=watch.record,
        returncode=returncode,
        duration_s=time.monotonic() - watch.started,
        stdout_tail=stdout_pump.tail_bytes(),
        stderr_tail=stderr_pump.tail_bytes(),
        stdout_bytes=stdout_pump.total,
        stderr_bytes=stderr_pump.total,
        stdout_log=out_path,
        stderr_log=err_path,
        terminal_seen=stdout_pump.done or stderr_pump.done,
        signalled=watch.term_at is not None,
        leftovers_killed=leftovers,
        oversize_lines=stdout_pump.oversize_lines + stderr_pump.oversize_lines,
    )


def _read_ready(sel: selectors.BaseSelector, pumps: dict[int, _StreamPump], wait: float) -> bool:
    """Read whatever is ready; True if any byte arrived."""
    grew = False
    for key, _ in sel.select(wait):
        fd = int(key.fd)
        if fd not in pumps:
            continue  # the pidfd: it only wakes the loop up
        try:
            chunk = os.read(fd, _READ_SIZE)
        except BlockingIOError:
            continue
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            chunk = b""
        if chunk:
            pumps[fd].feed(chunk)
            grew = True
        else:
            sel.unregister(fd)
    return grew


def _loop(watch: _Watch, sel: selectors.BaseSelector, pumps: dict[int, _StreamPump]) -> None:
    """Pump output and enforce limits until the leader exits (it is left unreaped)."""
    idle_wait = _MIN_WAIT_S
    while True:
        now = time.monotonic()
        if sel.get_map():
            if _read_ready(sel, pumps, _POLL_S):
                now = time.monotonic()
                watch.last_activity = now
        else:
            # No pidfd and both pipes closed: the leader is probably exiting. Back off from
            # 1 ms so a quick exit is seen at once without spinning on one that lives on.
            time.sleep(idle_wait)
            idle_wait = min(idle_wait * 2, _POLL_S)
        if _leader_exited(watch.proc.pid):
            return
        watch.decide(now, any(p.done for p in pumps.values()))
        watch.escalate(now)
        if watch.kill_at is not None and now - watch.kill_at > _KILL_WAIT_S:
            return  # unkillable (e.g. uninterruptible sleep); proc.wait() will block on it


@contextlib.contextmanager
def _exit_notifier(pid: int) -> Iterator[int | None]:
    """A pidfd that becomes readable when `pid` exits (Linux ≥ 5.3), else None (polling)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    fd: int | None = None
    if pidfd_open is not None:
        with contextlib.suppress(OSError):
            fd = pidfd_open(pid)
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _drain(sel: selectors.BaseSelector, pumps: dict[int, _StreamPump], deadline: float) -> None:
    """Read what the dead group left in the pipes, without waiting on an escaped holder."""
    while any(key.fd in pumps for key in sel.get_map().values()) and time.monotonic() < deadline:
        _read_ready(sel, pumps, _POLL_S)


# ---------------------------------------------------------------- crash recovery


def kill_recorded_group(record: ProcessRecord, grace_s: float = 2.0) -> bool:
    """Kill a group left over by a crashed orchestrator; True if something was signalled.

    Safe against recycled pids: it signals only when the recorded leader is still the same
    process (same boot, same start time), or, with the leader gone, when every remaining
    member of the group started after it. Without /proc it refuses (returns False).
    """
    boot = _boot_id()
    if record.start_ticks is None or boot is None or boot != record.boot_id:
        return False
    leader = _read_stat(record.pid)
    if (
        leader is not None
        and leader[0] != "Z"
        and (leader[2] != record.start_ticks or leader[1] != record.pgid)
    ):
        return False  # the pid was recycled by an unrelated process
    members = group_members(record.pgid) or []
    if not members:
        return False
    if any((process_start_ticks(pid) or 0) < record.start_ticks for pid in members):
        return False
    _killpg(record.pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and group_members(record.pgid):
        time.sleep(_POLL_S)
    if group_members(record.pgid):
        _killpg(record.pgid, signal.SIGKILL)
    return True


# ---------------------------------------------------------------- short commands


def run_command(
    argv: Sequence[str],
    cwd: Path,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
) -> CommandResult:
    """Run a short tool (git) to completion: stdin closed, own group, killed on timeout.

    Output is held in memory, so this is for commands with bounded output only.
    """
    args = tuple(argv)
    try:
        proc = _spawn(args, cwd, env)
    except OSError as exc:
        return CommandResult(args, None, b"", str(exc).encode(), missing=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return CommandResult(args, proc.returncode, out, err, timed_out=True)
    finally:
        if proc.returncode is None:
            _killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait()
    return CommandResult(args, proc.returncode, out, err)
