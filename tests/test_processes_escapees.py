"""Escaped descendants: nothing an agent starts outlives `supervise`, whatever way it escapes
its process group — and nothing that is not the run's is touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mergegate.processes import (
    TREE_ENV,
    Limits,
    StopReason,
    become_subreaper,
    is_subreaper,
    run_command,
    supervise,
    this_supervisor,
)
from mergegate.processes._reaper import _children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the subreaper and /proc are Linux features"
)

FAST = Limits(timeout_s=20.0, stall_timeout_s=None, kill_grace_s=1.0, done_grace_s=0.5)


def state(pid: int) -> str | None:
    """The process state letter, or None once the pid is gone (reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return None


def marked(mark: str) -> list[int]:
    """Pids (zombies included) whose environment or command line holds `mark`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            blob = Path(f"/proc/{name}/environ").read_bytes()
            blob += Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if mark.encode() in blob:
            found.append(int(name))
    return found


@pytest.fixture
def mark() -> Iterator[str]:
    value = f"escapee-{uuid.uuid4().hex}"
    yield value
    for pid in marked(value):  # never leave a survivor behind, even when a test fails
        os.kill(pid, signal.SIGKILL)


def run_shell(script: str, tmp_path: Path, mark: str) -> tuple[int, list[int]]:
    """Supervise `sh -c script` with MARK in its environment; the escapees' pids are written
    to `pids` by the script. Returns how many escapees the outcome says it killed, and pids."""
    pids = tmp_path / "pids"
    env = {**os.environ, "MARK": mark, "PIDS": str(pids)}
    outcome = supervise(["/bin/sh", "-c", script], cwd=tmp_path, env=env, limits=FAST)
    assert outcome.reason is StopReason.EXITED
    assert outcome.returncode == 0
    written = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    return outcome.escapees_killed, written


def assert_gone(pids: list[int], mark: str) -> None:
    """Not running, and not left as our zombie either (reaped by pid)."""
    assert pids, "the script started no escapee"
    for pid in pids:
        assert state(pid) in (None, "X"), f"{pid} is {state(pid)}"
    assert marked(mark) == []


@pytest.mark.parametrize("linger", ["", "; sleep 0.3"])
def test_a_setsid_escapee_is_killed(tmp_path: Path, mark: str, linger: str) -> None:
    # Lingering, the leader exits after `setsid` took effect: the escape is certain. Without,
    # the group sweep may still catch it in the group; either way it must be gone.
    script = f'setsid sleep 778 & echo $! >> "$PIDS"{linger}'
    killed, pids = run_shell(script, tmp_path, mark)
    assert killed >= (1 if linger else 0)
    assert_gone(pids, mark)


ESCAPE = 'setsid sleep 778 & echo $! >> "$PIDS"; sleep 0.2'

DAEMONIZE = textwrap.dedent(
    """
    import os, sys, time
    if os.fork():
        sys.exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
    with open(os.environ["PIDS"], "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    time.sleep(600)
    """
)


def test_a_double_fork_daemon_is_killed(tmp_path: Path, mark: str) -> None:
    script = f"{sys.executable} -c '{DAEMONIZE}' \"{mark}\"; sleep 0.3"
    killed, pids = run_shell(script, tmp_path, mark)
    assert killed >= 1
    assert_gone(pids, mark)


@pytest.mark.parametrize("setsid", ["", "setsid "])
def test_a_nohup_process_is_killed(tmp_path: Path, mark: str, setsid: str) -> None:
    script = f'nohup {setsid}sleep 778 >/dev/null 2>&1 & echo $! >> "$PIDS"'
    _, pids = run_shell(script, tmp_path, mark)
    assert_gone(pids, mark)


def test_an_escapee_that_clears_its_environment_is_killed_if_seen_attached(
    tmp_path: Path, mark: str
) -> None:
    # `env -i` drops the tag; the process is still known because the run's tree was
    # observed while it was attached (the leader lives on for a while).
    script = 'setsid env -i MARK="$MARK" sleep 778 & echo $! >> "$PIDS"; sleep 1.5'
    killed, pids = run_shell(script, tmp_path, mark)
    assert killed >= 1
    assert_gone(pids, mark)


def test_a_job_control_group_without_the_tag_is_killed_by_its_session(
    tmp_path: Path, mark: str
) -> None:
    # A group of its own (as a shell with job control makes one; the group sweep misses it)
    # and `env -i` drops the tag; it is still in the run's session.
    code = (
        "import os; os.setpgid(0, 0); "
        "os.execvp('env', ['env', '-i', 'MARK=' + os.environ['MARK'], 'sleep', '778'])"
    )
    # Started after the first observation of the tree and gone before the next one.
    script = f'sleep 0.1; {sys.executable} -c "{code}" & echo $! >> "$PIDS"; sleep 0.2'
    killed, pids = run_shell(script, tmp_path, mark)
    assert killed >= 1
    assert_gone(pids, mark)


def test_the_subreaper_flag_is_set_once_and_idempotently() -> None:
    assert become_subreaper()
    assert become_subreaper()
    assert is_subreaper()


def test_a_tag_is_added_to_the_inherited_chain(tmp_path: Path) -> None:
    env = {**os.environ, TREE_ENV: "outer.tag"}
    code = f"import os; print(os.environ['{TREE_ENV}'])"
    outcome = supervise([sys.executable, "-c", code], cwd=tmp_path, env=env, limits=FAST)
    outer, _, inner = outcome.stdout_tail.decode().strip().partition(":")
    assert outer == "outer.tag"
    assert inner.startswith(f"{this_supervisor().token}.")  # found by it once it is gone


def test_another_runs_escapee_is_left_to_that_run(tmp_path: Path, mark: str) -> None:
    """Two agents in parallel: the end of one never kills the other's processes."""
    long_pids = tmp_path / "long-pids"
    long_env = {**os.environ, "MARK": mark, "PIDS": str(long_pids)}
    long_script = 'setsid sleep 779 & echo $! >> "$PIDS"; sleep 3'
    result: list[int] = []

    def long_run() -> None:
        outcome = supervise(["/bin/sh", "-c", long_script], cwd=tmp_path, env=long_env, limits=FAST)
        result.append(outcome.escapees_killed)

    worker = threading.Thread(target=long_run)
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while not long_pids.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        other = long_pids.read_text().split()
        short_mark = f"escapee-{uuid.uuid4().hex}"
        script = 'setsid sleep 778 & echo $! >> "$PIDS"; sleep 0.3'
        killed, pids = run_shell(script, tmp_path, short_mark)
        assert killed == 1
        assert_gone(pids, short_mark)
        assert state(int(other[0])) not in (None, "Z", "X")  # the long run's escapee lives on
    finally:
        worker.join(30)
    assert result == [1]
    assert_gone([int(other[0])], mark)


def test_a_child_the_library_user_started_is_never_touched(tmp_path: Path, mark: str) -> None:
    """A plain `subprocess.Popen` child of the importing program, exiting while mergegate
    sweeps: not killed, and its exit status is not stolen by a reap."""
    mine = subprocess.Popen([sys.executable, "-c", "import time, sys; time.sleep(1); sys.exit(7)"])
    _, pids = run_shell(ESCAPE, tmp_path, mark)
    assert_gone(pids, mark)
    assert mine.wait(timeout=10) == 7


def test_a_command_in_another_thread_keeps_its_exit_status(tmp_path: Path, mark: str) -> None:
    codes: list[int | None] = []

    def commands() -> None:
        for _ in range(20):
            codes.append(run_command(["/bin/sh", "-c", "exit 3"], tmp_path).returncode)

    worker = threading.Thread(target=commands)
    worker.start()
    for _ in range(3):
        _, pids = run_shell(ESCAPE, tmp_path, mark)
        (tmp_path / "pids").unlink()
        assert_gone(pids, mark)
    worker.join(60)
    assert codes == [3] * 20


def test_no_child_stays_registered(tmp_path: Path, mark: str) -> None:
    run_shell(ESCAPE, tmp_path, mark)
    run_command(["true"], tmp_path)
    assert _children == set()


def test_a_process_mid_exec_is_undecided_not_acquitted(tmp_path: Path) -> None:
    """An empty environment (as a process has for a moment while it execs) is neither the
    run's nor not the run's: the sweep scans again instead of letting it go."""
    from mergegate.processes._reaper import _carries

    bare = subprocess.Popen(["env", "-i", "sleep", "30"])
    try:
        deadline = time.monotonic() + 10
        while Path(f"/proc/{bare.pid}/cmdline").read_bytes()[:5] != b"sleep":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert _carries(bare.pid, b"any") is None
        assert _carries(os.getpid(), b"no-such-tag") is False
    finally:
        bare.kill()
        bare.wait()
    assert _carries(bare.pid, b"any") is False  # gone


def test_the_sweep_rescans_a_bounded_number_of_times(
    tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stranger started during the run whose environment stays empty keeps the sweep
    undecided: it scans again, at most SWEEP_PASSES times in all, kills the run's escapee and
    leaves the stranger (not the run's) alone."""
    from mergegate.processes._reaper import SWEEP_PASSES, RunTree

    scans: list[int] = []
    real = RunTree._targets

    def counted(
        self: RunTree, table: Any, pgid: int, registered: frozenset[int]
    ) -> tuple[dict[int, int], int]:
        found = real(self, table, pgid, registered)
        scans.append(found[1])
        return found

    monkeypatch.setattr(RunTree, "_targets", counted)
    strangers: list[subprocess.Popen[bytes]] = []
    # started after the run's leader, so as new as the run's own processes
    timer = threading.Timer(
        0.05, lambda: strangers.append(subprocess.Popen(["env", "-i", "sleep", "32"]))
    )
    timer.start()
    try:
        _, pids = run_shell(ESCAPE, tmp_path, mark)
        assert_gone(pids, mark)
        assert strangers
        assert state(strangers[0].pid) not in (None, "Z", "X")
        assert len(scans) == SWEEP_PASSES  # undecided every time: every pass, and no more
        assert all(undecided >= 1 for undecided in scans)
    finally:
        timer.join()
        for stranger in strangers:
            stranger.kill()
            stranger.wait()
