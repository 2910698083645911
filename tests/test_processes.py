"""The supervisor against a fake agent for every fault; no process may survive a test."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from mergegate.processes import (
    TREE_ENV,
    Limits,
    ProcessRecord,
    StopReason,
    SupervisorRecord,
    child_environment,
    group_members,
    install_ledger,
    kill_recorded_group,
    process_start_ticks,
    run_command,
    supervise,
    this_supervisor,
)

FAKE = Path(__file__).parent / "fakes" / "fake_agent.py"
FAST = Limits(timeout_s=5.0, stall_timeout_s=None, kill_grace_s=0.5, done_grace_s=0.5)


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


def wait_dead(pid: int, within: float = 3.0) -> bool:
    """Reparented grandchildren are reaped by init asynchronously; allow it a moment."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


def run_fake(mode: str, tmp_path: Path, limits: Limits = FAST, **kwargs: object):  # type: ignore[no-untyped-def]
    env = child_environment({"FAKE_AGENT_MODE": mode, "FAKE_AGENT_PIDFILE": str(tmp_path / "pids")})
    outcome = supervise(
        [sys.executable, str(FAKE)],
        cwd=tmp_path,
        attempt_dir=tmp_path / "attempt",
        env=env,
        limits=limits,
        **kwargs,  # type: ignore[arg-type]
    )
    assert outcome.record is not None
    assert wait_dead(outcome.record.pid)
    assert not group_members(outcome.record.pgid)
    return outcome


def child_pids(tmp_path: Path) -> list[int]:
    path = tmp_path / "pids"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def test_clean_exit_logs_and_records(tmp_path: Path) -> None:
    starts: list[ProcessRecord] = []
    outcome = run_fake("ok", tmp_path, on_start=starts.append)
    assert outcome.reason is StopReason.EXITED
    assert outcome.returncode == 0
    assert outcome.stdout_tail == b"fake agent says hello\n"
    assert outcome.stdout_log is not None
    assert outcome.stdout_log.read_bytes() == b"fake agent says hello\n"
    record = ProcessRecord.model_validate_json((tmp_path / "attempt" / "process.json").read_text())
    assert starts == [record]
    assert record.pgid == record.pid == outcome.record.pid  # type: ignore[union-attr]
    assert record.start_ticks is not None


def test_hang_without_output_times_out(tmp_path: Path) -> None:
    limits = Limits(timeout_s=1.0, stall_timeout_s=None, kill_grace_s=0.5)
    outcome = run_fake("hang", tmp_path, limits)
    assert outcome.reason is StopReason.TIMEOUT
    assert outcome.signal == signal.SIGTERM
    assert outcome.signalled


def test_output_then_silence_is_a_stall(tmp_path: Path) -> None:
    limits = Limits(timeout_s=10.0, stall_timeout_s=1.0, kill_grace_s=0.5)
    outcome = run_fake("stall", tmp_path, limits)
    assert outcome.reason is StopReason.STALLED
    assert outcome.stdout_tail == b"working...\n"
    assert outcome.duration_s < 5


def test_stderr_counts_as_liveness(tmp_path: Path) -> None:
    limits = Limits(timeout_s=10.0, stall_timeout_s=0.6, kill_grace_s=0.5)
    outcome = run_fake("stderr-busy", tmp_path, limits)
    assert outcome.reason is StopReason.EXITED
    assert outcome.stdout_tail == b"done\n"


def test_grandchild_that_ignores_sigterm_is_killed_after_leader_exits(tmp_path: Path) -> None:
    outcome = run_fake("grandchild", tmp_path)
    (child,) = child_pids(tmp_path)
    assert outcome.reason is StopReason.EXITED
    assert outcome.returncode == 0
    assert outcome.leftovers_killed == 1
    assert wait_dead(child)


def test_grandchild_of_a_hung_leader_is_killed_on_timeout(tmp_path: Path) -> None:
    limits = Limits(timeout_s=1.0, stall_timeout_s=None, kill_grace_s=0.5)
    outcome = run_fake("grandchild-hang", tmp_path, limits)
    (child,) = child_pids(tmp_path)
    assert outcome.reason is StopReason.TIMEOUT
    assert wait_dead(child)


def test_leader_ignoring_sigterm_gets_sigkill(tmp_path: Path) -> None:
    limits = Limits(timeout_s=0.8, stall_timeout_s=None, kill_grace_s=0.4)
    outcome = run_fake("ignore-term", tmp_path, limits)
    assert outcome.reason is StopReason.TIMEOUT
    assert outcome.signal == signal.SIGKILL


def test_terminal_event_then_hang_is_stopped_after_done_grace(tmp_path: Path) -> None:
    def on_line(stream: str, line: str) -> bool:
        return stream == "stdout" and '"type": "result"' in line

    outcome = run_fake("hang-after-terminal", tmp_path, on_line=on_line)
    assert outcome.reason is StopReason.DONE
    assert outcome.terminal_seen
    assert outcome.duration_s < 4


def test_crash_by_signal(tmp_path: Path) -> None:
    outcome = run_fake("crash-signal", tmp_path)
    assert outcome.reason is StopReason.EXITED
    assert outcome.signal == signal.SIGSEGV
    assert not outcome.signalled


def test_flood_keeps_the_tail_and_caps_the_log(tmp_path: Path) -> None:
    limits = Limits(
        timeout_s=30.0, stall_timeout_s=None, log_cap_bytes=1 << 20, tail_bytes=64 << 10
    )
    lines: list[int] = []
    tracemalloc.start()
    try:
        outcome = run_fake(
            "flood", tmp_path, limits, on_line=lambda s, line: lines.append(len(line))
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # 30 MiB went through; memory held the tail and a chunk or two
    assert outcome.stdout_bytes == 30 * (1 << 20) + len(b"THE END\n")
    assert len(outcome.stdout_tail) == 64 << 10
    assert outcome.stdout_tail.endswith(b"THE END\n")
    assert outcome.output_truncated
    assert len(lines) == 30 * 1024 + 1
    assert outcome.stdout_log is not None
    log = outcome.stdout_log.read_bytes()
    assert len(log) < (1 << 20) + (64 << 10) + 200
    assert b"[mergegate: log capped at" in log
    assert log.endswith(b"THE END\n")


def test_oversize_line_is_not_handed_to_the_parser(tmp_path: Path) -> None:
    limits = Limits(timeout_s=30.0, stall_timeout_s=None, max_line_bytes=4096)
    seen: list[str] = []
    outcome = run_fake("flood", tmp_path, limits, on_line=lambda s, line: seen.append(line))
    # every flood line is 1023 bytes, under the cap: all parsed
    assert outcome.oversize_lines == 0
    assert seen[-1] == "THE END"
    tiny = Limits(timeout_s=30.0, stall_timeout_s=None, max_line_bytes=100)
    seen.clear()
    outcome = run_fake("flood", tmp_path, tiny, on_line=lambda s, line: seen.append(line))
    assert outcome.oversize_lines == 30 * 1024
    assert seen == ["THE END"]


def test_stdin_is_closed(tmp_path: Path) -> None:
    outcome = run_fake("stdin", tmp_path)
    text = outcome.stdout_tail.decode()
    assert text.startswith("stdin-eof bytes=0 ")
    assert float(text.split("waited=")[1]) < 1.0


def test_cancel_event_stops_the_group(tmp_path: Path) -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    outcome = run_fake("hang", tmp_path, cancel=cancel)
    timer.join()
    assert outcome.reason is StopReason.CANCELLED


def test_callback_error_kills_the_group(tmp_path: Path) -> None:
    records: list[ProcessRecord] = []

    def boom(stream: str, line: str) -> bool:
        raise RuntimeError("parser bug")

    with pytest.raises(RuntimeError, match="parser bug"):
        supervise(
            [sys.executable, str(FAKE), "--mode", "stall"],
            cwd=tmp_path,
            limits=FAST,
            on_line=boom,
            on_start=records.append,
        )
    assert wait_dead(records[0].pid)


def test_missing_executable(tmp_path: Path) -> None:
    outcome = supervise(["/nonexistent/agent-cli"], cwd=tmp_path, limits=FAST)
    assert outcome.reason is StopReason.MISSING
    assert outcome.record is None
    assert "agent-cli" in (outcome.error or "")


def test_environment_is_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    monkeypatch.setenv("KEEP_ME", "yes")
    outcome = supervise([sys.executable, str(FAKE), "--mode", "env"], cwd=tmp_path, limits=FAST)
    env = json.loads(outcome.stdout_tail)["env"]
    assert env["CLAUDECODE"] is None
    assert env["CLAUDE_CODE_ENTRYPOINT"] is None
    assert env["KEEP_ME"] == "yes"


def test_child_environment_adds_after_scrubbing() -> None:
    env = child_environment({"CLAUDE_CODE_MAX_RETRIES": "3"}, base={"CLAUDE_CODE_X": "1", "A": "b"})
    assert env == {"A": "b", "CLAUDE_CODE_MAX_RETRIES": "3"}


def _record(pid: int, tmp_path: Path, **update: object) -> ProcessRecord:
    """What the supervisor records for a group it started (`update`: a field changed)."""
    fields: dict[str, object] = {
        "pid": pid,
        "pgid": pid,
        "start_ticks": process_start_ticks(pid),
        "boot_id": Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
        "started_at": time.time(),
        "argv": ("x",),
        "cwd": str(tmp_path),
        "tag": "t-1",
        "pid_ns": os.readlink("/proc/self/ns/pid"),
    }
    return ProcessRecord.model_validate({**fields, **update})


def _sleeper(tag: str | None, *, own_session: bool = True) -> subprocess.Popen[bytes]:
    env = child_environment({TREE_ENV: tag} if tag else {})
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        env=env,
        start_new_session=own_session,
    )


def test_kill_recorded_group_kills_a_leftover(tmp_path: Path) -> None:
    # An orphaned agent: started in its own group by "a previous orchestrator" (this test),
    # with the tag the supervisor gives every tree.
    proc = subprocess.Popen(
        [sys.executable, str(FAKE), "--mode", "grandchild-hang"],
        env=child_environment({"FAKE_AGENT_PIDFILE": str(tmp_path / "pids"), TREE_ENV: "t-1"}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(0.5)
    (child,) = child_pids(tmp_path)
    assert kill_recorded_group(_record(proc.pid, tmp_path), grace_s=0.5)
    proc.wait(timeout=5)
    assert wait_dead(child)


def test_kill_recorded_group_refuses_a_recycled_pid(tmp_path: Path) -> None:
    proc = _sleeper("t-1")
    try:
        ticks = process_start_ticks(proc.pid)
        assert ticks is not None
        # "the process we recorded started earlier": a recycled pid
        record = _record(proc.pid, tmp_path, start_ticks=ticks - 1)
        assert not kill_recorded_group(record, grace_s=0.1)
        assert alive(proc.pid)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    ("tag", "own_session", "update"),
    [
        (None, True, {}),  # a person's process: no tag of mergegate's in its environment
        ("other", True, {}),  # another supervised tree's process, named with this tag
        ("t-1", True, {"pid_ns": "pid:[1]"}),  # recorded in another PID namespace
        ("t-1", True, {"boot_id": "another-boot"}),  # recorded before a reboot
        ("t-1", True, {"host": "another-host"}),  # recorded on another host
        ("t-1", True, {"tag": None}),  # a record without a tag (an older mergegate's)
        ("t-1", False, {}),  # not the leader of its own group and session
    ],
)
def test_kill_recorded_group_refuses_a_process_the_supervisor_did_not_start(
    tmp_path: Path, tag: str | None, own_session: bool, update: dict[str, object]
) -> None:
    """A record that names a process by its real pid, group and start time (what a forged
    `process.json` can say of any process) kills nothing unless that process carries the
    record's tag, leads its recorded group and session, and lives in the recorder's PID
    namespace, boot and host."""
    proc = _sleeper(tag, own_session=own_session)
    try:
        time.sleep(0.2)  # started: its environment readable
        assert not kill_recorded_group(_record(proc.pid, tmp_path, **update), grace_s=0.1)
        assert alive(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_the_supervisor_records_each_process_in_the_installed_ledger(tmp_path: Path) -> None:
    events: list[tuple[str, ProcessRecord | None]] = []

    def supervisor_tag(tag: str | None) -> bool:
        return tag is not None and tag.startswith(f"{this_supervisor().token}.")

    class Ledger:
        def supervising(self, supervisor: SupervisorRecord) -> None:
            assert not events  # told before the child starts
            assert supervisor == this_supervisor()
            events.append(("supervising", None))

        def started(self, record: ProcessRecord, attempt_dir: Path | None) -> None:
            assert attempt_dir == tmp_path / "attempt"
            assert supervisor_tag(record.tag)
            assert carries(record.pid, record.tag)  # the tag is in the child's environment
            events.append(("started", record))

        def ended(self, record: ProcessRecord) -> None:
            events.append(("ended", record))

        def recorded(self, root: Path) -> list[tuple[Path, ProcessRecord]]:
            return []

    install_ledger(Ledger())
    try:
        # Long enough that the child still runs when `started` reads its environment, even
        # on a loaded machine (0.3 s was not, under CI load).
        outcome = supervise(
            ["/bin/sh", "-c", "sleep 2"], cwd=tmp_path, attempt_dir=tmp_path / "attempt"
        )
    finally:
        install_ledger(None)
    assert [kind for kind, _ in events] == ["supervising", "started", "ended"]
    record = events[1][1]
    assert record is not None
    assert record == outcome.record
    assert record.tag
    assert record.pid_ns == os.readlink("/proc/self/ns/pid")
    assert record.host == socket.gethostname()


def carries(pid: int, tag: str | None) -> bool:
    # A child's environ reads empty for a moment after Popen returns: the kernel closes the
    # exec error pipe (Popen's signal that exec succeeded) before it lays out the new
    # program's environment. Wait out that window, a few milliseconds at most when quiet.
    deadline = time.monotonic() + 5.0
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    while not raw and time.monotonic() < deadline:
        time.sleep(0.01)
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    return any(
        e == f"{TREE_ENV}={tag}".encode() or e.endswith(f":{tag}".encode())
        for e in raw.split(b"\0")
        if e.startswith(TREE_ENV.encode())
    )


def test_run_command(tmp_path: Path) -> None:
    result = run_command([sys.executable, "-c", "print('hi')"], tmp_path)
    assert result.ok
    assert result.stdout == b"hi\n"
    slow = run_command([sys.executable, "-c", "import time; time.sleep(10)"], tmp_path, timeout=0.3)
    assert slow.timed_out
    assert not slow.ok
    missing = run_command(["/nonexistent/tool"], tmp_path)
    assert missing.missing
