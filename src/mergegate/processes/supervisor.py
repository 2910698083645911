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

Processes that left the group (`setsid`, a double fork, `nohup`) are found by `_reaper`:
mergegate becomes the subreaper of its agents, tags each agent's tree in its environment, and
kills what carries the tag (or was seen in the tree) when the run ends, so nothing an agent
started outlives `supervise`. Every child is registered under one lock held across `Popen`,
so the reaper never touches a child of ours, and never reaps by anything but a specific pid.

Before a child starts, the installed `ProcessLedger` is told who starts it (`this_supervisor`:
the token its tags begin with), so a child a crash left before its own record was written is
still found. The `ProcessRecord` (pid, pgid, start time, PID namespace, the tree's tag) is
written to the attempt directory for people, reported to the ledger and passed to an
`on_start` hook before the supervisor waits, so a later orchestrator can kill a group left
over by a crash with `kill_recorded_group` (which checks it is still that group) from a record
no agent could write.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mergegate.processes._environment import child_environment
from mergegate.processes._groups import (
    KILL_WAIT_S,
    POLL_S,
    boot_id,
    clear_group,
    host_name,
    killpg,
    leader_exited,
    pid_namespace,
    process_start_ticks,
)
from mergegate.processes._identity import this_supervisor
from mergegate.processes._interrupt import (
    hold_if_interrupted,
    interrupted,
    supervising,
    watching,
)
from mergegate.processes._ledger import ProcessLedger, installed_ledger
from mergegate.processes._pump import LineCallback, StreamPump, TailCallback
from mergegate.processes._reaper import (
    RunTree,
    become_subreaper,
    forget_child,
    new_tag,
    registering,
    tag_environment,
)
from mergegate.processes._sandbox import (
    Sandbox,
    bwrap_argv,
    find_bwrap,
    sandbox_environment,
)
from mergegate.processes._sandbox_init import SandboxInit
from mergegate.processes._values import (
    CommandResult,
    Limits,
    ProcessOutcome,
    ProcessRecord,
    StopReason,
)

__all__ = ["run_command", "sandbox_problem", "supervise"]

_READ_SIZE = 1 << 20
_MIN_WAIT_S = 0.001
_DRAIN_S = 0.5
_PROBE_TIMEOUT_S = 20.0
_INIT_WAIT_S = 2.0


@dataclass
class _Watch:
    """Mutable state of one supervised run."""

    proc: subprocess.Popen[bytes]
    record: ProcessRecord
    limits: Limits
    started: float
    cancel: threading.Event | None
    tree: RunTree
    init: SandboxInit | None = None
    """The sandbox's first process, when the child runs in one."""
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
        if (self.cancel is not None and self.cancel.is_set()) or interrupted():
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
            killpg(self.record.pgid, signal.SIGTERM)
        elif self.kill_at is None and now - self.term_at >= self.limits.kill_grace_s:
            self.kill_at = now
            killpg(self.record.pgid, signal.SIGKILL)


def _make_record(
    proc: subprocess.Popen[bytes], argv: Sequence[str], cwd: Path, tag: str
) -> ProcessRecord:
    return ProcessRecord(
        pid=proc.pid,
        pgid=proc.pid,  # start_new_session makes the child its own group (and session) leader
        start_ticks=process_start_ticks(proc.pid),
        boot_id=boot_id(),
        started_at=time.time(),
        argv=tuple(argv),
        cwd=str(cwd),
        tag=tag,
        pid_ns=pid_namespace(),
        host=host_name(),
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
    sandbox: Sandbox | None = None,
) -> ProcessOutcome:
    """Run `argv` to completion under the limits; never raises for the child's failures.

    `env` is the child's whole environment (default: `child_environment()`), to which the
    run's tag (`MERGEGATE_TREE`) is added. With a `sandbox`, the child runs inside it
    (`bwrap`, see `_sandbox`; HOME and TMPDIR are the sandbox's): bwrap is the process
    group's leader, recorded in the `ProcessRecord`, so killing the group kills the sandbox,
    and everything in it dies with it. Without bwrap the outcome is `missing`: a child that
    was asked to run in a sandbox never runs outside one. With an `attempt_dir`, writes
    `<log_prefix>.stdout.log`, `<log_prefix>.stderr.log` and `process.json` (the
    `ProcessRecord`) there. No process of the run survives the return: not the group, and not
    a descendant that left it (see `_reaper`). The first call makes this process a subreaper.

    Once the process is interrupted (`mergegate.processes.interrupt`), no child is started,
    a running one is stopped, and the caller is held instead of getting an outcome.
    """
    hold_if_interrupted()
    with supervising():
        outcome = _supervise(
            argv,
            cwd=cwd,
            attempt_dir=attempt_dir,
            env=env,
            limits=limits,
            on_line=on_line,
            on_tail=on_tail,
            on_start=on_start,
            cancel=cancel,
            log_prefix=log_prefix,
            sandbox=sandbox,
        )
    hold_if_interrupted()
    return outcome


def _supervise(
    argv: Sequence[str],
    *,
    cwd: Path,
    attempt_dir: Path | None,
    env: Mapping[str, str] | None,
    limits: Limits | None,
    on_line: LineCallback | None,
    on_tail: TailCallback | None,
    on_start: Callable[[ProcessRecord], None] | None,
    cancel: threading.Event | None,
    log_prefix: str,
    sandbox: Sandbox | None,
) -> ProcessOutcome:
    limits = limits or Limits()
    started = time.monotonic()
    if not argv:
        return ProcessOutcome(StopReason.MISSING, None, None, 0.0, error="empty argv")
    if attempt_dir is not None:
        attempt_dir.mkdir(parents=True, exist_ok=True)
    ledger = installed_ledger()
    if ledger is not None:
        ledger.supervising(this_supervisor())  # durable before the child can exist
    start = _start(argv, cwd, child_environment() if env is None else dict(env), sandbox)
    if start is None:
        return ProcessOutcome(
            StopReason.MISSING,
            None,
            None,
            time.monotonic() - started,
            error="no sandbox: bubblewrap (bwrap) is not installed",
        )
    argv, init = start.argv, start.init
    become_subreaper()
    tag = new_tag()
    try:
        proc = _spawn(argv, cwd, tag_environment(start.env, tag), start.info_child)
    except OSError as exc:
        if init is not None:
            init.close()
        return ProcessOutcome(
            StopReason.MISSING, None, None, time.monotonic() - started, error=f"{argv[0]}: {exc}"
        )
    finally:
        if start.info_child is not None:
            os.close(start.info_child)  # the child's end: bwrap holds it now
    record = _make_record(proc, argv, cwd, tag)
    # a sandbox's processes never leave its PID namespace, which dies with its first
    # process: nothing to learn from walking its tree while it runs
    tree = RunTree(proc.pid, tag, record.start_ticks, observe=init is None)
    try:
        if attempt_dir is not None:
            (attempt_dir / "process.json").write_text(record.model_dump_json(indent=2) + "\n")
        if ledger is not None:
            ledger.started(record, attempt_dir)
        if on_start is not None:
            on_start(record)
        watch = _Watch(proc, record, limits, started, cancel, tree, init, started)
        with watching(record.pgid):
            return _watch(watch, attempt_dir, log_prefix, on_line, on_tail)
    finally:
        _finish(proc, record, tree, init, ledger)


def _finish(
    proc: subprocess.Popen[bytes],
    record: ProcessRecord,
    tree: RunTree,
    init: SandboxInit | None,
    ledger: ProcessLedger | None,
) -> None:
    """After the child: kill what a raising callback left, forget it, close the sandbox's
    pipe, and tell the ledger the group is gone."""
    if proc.returncode is None:
        # Only reached when a callback raised: never leave the group (or its escapees).
        killpg(record.pgid, signal.SIGKILL)
        tree.sweep(record.pgid, 0.0)
        proc.wait()
    forget_child(proc.pid)
    if init is not None:
        init.close()
    if ledger is not None:
        _report_end(ledger, record)


def _report_end(ledger: ProcessLedger, record: ProcessRecord) -> None:
    """Tell the ledger the group is gone. A failure is not the run's: a record left behind
    names a process that is gone, which a later kill finds out and signals nothing."""
    with contextlib.suppress(Exception):
        ledger.ended(record)


@dataclass(frozen=True)
class _Start:
    """How a child is started: its argv and environment, and for a sandbox, bwrap's info
    pipe (our end, and the child's end to hand over)."""

    argv: Sequence[str]
    env: dict[str, str]
    init: SandboxInit | None = None
    info_child: int | None = None


def _start(
    argv: Sequence[str], cwd: Path, env: dict[str, str], sandbox: Sandbox | None
) -> _Start | None:
    """`argv` as it is, or wrapped in bwrap for `sandbox`; None when bwrap is missing."""
    if sandbox is None:
        return _Start(argv, env)
    bwrap = find_bwrap()
    if bwrap is None:
        return None
    info, info_child = os.pipe()
    os.set_blocking(info, False)
    wrapped = bwrap_argv(sandbox, argv, cwd, bwrap, info_fd=info_child)
    return _Start(wrapped, sandbox_environment(sandbox, env), SandboxInit(info), info_child)


def _spawn(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None, keep_fd: int | None = None
) -> subprocess.Popen[bytes]:
    """Start a child the one way this module does: stdin closed, stdout/stderr piped
    unbuffered, its own session (so its whole group can be killed), inherited fds closed
    (but `keep_fd`: bwrap's info pipe). The child is registered (for the reaper) before the
    registry lock is released."""
    with registering() as register:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=child_environment() if env is None else dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            pass_fds=() if keep_fd is None else (keep_fd,),
            bufsize=0,
        )
        register(proc.pid)
    return proc


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
        proc.stdout.fileno(): StreamPump("stdout", out_log, watch.limits, on_line, on_tail),
        proc.stderr.fileno(): StreamPump("stderr", err_log, watch.limits, on_line, on_tail),
    }
    with selectors.DefaultSelector() as sel, _exit_notifier(proc.pid) as pidfd:
        for fd in pumps:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ)  # readable once the leader exits
        init = watch.init
        if init is not None:
            sel.register(init.fd, selectors.EVENT_READ, init)  # bwrap's info: its child's pid
        try:
            _loop(watch, sel, pumps)
            if pidfd is not None:
                sel.unregister(pidfd)  # stays readable from now on: drop it before draining
            emptied = False
            if init is not None:
                if init.fd in sel.get_map():
                    sel.unregister(init.fd)
                # the group holds only the leader after this; and once the sandbox's first
                # process is seen gone, so is every process the sandbox started (its PID
                # namespace), so neither sweep below has anything to find
                emptied = init.await_exit(_INIT_WAIT_S)
            leftovers = escapees = 0
            if not emptied:
                leftovers = clear_group(watch.record.pgid, proc.pid, watch.remaining_grace())
                escapees = watch.tree.sweep(watch.record.pgid, watch.remaining_grace())
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
        escapees_killed=escapees,
        oversize_lines=stdout_pump.oversize_lines + stderr_pump.oversize_lines,
    )


def _read_ready(sel: selectors.BaseSelector, pumps: dict[int, StreamPump], wait: float) -> bool:
    """Read whatever is ready; True if any byte arrived."""
    grew = False
    for key, _ in sel.select(wait):
        fd = int(key.fd)
        if isinstance(key.data, SandboxInit):
            if not key.data.feed():
                sel.unregister(fd)
            continue
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


def _loop(watch: _Watch, sel: selectors.BaseSelector, pumps: dict[int, StreamPump]) -> None:
    """Pump output and enforce limits until the leader exits (it is left unreaped)."""
    idle_wait = _MIN_WAIT_S
    while True:
        now = time.monotonic()
        if sel.get_map():
            if _read_ready(sel, pumps, POLL_S):
                now = time.monotonic()
                watch.last_activity = now
        else:
            # No pidfd and both pipes closed: the leader is probably exiting. Back off from
            # 1 ms so a quick exit is seen at once without spinning on one that lives on.
            time.sleep(idle_wait)
            idle_wait = min(idle_wait * 2, POLL_S)
        if leader_exited(watch.proc.pid):
            return
        watch.tree.observe(now)
        watch.decide(now, any(p.done for p in pumps.values()))
        watch.escalate(now)
        if watch.kill_at is not None and now - watch.kill_at > KILL_WAIT_S:
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


def _drain(sel: selectors.BaseSelector, pumps: dict[int, StreamPump], deadline: float) -> None:
    """Read what the dead group left in the pipes, without waiting on an escaped holder."""
    while any(key.fd in pumps for key in sel.get_map().values()) and time.monotonic() < deadline:
        _read_ready(sel, pumps, POLL_S)


def run_command(
    argv: Sequence[str],
    cwd: Path,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
) -> CommandResult:
    """Run a short tool (git) to completion: stdin closed, own group, killed on timeout.

    Output is held in memory, so this is for commands with bounded output only. Once the
    process is interrupted, no command starts (the caller is held).
    """
    hold_if_interrupted()
    args = tuple(argv)
    try:
        proc = _spawn(args, cwd, env)
    except OSError as exc:
        return CommandResult(args, None, b"", str(exc).encode(), missing=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return CommandResult(args, proc.returncode, out, err, timed_out=True)
    finally:
        if proc.returncode is None:
            killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait()
        if proc.returncode is not None:
            forget_child(proc.pid)
    return CommandResult(args, proc.returncode, out, err)


def sandbox_problem() -> str | None:
    """Why no sandbox can be made here, in a few words; None when one can.

    Starts `/bin/true` in an empty sandbox, with the same bwrap options as every sandboxed
    child (bwrap missing, user namespaces refused by the kernel or a security module, a
    container's seccomp filter: each shows here). Asked once per process and bwrap path."""
    return _problem(find_bwrap())


@functools.cache
def _problem(bwrap: str | None) -> str | None:
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    result = run_command(
        bwrap_argv(Sandbox(), ["/bin/true"], Path("/"), bwrap),
        Path("/"),
        timeout=_PROBE_TIMEOUT_S,
        env={"PATH": "/usr/bin:/bin"},
    )
    if result.ok:
        return None
    if result.timed_out:
        return f"{bwrap} did not start a sandbox within {_PROBE_TIMEOUT_S:g} s"
    lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = lines[-1][:300] if lines else f"exit {result.returncode}"
    return f"{bwrap} cannot make a sandbox here ({detail})"
