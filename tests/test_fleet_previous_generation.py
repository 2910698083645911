"""A worker's previous generation (issue 28, item 5): what a worker does at its start
(`Worker.run` calls `kill_orphans_of` with its own id before it launches) kills the agent
groups its earlier process recorded on this host and forgets them, never another worker's,
and leaves the ones recorded on another host (or boot) for that host; a janitor (or `workers
recover`) records those as `orphaned`, which `status` shows. On SQLite and PostgreSQL; and
end to end, a `mergegate worker` process started again under its id (PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from _cards import card
from mergegate.cli import cli
from mergegate.config import load_config
from mergegate.engine._context.orphans import (
    kill_orphans_of,
    note_unreachable_orphans,
    orphaned_agents,
    previous_generation,
)
from mergegate.engine._fleet.admin import fleet_status
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import TREE_ENV, ProcessRecord, child_environment, process_start_ticks
from mergegate.processes._groups import boot_id, host_name, pid_namespace
from mergegate.store import RunStore

RUN = "20261101-120000-eeee"


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=5)


def _agent(started: list[subprocess.Popen[bytes]], tag: str) -> ProcessRecord:
    """An agent group left running by an earlier process, as the supervisor records it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env=child_environment({TREE_ENV: tag}),
        start_new_session=True,
    )
    started.append(proc)
    return ProcessRecord(
        pid=proc.pid,
        pgid=proc.pid,
        start_ticks=process_start_ticks(proc.pid),
        boot_id=boot_id(),
        started_at=time.time(),
        argv=("/usr/bin/claude", "-p"),
        cwd="/",
        tag=tag,
        pid_ns=pid_namespace(),
        host=host_name(),
    )


def test_a_starting_worker_kills_its_previous_generations_agents_here_only(
    database_url: str, tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    store = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url)
    store.create(card(RUN, fleet=True), Plan(format=PlanFormat.NATIVE, title="p"))
    rows = store.rows(RUN)
    mine = _agent(sleepers, "w1-tree")
    peers = _agent(sleepers, "w2-tree")
    elsewhere = ProcessRecord(  # w1's earlier process on another host: not signalled here
        pid=sleepers[1].pid,  # a pid that means another process here
        pgid=sleepers[1].pid,
        start_ticks=1,
        boot_id="another-host-boot",
        started_at=time.time(),
        argv=("/usr/bin/codex",),
        cwd="/",
        tag="w1-old-tree",
        pid_ns=pid_namespace(),
    )
    rows.record_process(mine, tmp_path / "a1", executor_id="w1")
    rows.record_process(elsewhere, tmp_path / "a2", executor_id="w1")
    rows.record_process(peers, tmp_path / "a3", executor_id="w2")

    # what `Worker.run` does before it launches, under its own id
    assert kill_orphans_of(database_url, "w1") == 1
    sleepers[0].wait(timeout=10)  # w1's previous generation's agent: killed
    assert sleepers[1].poll() is None  # w2's lives, and so does the pid `elsewhere` names
    assert [r for _, r in rows.processes()] in ([elsewhere, peers], [peers, elsewhere])
    assert orphaned_agents(rows) == []  # nothing said yet: only its own host can check it
    assert kill_orphans_of(database_url, "w1") == 0  # again: nothing left to kill here

    # a janitor on this host that finds w1 silent records what it cannot reach
    assert note_unreachable_orphans(database_url, "w1", "w3") == 1
    [orphan] = orphaned_agents(rows)
    assert (orphan.executor_id, orphan.noted_by, orphan.record) == ("w1", "w3", elsewhere)
    assert note_unreachable_orphans(database_url, "w2", "w3") == 0  # w2's is this host's


def test_a_worker_restarted_on_another_host_leaves_its_old_agents_there(
    database_url: str,
    tmp_path: Path,
    sleepers: list[subprocess.Popen[bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """w1 ran on host `old-host` and starts again here under the same id: a pid its records
    name means another process here, so nothing is signalled (even one that passes every
    other check: same boot, namespace, start time and tag, as a host in a container of this
    machine would record); its old agents are recorded as `orphaned` with their host, and
    `status` names it."""
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", database_url)
    store = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url)
    store.create(card(RUN, fleet=True), Plan(format=PlanFormat.NATIVE, title="p"))
    rows = store.rows(RUN)
    here = _agent(sleepers, "w1-new-tree")
    there = _agent(sleepers, "w1-old-tree").model_copy(update={"host": "old-host"})
    rows.record_process(here, tmp_path / "a1", executor_id="w1")
    rows.record_process(there, tmp_path / "a2", executor_id="w1")

    # what `Worker.serve` does before it launches, under its own id
    found = previous_generation(database_url, "w1")
    assert (found.killed, found.orphaned) == (1, 1)
    sleepers[0].wait(timeout=10)  # its earlier process's agent on this host: killed
    assert sleepers[1].poll() is None  # the one recorded on old-host: never signalled
    assert [r for _, r in rows.processes()] == [there]  # kept for old-host's worker
    [orphan] = orphaned_agents(rows)
    assert (orphan.executor_id, orphan.noted_by, orphan.record.host) == ("w1", "w1", "old-host")
    assert orphan.noted_on == host_name()
    assert previous_generation(database_url, "w1") == (0, 1)  # recorded once, not twice
    assert len(orphaned_agents(rows)) == 1

    report = fleet_status(Path(os.environ["MERGEGATE_STATE_DIR"]), RUN, load_config(tmp_path))
    [entry] = report.orphaned or []
    assert (entry.worker, entry.host, entry.pid) == ("w1", "old-host", there.pid)
    shown = CliRunner().invoke(cli, ["status", RUN, "--repo", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert (
        f"orphaned: claude (pid {there.pid}) of an earlier process of worker w1 on host "
        f"old-host (found by w1 on {host_name()}): start w1 again there, or kill its process "
        "group there"
    ) in shown.stdout


def test_a_record_without_a_host_keeps_its_json() -> None:
    """Records written before hosts were recorded are found again by their exact JSON (how
    `forget_processes` deletes them): a record without a host dumps without the field."""
    old = (
        '{"pid":7,"pgid":7,"start_ticks":1,"boot_id":"b","started_at":1.0,'
        '"argv":["x"],"cwd":"/","tag":"t","pid_ns":"pid:[1]"}'
    )
    record = ProcessRecord.model_validate_json(old)
    assert record.host is None
    assert record.model_dump_json() == old


@pytest.mark.fleet
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_mergegate_worker_kills_its_earlier_processs_agents_before_it_is_ready(
    postgres_url: str, tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    """The wiring, end to end: `mergegate worker --id w1` started again kills the agent groups
    its earlier process left on this host before it says ready (they outlive the scripted
    agents of the fleet tests only because these sleep a minute), records those it left on
    another host as orphaned and says so, and leaves another worker's alone."""
    from test_fleet_run import Workers, _env

    state = tmp_path / "state"
    store = RunStore(state, postgres_url)
    store.create(card(RUN, fleet=True), Plan(format=PlanFormat.NATIVE, title="p"))
    rows = store.rows(RUN)
    mine = _agent(sleepers, "w1-old-tree")
    peers = _agent(sleepers, "w2-tree")
    there = _agent(sleepers, "w1-far-tree").model_copy(update={"host": "old-host"})
    rows.record_process(mine, tmp_path / "a1", executor_id="w1")
    rows.record_process(peers, tmp_path / "a2", executor_id="w2")
    rows.record_process(there, tmp_path / "a3", executor_id="w1")
    (tmp_path / "fleet").mkdir()
    workers = Workers(tmp_path / "fleet", _env(state, postgres_url), tmp_path)
    try:
        workers.start("w1")  # returns once the worker said "ready"
        assert sleepers[0].poll() is not None, "its earlier process's agent still runs"
        assert sleepers[1].poll() is None  # w2's
        assert sleepers[2].poll() is None  # the pid recorded on old-host means another here
        log = workers.log("w1").read_text()
        assert "1 agent group(s) of this worker's earlier process run on another host" in log
        assert sorted(r.tag for _, r in rows.processes()) == ["w1-far-tree", "w2-tree"]
        [orphan] = orphaned_agents(rows)
        assert (orphan.executor_id, orphan.record.host) == ("w1", "old-host")
    finally:
        workers.close()
