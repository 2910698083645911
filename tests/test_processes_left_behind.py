"""A supervisor SIGKILLed between a child's start and the write of its record: the child is
found by the token its tag begins with (`SupervisorRecord`, recorded before any child), never
a process without that token, never the sweeping process or its ancestors."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from _cards import card
from mergegate.engine import kill_orphans
from mergegate.engine._context.orphans import previous_generation
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import (
    TREE_ENV,
    ProcessIdentity,
    SupervisorRecord,
    this_supervisor,
)
from mergegate.processes._reaper import new_tag, supervisor_token
from mergegate.store import RunStore, tables

RUN = "r-left-behind"

# A supervisor whose ledger records itself (to a file, or to the run's rows) and then takes
# forever to record its child: the window a SIGKILL once hit on PostgreSQL.
_SUPERVISOR = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from mergegate.processes import install_ledger, supervise

    marker, out, state = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    database_url, executor = (sys.argv[4] or None), sys.argv[5]

    class SlowLedger:
        def __init__(self, inner):
            self.inner = inner
        def supervising(self, supervisor):
            if self.inner is not None:
                self.inner.supervising(supervisor)
            out.write_text(supervisor.model_dump_json())
        def started(self, record, attempt_dir):
            time.sleep(600)  # the record's write, never done before the kill
        def ended(self, record):
            pass
        def recorded(self, root):
            return []

    inner = None
    if state:
        from mergegate.engine._context.orphans import RunProcesses
        from mergegate.store import RunStore
        rows = RunStore(Path(state), database_url).rows("RUN")
        inner = RunProcesses(rows, executor)
    install_ledger(SlowLedger(inner))
    supervise(["sh", "-c", f"sleep 300; : {marker}"], cwd=Path("."))
    """
).replace("RUN", RUN)


def _sleepers(marker: str) -> list[int]:
    """The live `sh -c "sleep 300; : <marker>"` of a test."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cmdline[:2] == [b"sh", b"-c"] and marker.encode() in cmdline[2] and state != "Z":
            found.append(int(entry.name))
    return found


def _wait_for(condition: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[str]:
    name = f"left-behind-{tmp_path.name}"
    yield name
    for pid in _sleepers(name):  # never leave one behind, whatever the test found
        os.killpg(pid, signal.SIGKILL)  # each leads its own group: the sleep goes with it


def _killed_mid_start(
    tmp_path: Path, marker: str, state: str = "", database_url: str = "", executor: str = "local"
) -> SupervisorRecord:
    """Start the slow-ledger supervisor, wait for its child, SIGKILL it; its record."""
    out = tmp_path / "supervisor.json"
    argv = [sys.executable, "-c", _SUPERVISOR, marker, str(out), state, database_url, executor]
    proc = subprocess.Popen(argv, cwd=tmp_path)
    try:
        _wait_for(lambda: out.exists() and _sleepers(marker))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return SupervisorRecord.model_validate_json(out.read_text())


def test_a_child_whose_record_a_sigkill_preceded_is_swept_by_its_supervisors_token(
    tmp_path: Path, marker: str
) -> None:
    supervisor = _killed_mid_start(tmp_path, marker)
    assert _sleepers(marker), "the child outlives its SIGKILLed supervisor"
    assert supervisor.sweep_left(grace_s=0.5) == 2  # the shell and its sleep
    assert _sleepers(marker) == []


def test_kill_orphans_sweeps_a_child_the_run_never_recorded(tmp_path: Path, marker: str) -> None:
    """The engine's path: the supervisor recorded in the run's rows before its child, the
    child's own record never written; `kill_orphans` (what `resume` runs first) kills it and
    forgets the supervisor."""
    state = tmp_path / "state"
    store = RunStore(state, None)
    store.create(card(RUN), Plan(format=PlanFormat.NATIVE, phases=()))
    _killed_mid_start(tmp_path, marker, str(state))
    rows = RunStore(state, None).rows(RUN)
    assert rows.processes() == []  # the child's record was never written
    assert len(rows.supervisors()) == 1
    assert _sleepers(marker)
    assert kill_orphans(rows) == 2
    assert _sleepers(marker) == []
    assert rows.supervisors() == []


@pytest.mark.fleet
def test_a_restarted_worker_sweeps_what_its_killed_process_never_recorded(
    tmp_path: Path, marker: str, postgres_url: str
) -> None:
    """The fleet's path on PostgreSQL: a worker SIGKILLed while its child's record was on
    its way; the worker started again under the same id kills the child at its start."""
    state = tmp_path / "state"
    RunStore(state, postgres_url).create(card(RUN), Plan(format=PlanFormat.NATIVE, phases=()))
    _killed_mid_start(tmp_path, marker, str(state), postgres_url, "w1")
    db = tables(postgres_url)
    assert db.processes(executor_id="w1") == []
    assert len(db.supervisors(executor_id="w1")) == 1
    assert previous_generation(postgres_url, "w2") == (0, 0)  # another worker's: not its own
    assert _sleepers(marker)
    assert previous_generation(postgres_url, "w1") == (2, 0)
    assert _sleepers(marker) == []
    assert db.supervisors(executor_id="w1") == []


def test_a_running_supervisor_or_one_of_another_host_is_never_swept() -> None:
    here = this_supervisor()
    assert here.token == supervisor_token()
    assert here.sweep_left() is None  # this process: it runs
    elsewhere = SupervisorRecord(
        token="0" * 16,
        process=here.process.model_copy(update={"host": "another-host", "pid": 1}),
    )
    assert elsewhere.sweep_left() is None


def _gone_supervisor(token: str) -> SupervisorRecord:
    """A record of a process of this host that is gone (an exited child's pid and ticks)."""
    proc = subprocess.Popen(["sleep", "0.2"])
    identity = ProcessIdentity.here().model_copy(update={"pid": proc.pid})
    identity = identity.model_copy(update={"start_ticks": _ticks(proc.pid)})
    proc.wait()
    return SupervisorRecord(token=token, process=identity)


def _ticks(pid: int) -> int:
    return int((Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split())[19])


def _tagged_sleep(marker: str, tags: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, TREE_ENV: tags}
    return subprocess.Popen(["sh", "-c", f"sleep 300; : {marker}"], env=env, start_new_session=True)


def test_only_the_gone_supervisors_tags_are_swept_and_the_sweeper_is_spared(
    tmp_path: Path, marker: str
) -> None:
    token = "feedfacecafe0001"
    supervisor = _gone_supervisor(token)
    ours = _tagged_sleep(marker, f"outer.tag:{token}.{'a' * 16}")
    prefix_only = _tagged_sleep(marker, f"{token}ff.{'b' * 16}")  # another token's prefix
    untagged = _tagged_sleep(marker, f"{'c' * 16}.{'d' * 16}")
    # the sweep runs in a process that itself carries the token (a supervisor nested in
    # one of the gone one's agents): it must spare itself and its ancestors
    sweeper = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from mergegate.processes import SupervisorRecord as S; "
            "print(S.model_validate_json(sys.argv[1]).sweep_left(grace_s=0.5))",
            supervisor.model_dump_json(),
        ],
        env={**os.environ, TREE_ENV: f"{token}.{'e' * 16}"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    try:
        assert sweeper.stdout.strip() == "2"  # the shell and its sleep
        assert ours.wait(timeout=10) == -signal.SIGTERM
        assert prefix_only.poll() is None
        assert untagged.poll() is None
    finally:
        for proc in (ours, prefix_only, untagged):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_tag_begins_with_this_processes_token() -> None:
    tag = new_tag()
    assert tag.startswith(f"{supervisor_token()}.")
    assert new_tag() != tag
