"""The fleet's roll call: workers beat in the database, `mergegate workers list` shows them,
and a worker started with `--recover-silent-after` recovers a silent worker's units by itself
(no `workers recover` by hand)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from _fleet import wait_for
from _plan_runs import agent, make_plan, repo_with, trailers
from mergegate.store import Roll
from test_fleet_run import Workers, _agents_alive, _agents_in, _env, _mergegate, _record, _run_args

pytestmark = pytest.mark.fleet


def test_the_roll_call_tells_the_silent_from_the_living(postgres_url: str) -> None:
    roll = Roll(postgres_url)
    try:
        roll.beat("alive", "host-a", 11)
        roll.beat("gone", "host-b", 22)
        roll.beat("stopped", "host-c", 33, state="stopped")
        first = {w.executor_id: w for w in roll.workers()}
        assert sorted(first) == ["alive", "gone", "stopped"]
        assert first["stopped"].state == "stopped"
        assert first["gone"].host == "host-b"
        time.sleep(1.5)
        roll.beat("alive", "host-a", 11)
        silent = roll.silent_workers(1.0, but="alive")
        assert sorted(w.executor_id for w in silent) == ["gone", "stopped"]
        assert all(w.silent_s > 1.0 for w in silent)
        assert [w.executor_id for w in roll.silent_workers(1.0, but="gone")] == ["stopped"]
        # the same id under a new pid (a restart) starts again; the same pid keeps its start
        again = {w.executor_id: w for w in roll.workers()}
        assert again["alive"].started_at == first["alive"].started_at
        roll.beat("alive", "host-a", 12)
        restarted = {w.executor_id: w for w in roll.workers()}["alive"]
        assert restarted.started_at > first["alive"].started_at
        assert restarted.pid == 12
    finally:
        roll.close()


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_silent_workers_units_are_recovered_without_a_person(
    tmp_path: Path, postgres_url: str
) -> None:
    units = [f"U{i}" for i in range(1, 7)]
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {u: {} for u in units}}).model_dump_json(by_alias=True))
    repo = repo_with(tmp_path / "repo")
    state = tmp_path / "state"
    env = _env(state, postgres_url)
    # Long enough that the agent `doomed` is running still runs when it is killed: the
    # `workers list` below takes seconds on a loaded machine, and an agent that finished in
    # that time let `doomed` finish its unit, so the run completed with nothing to recover.
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 6}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    workers = Workers(tmp_path, env, repo)
    try:
        workers.start("keeper", "--recover-silent-after", "10")
        workers.start("doomed")
        queued = _mergegate([*_run_args(plan, repo, impl, rev), "--queue"], env, repo)
        assert queued.returncode == 0, queued.stderr[-3000:]
        run_id = queued.stdout.strip()
        wait_for(lambda: _agents_in(workers.workdir("doomed")), 90, "doomed to run an agent")
        listed = _mergegate(["workers", "list", "--format", "json"], env, repo)
        assert listed.returncode == 0, listed.stderr[-3000:]
        before = {w["executor_id"]: w for w in json.loads(listed.stdout)}
        assert before["doomed"]["state"] == "running"
        assert before["doomed"]["holds"] >= 1
        assert before["doomed"]["pid"] == workers.procs["doomed"].pid
        workers.kill("doomed")
        killed_at = time.monotonic()

        def finished() -> dict[str, Any] | None:
            record = _record(state, run_id)
            return record if record["status"] != "running" else None

        record = wait_for(finished, 150, "the run to finish without a person")
        log = workers.log("keeper").read_text()
        assert record["status"] == "completed", (record, log[-3000:])
        # not before the silence was long enough: 10 s after the last beat
        assert time.monotonic() - killed_at > 8.0
        assert "worker doomed silent for" in log
        after = {
            w["executor_id"]: w
            for w in json.loads(
                _mergegate(["workers", "list", "--format", "json"], env, repo).stdout
            )
        }
        assert after["doomed"]["holds"] == 0
        assert after["doomed"]["silent_s"] > 10
        assert after["keeper"]["silent_s"] < 5
        text = _mergegate(["workers", "list"], env, repo).stdout
        assert "doomed" in text
        assert "keeper" in text
    finally:
        workers.close()
    stopped = {
        w["executor_id"]: w
        for w in json.loads(_mergegate(["workers", "list", "--format", "json"], env, repo).stdout)
    }
    assert stopped["keeper"]["state"] == "stopped"  # a clean stop says so
    assert sorted(trailers(repo, record["into"])) == sorted(
        f"Mergegate-Unit: {run_id}/{u}" for u in units
    )
    assert _agents_alive(str(tmp_path)) == []
