"""The whole engine on a fleet: `mergegate run` on one machine against `mergegate run --queue`
with 1, 2 and 4 `mergegate worker`s, in one run.

bench_fleet.py measures DBOS alone (no-op units); this one runs real plans: every unit is a
workspace, an implementer run, a commit, a check, a two-stage review (two reviewer runs), a
publish and a merge, with instant scripted agents (tests/fakes/run_agent.py), so each unit
starts four processes and a dozen git commands. A throwaway PostgreSQL (durable defaults,
127.0.0.1, stopped by its pid).

* **Time to the first agent**: from the run's creation (`started_epoch` in `run.json`) to the
  first implementer start the scripted agent logs. On one machine it includes launching DBOS
  in the run's process; on the fleet, a worker taking the run from the run queue, the run
  putting its units on the units queue, and a worker taking the first one.
* **Throughput**: units merged per second, from the run's creation to its `completed` status.
* **Across hosts** (`fleet+remote`): the same fleet with `run --queue --remote` to a bare
  `file://` remote on this machine: a mirror per worker and a push after every workspace step
  (the cost of not sharing the repository, without any network latency). Its workers share
  one state directory (one folder of the run, as a shared filesystem gives them).
* **Sharing nothing** (`remote+own`): that fleet with each worker on a "host" of its own — its
  own HOME and state directory (each makes its own folder of the run from the database's
  rows), the queueing process's state directory deleted once the run is queued: the state
  in the database only, against today's shared directory, in the same run.

Every fleet's status is read from the run's card in the database (`RunStore.load`), every
50 ms.

Ratios are against `mergegate run` on SQLite (one process, the same concurrency) measured in
the same run. Machine CPU busy (/proc/stat) says where it stops scaling.

    .venv/bin/python bench/bench_fleet_run.py [--units 16] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _plan_runs import agent, events, make_plan, repo_with
from _postgres import PostgresCluster, PostgresUnavailable, start_cluster
from _smoke import sizes, skipped
from mergegate.engine import EngineRunRecord
from mergegate.store import RunStore

WORKERS = sizes((1, 2, 4), (1,))
REMOTE_WORKERS = sizes((1, 2), (1,))


@dataclass(frozen=True)
class Result:
    label: str
    workers: int
    units: int
    seconds: float
    first_agent_s: float
    cpu_busy: float

    @property
    def per_s(self) -> float:
        return self.units / self.seconds


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _mergegate(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mergegate", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )


def _setup(root: Path, units: int) -> tuple[Path, Path, list[str]]:
    root.mkdir(parents=True)
    plan = make_plan({"P1": {f"U{i:03d}": {} for i in range(units)}})
    plan_file = root / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    repo = repo_with(root / "repo")
    impl = agent(root, "impl", {"*": {"implement": [{}]}})
    rev = agent(root, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    args = ["run", str(plan_file), "--repo", str(repo), "--implementer-cmd", impl]
    return repo, plan_file, [*args, "--reviewer-cmd", rev, "--progress", "none"]


def _env(root: Path, database_url: str | None) -> dict[str, str]:
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(root / "state")}
    # the scripted agents log into `root` (their starts are the time to the first agent): open
    # it to them in their sandbox, as tests/conftest.py does for a test's folder
    env["MERGEGATE_SANDBOX__ALLOW"] = json.dumps([str(root)])
    env.pop("MERGEGATE_DATABASE_URL", None)
    if database_url:
        env["MERGEGATE_DATABASE_URL"] = database_url
    return env


def _record(root: Path) -> dict[str, object]:
    [found] = (root / "state" / "runs").glob("*/run.json")
    record: dict[str, object] = json.loads(found.read_text())
    return record


def _card(root: Path, database_url: str, run_id: str) -> dict[str, object]:
    """The run's card as the database holds it (no folder needed)."""
    record: dict[str, object] = (
        RunStore(root / "state", database_url).load(run_id, EngineRunRecord).model_dump()
    )
    return record


def _host_env(env: dict[str, str], host: Path) -> dict[str, str]:
    """A worker's environment on a host of its own: its own HOME and state directory."""
    (host / "home").mkdir(parents=True)
    return {**env, "MERGEGATE_STATE_DIR": str(host / "state"), "HOME": str(host / "home")}


def _first_agent(root: Path, started: float) -> float:
    starts = [e["time"] for e in events(root, "impl") if e["event"] == "start"]
    return min(starts) - started


def local(root: Path, units: int, concurrency: int, database_url: str | None) -> Result:
    repo, _, args = _setup(root, units)
    busy0, total0 = cpu_times()
    proc = _mergegate([*args, "--concurrency", str(concurrency)], _env(root, database_url), repo)
    _, err = proc.communicate(timeout=900)
    done = time.time()
    busy1, total1 = cpu_times()
    if proc.returncode != 0:
        raise RuntimeError(f"the run failed ({proc.returncode}): {err[-2000:]}")
    record = _record(root)
    started = float(str(record["started_epoch"]))
    return Result(
        "PostgreSQL" if database_url else "SQLite",
        1,
        units,
        done - started,
        _first_agent(root, started),
        (busy1 - busy0) / max(1, total1 - total0),
    )


def fleet(
    root: Path,
    units: int,
    concurrency: int,
    database_url: str,
    workers: int,
    *,
    remote: bool,
    own_state: bool = False,
) -> Result:
    """A fleet of `workers` processes; with `own_state` (and `remote`), each on a host of
    its own (`_host_env`) and the queueing state directory deleted once the run is queued."""
    repo, _, args = _setup(root, units)
    env = _env(root, database_url)
    if remote:  # workers across hosts: a bare remote, and every workspace step pushes to it
        origin = root / "origin.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(origin)], check=True)
        args = [*args, "--remote", f"file://{origin}"]
    procs = []
    try:
        for i in range(workers):
            log = root / f"w{i}.log"
            argv = ["worker", "--id", f"w{i}", "--concurrency", str(concurrency)]
            argv += ["--workdir", str(root / f"w{i}")]
            own = _host_env(env, root / f"host-w{i}") if own_state else env
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "mergegate", *argv],
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        env=own,
                        cwd=root / f"host-w{i}" if own_state else repo,
                    )
                )
        for i in range(workers):
            while "ready" not in (root / f"w{i}.log").read_text():
                if procs[i].poll() is not None:
                    raise RuntimeError((root / f"w{i}.log").read_text()[-2000:])
                time.sleep(0.05)
        busy0, total0 = cpu_times()
        queued = _mergegate([*args, "--queue"], env, repo)
        out, err = queued.communicate(timeout=120)
        if queued.returncode != 0:
            raise RuntimeError(err[-2000:])
        run_id = out.strip()
        if own_state:
            shutil.rmtree(root / "state")
        while (record := _card(root, database_url, run_id))["status"] == "running":
            time.sleep(0.05)
        done = time.time()
        busy1, total1 = cpu_times()
        if record["status"] != "completed":
            raise RuntimeError(f"the run ended {record['status']}")
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
    started = float(str(record["started_epoch"]))
    return Result(
        ("remote+own" if own_state else "fleet+remote") if remote else "fleet (PG)",
        workers,
        units,
        done - started,
        _first_agent(root, started),
        (busy1 - busy0) / max(1, total1 - total0),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=sizes(16, 2))
    parser.add_argument("--concurrency", type=int, default=2)
    opts = parser.parse_args()
    try:
        cluster: PostgresCluster = start_cluster(durable=True)
    except PostgresUnavailable as exc:
        print(f"skipped: {exc}")
        return skipped()
    tmp = Path(tempfile.mkdtemp(prefix="bench-fleet-run-"))
    try:
        results = [
            local(tmp / "sqlite", opts.units, opts.concurrency, None),
            local(tmp / "pg", opts.units, opts.concurrency, cluster.create_database("b_local")),
        ]
        for n in WORKERS:
            url = cluster.create_database(f"b_fleet{n}")
            results.append(
                fleet(tmp / f"fleet{n}", opts.units, opts.concurrency, url, n, remote=False)
            )
        for n in REMOTE_WORKERS:
            # shared state directory and a state directory per worker, back to back
            for own in (False, True):
                name = f"remote{n}{'-own' if own else ''}"
                url = cluster.create_database(f"b_{name.replace('-', '_')}")
                results.append(
                    fleet(
                        tmp / name,
                        opts.units,
                        opts.concurrency,
                        url,
                        n,
                        remote=True,
                        own_state=own,
                    )
                )
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    base = results[0]
    print(f"{opts.units} units, concurrency {opts.concurrency} per process, instant agents")
    for r in results:
        print(
            f"{r.label:<12} {r.workers} process(es): {r.per_s:5.2f} units/s "
            f"({r.per_s / r.workers:5.2f} per worker, x{r.per_s / base.per_s:.2f} vs SQLite); "
            f"first agent after {r.first_agent_s:5.2f} s "
            f"(x{r.first_agent_s / base.first_agent_s:.2f}); machine CPU busy {r.cpu_busy:.0%}"
        )
    shared = {r.workers: r for r in results if r.label == "fleet+remote"}
    for r in results:
        if r.label == "remote+own" and r.workers in shared:
            print(
                f"state in the database only, {r.workers} worker(s): x"
                f"{r.per_s / shared[r.workers].per_s:.2f} units/s vs a shared state directory"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
