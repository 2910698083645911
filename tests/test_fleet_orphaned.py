"""A dead worker's agents on a host the recovery cannot reach: `workers recover` (or a
janitor) kills the ones this host can act on and records the others as `orphaned` in the run's
rows; `status` shows them until the worker restarted on their own host kills and forgets
them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from _cards import card
from mergegate.cli import cli
from mergegate.config import load_config
from mergegate.engine._context.orphans import kill_orphans_of
from mergegate.engine._fleet.admin import fleet_status, recover_executor
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import ProcessRecord
from mergegate.processes._groups import boot_id, host_name, pid_namespace
from mergegate.store import RunStore, tables

pytestmark = pytest.mark.fleet

RUN = "20261101-120000-dddd"


def _record(boot: str | None, pid: int) -> ProcessRecord:
    return ProcessRecord(
        pid=pid,
        pgid=pid,
        start_ticks=1,  # no live process started at tick 1: never signalled
        boot_id=boot,
        started_at=time.time(),
        argv=("/usr/bin/claude", "-p"),
        cwd="/",
        tag="t",
        pid_ns=pid_namespace(),
    )


def test_agents_on_another_host_are_recorded_as_orphaned_and_shown(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", postgres_url)
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    store = RunStore(state, postgres_url)
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    store.create(card(RUN, fleet=True), plan)
    rows = store.rows(RUN)
    elsewhere = _record("another-host-boot", 4242)
    here = _record(boot_id(), 4243)  # this host's: checked here, and gone
    for record in (elsewhere, here):
        rows.record_process(record, tmp_path / "attempt", executor_id="w-dead")

    done = recover_executor(postgres_url, "w-dead", kill=True, noted_by="w2")
    assert done.orphaned == 1
    assert [r for _, r in rows.processes()] == [elsewhere]  # this host's forgotten
    report = fleet_status(state, RUN, load_config(tmp_path)).dump()
    # a record without a host (written before hosts were recorded): "another host"; where
    # it was found from is known
    assert report["orphaned"] == [
        {
            "worker": "w-dead",
            "noted_by": "w2",
            "pid": 4242,
            "pgid": 4242,
            "program": "claude",
            "noted_on": host_name(),
        }
    ]
    shown = CliRunner().invoke(cli, ["status", RUN, "--repo", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert (
        "orphaned: claude (pid 4242) of dead worker w-dead on another host "
        f"(found by w2 on {host_name()}): start w-dead again there"
    ) in shown.stdout
    # recovering again records it once
    assert recover_executor(postgres_url, "w-dead", kill=False).orphaned == 1
    assert len(fleet_status(state, RUN, load_config(tmp_path)).orphaned or []) == 1

    # the worker restarted on that host kills and forgets it: no longer orphaned
    tables(postgres_url).forget_processes(RUN, [elsewhere])
    assert fleet_status(state, RUN, load_config(tmp_path)).orphaned == []
    assert kill_orphans_of(postgres_url, "w-dead") == 0
