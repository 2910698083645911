"""A fleet across hosts: workers that share only the database and a git remote.

`mergegate run --queue --remote URL` pushes the integration branch to the remote; each worker
keeps a bare mirror of it under its own `--workdir`, works in workspaces that borrow the
mirror, pushes unit branches to the remote after every step that changes a workspace, and the
merges happen on the remote by compare and swap. To prove nothing else is shared, the user's
repository is moved away as soon as the run is queued: a worker that touched it would fail.

Three workers run the 12-unit plan of `test_fleet_run`; the one holding the run (its phases
and merges) is SIGKILLed while an agent of one of its units runs; `mergegate workers recover`
hands its work to the survivors, which rebuild the dead worker's workspaces from the remote in
their own work directories. The remote's integration branch ends with every unit merged
exactly once and the same tree as a one-machine run.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from _fleet import wait_for
from _gitrepo import git
from _plan_runs import agent, events, make_plan, repo_with, trailers
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
    _record,
    _run_args,
    _run_holder,
    reference_tree,  # noqa: F401 - a fixture, used by name
)

pytestmark = pytest.mark.fleet

SEED = 20261124


def _origin(repo: Path, where: Path) -> Path:
    """The team's shared remote: a bare clone of the user's repository."""
    git(where.parent, "clone", "-q", "--bare", str(repo), str(where))
    return where


class RemoteFleet:
    """A user's repository, the team's bare remote (or, `remote=False`, none: the workers
    share the repository), the runs' state on Postgres, and a folder that is neither (the
    workers' working directory)."""

    def __init__(self, root: Path, database_url: str, *, remote: bool = True) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.remote = remote
        self.repo = repo_with(root / "repo")
        self.origin = _origin(self.repo, root / "origin.git") if remote else self.repo
        if remote:  # the team's remote as the user's repository knows it
            git(self.repo, "remote", "add", "team", str(self.origin))
        self.elsewhere = root / "elsewhere"
        self.elsewhere.mkdir()
        self.state = root / "state"
        self.env = _env(self.state, database_url)

    def queue(self, plan: Path, impl: str, rev: str) -> str:
        """`run --queue` (with `--remote team`, the bare remote by its name); the run's id."""
        args = [*_run_args(plan, self.repo, impl, rev), "--queue"]
        args += ["--remote", "team"] if self.remote else []
        queued = _mergegate(args, self.env, self.repo)
        assert queued.returncode == 0, queued.stderr[-3000:]
        return queued.stdout.strip()

    def settled(self, run_id: str, timeout_s: float, *passing: str) -> dict[str, Any]:
        """The run's card once its status is neither `running` nor one of `passing`."""

        def found() -> dict[str, Any] | None:
            record = _record(self.state, run_id)
            return record if record["status"] not in ("running", *passing) else None

        record: dict[str, Any] = wait_for(found, timeout_s, f"run {run_id} to settle")
        return record


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_workers_sharing_only_a_git_remote_survive_a_killed_worker(
    tmp_path: Path,
    postgres_url: str,
    reference_tree: str,  # noqa: F811 - the fixture imported above
) -> None:
    plan = _plan_file(tmp_path)
    fleet_dir = tmp_path / "fleet"
    fleet = RemoteFleet(fleet_dir, postgres_url)
    repo, origin, elsewhere, state, env = (
        fleet.repo,
        fleet.origin,
        fleet.elsewhere,
        fleet.state,
        fleet.env,
    )
    run_id = fleet.queue(plan, *_agents(fleet_dir))
    assert _record(state, run_id)["remote"] == str(origin)  # the name, resolved to its URL
    into = _record(state, run_id)["into"]
    base = git(repo, "rev-parse", "main")
    assert git(origin, "rev-parse", into) == base  # the integration branch, on the remote
    away = fleet_dir / "repo-away"
    repo.rename(away)  # from here on, nothing can reach the user's repository
    rng = random.Random(SEED)
    workers = Workers(fleet_dir, env, elsewhere)
    try:
        for name in WORKERS:
            workers.start(name)
        victim = _run_holder(postgres_url, run_id)
        wait_for(lambda: _agents_in(workers.workdir(victim)), 90, f"{victim} to run an agent")
        time.sleep(rng.uniform(0.0, 0.4))
        workers.kill(victim)
        shown = _mergegate(["status", run_id, "--format", "json"], env, elsewhere)
        assert shown.returncode == 0, shown.stderr[-3000:]
        held = {u["id"] for u in json.loads(shown.stdout)["units"] if u.get("worker") == victim}
        recovered = _mergegate(["workers", "recover", victim, "--format", "json"], env, elsewhere)
        assert recovered.returncode == 0, recovered.stderr[-3000:]
        record = fleet.settled(run_id, 180)
        logs = {name: workers.log(name).read_text() for name in WORKERS}
        assert record["status"] == "completed", (record, logs[victim][-3000:])

        def swept() -> bool | None:
            left = [
                p
                for name in set(WORKERS) - {victim}
                if (workers.workdir(name) / "worktrees" / run_id).exists()
                for p in (workers.workdir(name) / "worktrees" / run_id).iterdir()
            ]
            return not left or None

        wait_for(swept, 30, "the survivors to remove the run's workspaces")
    finally:
        workers.close()
    away.rename(repo)
    # every unit merged exactly once, on the remote, and the same tree as one machine
    assert sorted(trailers(origin, into)) == sorted(f"Mergegate-Unit: {run_id}/{u}" for u in UNITS)
    assert git(origin, "rev-parse", f"{into}^{{tree}}") == reference_tree
    # the user's repository was never written: its branch where the run found it, no unit
    assert git(repo, "rev-parse", into) == base
    assert git(repo, "for-each-ref", "refs/heads/mergegate-unit") == ""
    # each unit's branch is on the remote, at the commit its merge took
    merged = git(origin, "log", "--format=%P", "--merges", into).split("\n")
    seconds = {line.split()[1] for line in merged if len(line.split()) == 2}
    for unit in UNITS:
        assert git(origin, "rev-parse", f"mergegate-unit/{run_id}/{unit}") in seconds, unit
    # every unit started in the work directory of the worker that ran it: a unit moved from
    # the dead worker was rebuilt from the remote, never continued in the dead one's folder
    started = [
        (name, line)
        for name, text in logs.items()
        for line in text.splitlines()
        if f"[{name}] {run_id} unit" in line and "started in" in line
    ]
    for name, line in started:
        assert f"started in {workers.workdir(name)}/worktrees/{run_id}/" in line, line
    assert held, "the killed worker held no unit"
    for unit in held:  # the dead worker's units finished on a survivor
        assert any(n != victim and line.split(": ")[1] == unit for n, line in started), unit
    # and the one whose agent was cut short (at least) went on in a workspace rebuilt from the
    # remote (a unit whose remaining steps were all recorded needs none)
    rebuilt = [
        u for u in held for n, t in logs.items() if n != victim and f"{u}: workspace rebuilt" in t
    ]
    assert rebuilt, {n: t[-2000:] for n, t in logs.items()}
    survivors = {name for name, _ in started} - {victim}
    assert survivors, started
    for name in survivors:  # each worker reads through its own mirror, and cleaned up
        assert list((workers.workdir(name) / "mirrors").glob("*.git")), name
        # (a unit retires its workspace; a task taken over for another worker's unit
        # leaves one, which the worker's sweep removes once the run has finished)
        assert (workers.workdir(name) / "mirrors").is_dir(), name
    # the progress branches went with their units
    assert git(origin, "for-each-ref", "refs/heads/mergegate-wip") == ""
    lost = list((state / "runs" / run_id).rglob("*.lost-*"))
    assert len(lost) <= 2 * len(held), lost  # a step in flight per held unit and its task
    assert _agents_alive(str(fleet_dir)) == []


def test_remote_needs_a_queue_and_a_protocol_it_allows(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    env = _env(tmp_path / "state", None)
    impl, rev = _agents(tmp_path)
    args = _run_args(_plan_file(tmp_path), repo, impl, rev)
    alone = _mergegate([*args, "--remote", str(tmp_path / "origin.git")], env, repo)
    assert alone.returncode == 2, alone.stderr
    assert "--queue" in alone.stderr
    # checked before anything else (even before the fleet's database is asked for)
    https = _mergegate([*args, "--queue", "--remote", "https://example.org/r.git"], env, repo)
    assert https.returncode == 2, https.stderr
    assert "unsupported --remote" in https.stderr
    unknown = _mergegate([*args, "--queue", "--remote", "nosuch"], env, repo)
    assert unknown.returncode == 2, unknown.stderr
    assert "no remote named 'nosuch'" in unknown.stderr
    secret = _mergegate([*args, "--queue", "--remote", "ssh://me:pw@example.org/r"], env, repo)
    assert secret.returncode == 2, secret.stderr
    assert "password" in secret.stderr
    assert "pw@" not in secret.stderr
    assert not (tmp_path / "state" / "runs").exists() or not any(
        (tmp_path / "state" / "runs").iterdir()
    )


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("remote", [True, False], ids=["remote", "shared"])
def test_a_unit_waiting_for_a_person_goes_on_after_resume(
    tmp_path: Path, postgres_url: str, remote: bool
) -> None:
    # across hosts the unit goes on from its branch on the remote; on either kind of fleet the
    # worker that ran the first generation runs the second one as the second one
    plan = tmp_path / "plan.json"
    plan.write_text(
        make_plan({"P1": {"A": {"tasks": ["T1", "CP1", "T2"]}}}).model_dump_json(by_alias=True)
    )
    fleet = RemoteFleet(tmp_path, postgres_url, remote=remote)
    origin, env, elsewhere = fleet.origin, fleet.env, fleet.elsewhere
    impl = agent(tmp_path, "impl")
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    run_id = fleet.queue(plan, impl, rev)
    workers = Workers(tmp_path, env, elsewhere)
    try:
        workers.start("solo")
        record = fleet.settled(run_id, 120)
        assert record["status"] == "waiting_for_human", record
        # its task commit is on the unit's branch (across hosts: on the remote)
        unit_branch = f"mergegate-unit/{run_id}/A"
        assert "T1" in git(origin, "log", "-1", "--format=%s", unit_branch)
        resumed = _mergegate(["resume", run_id, "--answer", "CP1=approve"], env, elsewhere)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        record = fleet.settled(run_id, 120, "waiting_for_human")
        assert record["status"] == "completed", (record, workers.log("solo").read_text()[-3000:])
    finally:
        workers.close()
    into = record["into"]
    assert trailers(origin, into) == [f"Mergegate-Unit: {run_id}/A"]
    subjects = git(origin, "log", "--format=%s", f"{into}^2").splitlines()
    # both tasks' commits in the merged unit: T1 from the first generation, T2 from the second
    assert any(s.startswith("T1") for s in subjects), subjects
    assert any(s.startswith("T2") for s in subjects), subjects
    starts = [(e["task"], e["kind"]) for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert starts.count(("T1", "implement")) == 1, starts
    # the worker kept the run between generations, and wrote the second one's events as such
    journal = tmp_path / "state" / "runs" / run_id / "events.jsonl"
    ids = [json.loads(line)["event_id"] for line in journal.read_text().splitlines()]
    assert f"{run_id}/g2/A/unit.merged" in ids, [i for i in ids if "/A/" in i]


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_repeated_kills_restarts_and_recoveries_converge_across_hosts(
    tmp_path: Path,
    postgres_url: str,
    reference_tree: str,  # noqa: F811 - the fixture imported above
) -> None:
    """Five seeded SIGKILLs of random workers, 0.5 to 2.5 s apart, each followed by a
    restart under the same id or by `workers recover` and a restart: the run converges."""
    rng = random.Random(SEED + 1)
    fleet = RemoteFleet(tmp_path, postgres_url)
    origin, env, elsewhere, state = fleet.origin, fleet.env, fleet.elsewhere, fleet.state
    # slower implementers than the other tests' (the same files): a run long enough to be
    # killed five times
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 2.0}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    run_id = fleet.queue(_plan_file(tmp_path), impl, rev)
    workers = Workers(tmp_path, env, elsewhere)
    kills = 0
    try:
        for name in WORKERS:
            workers.start(name)
        for _ in range(5):
            time.sleep(rng.uniform(0.5, 2.5))
            if _record(state, run_id)["status"] != "running":
                break
            victim = rng.choice(WORKERS)
            workers.kill(victim)
            kills += 1
            if rng.random() < 0.5:
                recovered = _mergegate(["workers", "recover", victim], env, elsewhere)
                assert recovered.returncode == 0, recovered.stderr[-3000:]
            workers.start(victim)
        record = fleet.settled(run_id, 240)
        logs = {name: workers.log(name).read_text()[-2000:] for name in WORKERS}
        assert record["status"] == "completed", (record, logs)
    finally:
        workers.close()
    assert kills >= 3, f"the run finished after {kills} kill(s)"
    into = record["into"]
    assert sorted(trailers(origin, into)) == sorted(f"Mergegate-Unit: {run_id}/{u}" for u in UNITS)
    assert git(origin, "rev-parse", f"{into}^{{tree}}") == reference_tree
    assert git(origin, "for-each-ref", "refs/heads/mergegate-wip") == ""
    assert _agents_alive(str(tmp_path)) == []


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_an_integration_branch_moved_on_the_remote_stops_the_run(
    tmp_path: Path, postgres_url: str
) -> None:
    """Across hosts too the integration branch moves only from the tip mergegate recorded:
    an implementer that moves it on the remote to an unreviewed commit stops the run with
    exit 5 naming both commits; nothing is pushed on top (issue 30)."""
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {"A": {}}}).model_dump_json(by_alias=True))
    fleet = RemoteFleet(tmp_path, postgres_url)
    origin = fleet.origin
    base = git(origin, "rev-parse", "main")
    evil = git(origin, "-c", "user.name=e", "-c", "user.email=e@e", "commit-tree",
               "main^{tree}", "-p", "main", "-m", "unreviewed")  # fmt: skip
    acts = tmp_path / "acts.json"
    move = f"git -C '{origin}' update-ref refs/heads/mergegate/$MERGEGATE_RUN_ID {evil}"
    acts.write_text(json.dumps({"A": {"after": [move]}}))
    hostile = Path(__file__).parent / "fakes" / "git_hostile_agent.py"
    impl = f"{sys.executable} {hostile} {acts} {tmp_path / 'acts-state'} {agent(tmp_path, 'impl')}"
    run_id = fleet.queue(plan, impl, agent(tmp_path, "rev"))
    workers = Workers(tmp_path, fleet.env, fleet.elsewhere)
    try:
        workers.start("solo")
        record = fleet.settled(run_id, 180)
    finally:
        workers.close()
    assert (tmp_path / "acts-state" / "acts.jsonl").is_file()  # the attack was made
    into = record["into"]
    assert git(origin, "rev-parse", into) == evil
    assert record["status"] == "escalated", record
    assert record["exit_code"] == 5
    assert f"mergegate left it at {base}" in record["message"]
    assert f"it is now at {evil}" in record["message"]
