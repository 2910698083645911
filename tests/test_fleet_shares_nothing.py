"""A fleet that shares nothing but the database and the git remote (issue 28).

Three workers, each a "host" of its own: its own HOME, state directory, working directory and
work directory, no path in common with another worker or with the process that queued the
run. The queueing process's state directory is deleted right after `run --queue` and the
user's repository moved away; the worker holding the run is SIGKILLed while an agent of its
units runs and `workers recover` (a process of its own, another host again) hands its work to
the survivors. The run completes with every unit merged exactly once on the remote, and a
fourth process with only the database URL (an empty HOME, state directory and working
directory) shows the whole run through `status` and `report`.

Every read of the run's status here is from the database with only its URL: polled from the
run's card in the test's process (an empty state directory), and the verdict from `mergegate
status --format json` run on a fresh host. Nothing reads a run folder another process wrote.

(The scripted agents record what they saw into the test's folder: that is the test double's
own bookkeeping, not a path mergegate reads.)
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from _fleet import wait_for
from _gitrepo import git
from _plan_runs import agent, make_plan, trailers
from mergegate.engine import EngineRunRecord
from mergegate.store import RunStore
from test_fleet_remote import RemoteFleet
from test_fleet_run import (
    UNITS,
    WORKERS,
    Workers,
    _agents,
    _agents_alive,
    _agents_in,
    _env,
    _mergegate,
    _plan_file,
    _run_holder,
    reference_tree,  # noqa: F401 - a fixture, used by name
)

pytestmark = pytest.mark.fleet

SEED = 20261127


class Host:
    """A machine of its own: HOME, state directory, working directory and work directory
    under `root`, and the environment a mergegate process there starts with (the database URL
    and nothing else of the fleet's)."""

    def __init__(self, root: Path, database_url: str) -> None:
        self.root = root
        self.home, self.state, self.cwd, self.work = (
            root / "home",
            root / "state",
            root / "cwd",
            root / "work",
        )
        for folder in (self.home, self.cwd):
            folder.mkdir(parents=True, exist_ok=True)
        self.env = {
            **_env(self.state, database_url),
            "HOME": str(self.home),
            "XDG_STATE_HOME": str(root / "xdg-state"),
            "XDG_CONFIG_HOME": str(root / "xdg-config"),
        }

    def mergegate(self, *args: str) -> Any:
        return _mergegate(list(args), self.env, self.cwd)


class HostWorkers(Workers):
    """`mergegate worker` processes, each on a `Host` of its own."""

    def __init__(self, root: Path, database_url: str) -> None:
        super().__init__(root, {}, root)
        self.hosts = {name: Host(root / f"host-{name}", database_url) for name in WORKERS}

    def workdir(self, name: str) -> Path:
        return self.hosts[name].work

    def env_of(self, name: str) -> dict[str, str]:
        return self.hosts[name].env

    def cwd_of(self, name: str) -> Path:
        return self.hosts[name].cwd


def observed(root: Path, database_url: str, run_id: str) -> dict[str, Any]:
    """`status RUN --format json` from a fresh host that has only the database URL."""
    host = Host(root / f"observer-{time.monotonic_ns()}", database_url)
    shown = host.mergegate("status", run_id, "--format", "json")
    assert shown.returncode == 0, shown.stderr[-3000:]
    found: dict[str, Any] = json.loads(shown.stdout)
    shutil.rmtree(host.root)
    return found


def card_status(root: Path, database_url: str, run_id: str) -> str:
    """The status on the run's card in the database, read in this process with only the URL
    (an empty state directory): cheap enough to poll."""
    return str(RunStore(root / "nowhere", database_url).load(run_id, EngineRunRecord).status)


def settled(root: Path, database_url: str, run_id: str, timeout_s: float) -> dict[str, Any]:
    """The run's status once its card is no longer `running`, as `status` shows it from a
    fresh host with only the database URL."""

    def found() -> bool | None:
        return card_status(root, database_url, run_id) != "running" or None

    wait_for(found, timeout_s, f"run {run_id} to settle")
    return observed(root, database_url, run_id)


def _why(shown: dict[str, Any], logs: dict[str, str]) -> str:
    """Why the run did not complete, whole: its message and the end of each worker's log."""
    return "\n".join([str(shown["message"]), *(f"--- {n}\n{log}" for n, log in logs.items())])


def queue_and_forget(fleet: RemoteFleet, plan: Path, impl: str, rev: str) -> tuple[str, str]:
    """Queue the run, then delete the queueing process's state directory and move the user's
    repository away: the run's id and its integration branch."""
    run_id = fleet.queue(plan, impl, rev)
    shutil.rmtree(fleet.state)
    fleet.repo.rename(fleet.repo.with_name("repo-away"))
    return run_id, f"mergegate/{run_id}"


@pytest.mark.slow
@pytest.mark.timeout(360)
def test_fleet_shares_nothing(
    tmp_path: Path,
    postgres_url: str,
    reference_tree: str,  # noqa: F811 - the fixture imported above
) -> None:
    plan = _plan_file(tmp_path)
    fleet = RemoteFleet(tmp_path / "user", postgres_url)
    run_id, into = queue_and_forget(fleet, plan, *_agents(tmp_path))
    assert not fleet.state.exists()
    origin = fleet.origin
    rng = random.Random(SEED)
    workers = HostWorkers(tmp_path / "fleet", postgres_url)
    admin = Host(tmp_path / "admin", postgres_url)
    try:
        for name in WORKERS:
            workers.start(name)
        victim = _run_holder(postgres_url, run_id)
        wait_for(lambda: _agents_in(workers.workdir(victim)), 90, f"{victim} to run an agent")
        time.sleep(rng.uniform(0.0, 0.4))
        workers.kill(victim)
        recovered = admin.mergegate("workers", "recover", victim, "--format", "json")
        assert recovered.returncode == 0, recovered.stderr[-3000:]
        assert f"{run_id}/fleet/g1" in json.loads(recovered.stdout)["recovered"]
        shown = settled(tmp_path, postgres_url, run_id, 240)
        logs = {name: workers.log(name).read_text()[-3000:] for name in WORKERS}
        # the message as a string: pytest cuts a tuple's repr to 240 characters, and the end
        # of the message is git's own line (a failure seen once in a loop of 8 lost it)
        assert shown["status"] == "completed", _why(shown, logs)
    finally:
        workers.close()
    # every unit merged exactly once, on the remote, and the same tree as one machine
    assert shown["into"] == into
    assert sorted(trailers(origin, into)) == sorted(f"Mergegate-Unit: {run_id}/{u}" for u in UNITS)
    assert git(origin, "rev-parse", f"{into}^{{tree}}") == reference_tree
    # no worker wrote into another's folders, nor into the queueing host's
    assert not fleet.state.exists()
    for name in WORKERS:
        others = [workers.hosts[n].root for n in WORKERS if n != name]
        assert all(str(o) not in workers.log(name).read_text() for o in others), name
    # a fourth host with only the database URL sees the whole run
    observer = Host(tmp_path / "observer", postgres_url)
    shown = json.loads(observer.mergegate("status", run_id, "--format", "json").stdout)
    assert shown["status"] == "completed", shown
    assert sorted(u["id"] for u in shown["units"]) == UNITS
    assert {u["status"] for u in shown["units"]} == {"merged"}, shown["units"]
    assert {p["status"] for p in shown["phases"]} == {"completed"}, shown["phases"]
    report = observer.mergegate("report", run_id)
    assert report.returncode == 0, report.stderr[-3000:]
    page = Path(report.stdout.strip())  # written on the observer's own disk
    assert page.is_relative_to(observer.state), page
    html = page.read_text()
    for unit in UNITS:
        assert f"{run_id}/P1/{unit}/" in html or f"{run_id}/P2/{unit}/" in html, unit
        # each unit's SUMMARY.md and its tasks' reviews, written on the workers' disks, are
        # read from the database: their verdicts and summaries are on the observer's page
        assert (
            f"Unit P1/{unit} summary (SUMMARY.md)" in html
            or f"Unit P2/{unit} summary (SUMMARY.md)" in html
        ), unit
    assert "**Verdict:** `approve`" in html
    assert "Phase P1 summary" in html
    assert "Phase P2 summary" in html
    status = observer.mergegate("status", run_id)
    assert "reports: not on this host" in status.stdout, status.stdout
    assert not any(observer.state.rglob("*.lost-*"))
    assert _agents_alive(str(tmp_path)) == []


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_repeated_kills_restarts_and_recoveries_converge_sharing_nothing(
    tmp_path: Path,
    postgres_url: str,
    reference_tree: str,  # noqa: F811 - the fixture imported above
) -> None:
    """`test_repeated_kills_restarts_and_recoveries_converge_across_hosts` with each worker on
    a host of its own (the queueing host's state directory gone): five seeded SIGKILLs of
    random workers, each followed by a restart under the same id or by `workers recover`
    (from another host) and a restart: the run converges."""
    rng = random.Random(SEED + 1)
    fleet = RemoteFleet(tmp_path / "user", postgres_url)
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 2.0}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    run_id, into = queue_and_forget(fleet, _plan_file(tmp_path), impl, rev)
    workers = HostWorkers(tmp_path / "fleet", postgres_url)
    admin = Host(tmp_path / "admin", postgres_url)
    kills = 0
    try:
        for name in WORKERS:
            workers.start(name)
        for _ in range(5):
            time.sleep(rng.uniform(0.5, 2.5))
            if card_status(tmp_path, postgres_url, run_id) != "running":
                break
            victim = rng.choice(WORKERS)
            workers.kill(victim)
            kills += 1
            if rng.random() < 0.5:
                recovered = admin.mergegate("workers", "recover", victim)
                assert recovered.returncode == 0, recovered.stderr[-3000:]
            workers.start(victim)
        shown = settled(tmp_path, postgres_url, run_id, 240)
        logs = {name: workers.log(name).read_text()[-2000:] for name in WORKERS}
        # the message as a string: pytest cuts a tuple's repr to 240 characters, and the end
        # of the message is git's own line (a failure seen once in a loop of 8 lost it)
        assert shown["status"] == "completed", _why(shown, logs)
    finally:
        workers.close()
    assert kills >= 3, f"the run finished after {kills} kill(s)"
    origin = fleet.origin
    assert sorted(trailers(origin, into)) == sorted(f"Mergegate-Unit: {run_id}/{u}" for u in UNITS)
    assert git(origin, "rev-parse", f"{into}^{{tree}}") == reference_tree
    assert git(origin, "for-each-ref", "refs/heads/mergegate-wip") == ""
    assert _agents_alive(str(tmp_path)) == []


def _on_path_of(envs: list[dict[str, str]], bin_dir: Path) -> None:
    """Put `bin_dir` first on the PATH of each of these environments (its programs are
    installed on those hosts only)."""
    for env in envs:
        env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_resume_from_a_host_with_only_the_database_url(tmp_path: Path, postgres_url: str) -> None:
    """`resume RUN --answer` of a queued run from a host that has only the database URL (an
    empty HOME, state directory and working directory, and not the agents' programs: they
    run on the workers; the queueing host's state gone and the user's repository moved
    away): the answer is recorded and the worker goes on."""
    plan = tmp_path / "plan.json"
    plan.write_text(
        make_plan({"P1": {"A": {"tasks": ["T1", "CP1", "T2"]}}}).model_dump_json(by_alias=True)
    )
    bin_dir = tmp_path / "bin"  # the implementer's program, on the queueing and worker hosts
    bin_dir.mkdir()
    program = bin_dir / "fleet-impl"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    program.chmod(0o755)
    impl = agent(tmp_path, "impl").replace(sys.executable, "fleet-impl", 1)
    fleet = RemoteFleet(tmp_path / "user", postgres_url)
    workers = HostWorkers(tmp_path / "fleet", postgres_url)
    _on_path_of([fleet.env, *(h.env for h in workers.hosts.values())], bin_dir)
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    run_id, into = queue_and_forget(fleet, plan, impl, rev)
    person = Host(tmp_path / "person", postgres_url)
    try:
        workers.start(WORKERS[0])
        shown = settled(tmp_path, postgres_url, run_id, 120)
        assert shown["status"] == "waiting_for_human", shown
        resumed = person.mergegate("resume", run_id, "--answer", "CP1=approve")
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert resumed.stdout.strip() == run_id
        wait_for(
            lambda: card_status(tmp_path, postgres_url, run_id) != "waiting_for_human" or None,
            30,
            "the resumed run to start",
        )
        shown = settled(tmp_path, postgres_url, run_id, 120)
        log = workers.log(WORKERS[0]).read_text()[-3000:]
        assert shown["status"] == "completed", (shown["message"], log)
    finally:
        workers.close()
    assert trailers(fleet.origin, into) == [f"Mergegate-Unit: {run_id}/A"]
