"""DBOS on SQLite (one machine) against DBOS on PostgreSQL (a fleet), in one run.

Uses the small DBOS program of the fleet contract tests (tests/fleet_programs/fleet_app.py),
not the engine, and a throwaway PostgreSQL cluster with its durable defaults (fsync on, like
SQLite's synchronous writes), on 127.0.0.1, stopped by its pid at the end.

1. **Step checkpoint**: one workflow of N instant steps in one process; seconds per step.
   SQLite as the engine creates it (WAL) and as DBOS creates it (rollback journal), Postgres.
2. **Dispatch latency**: one worker, an idle queue; one unit at a time is enqueued (by a
   `DBOSClient`, as `mergegate run --queue` will) and waited for: enqueue → seen completed,
   timed by the client (DBOS's SQLite timestamps have one-second resolution).
3. **Throughput**: N instant units are enqueued on a queue no worker listens to, then moved
   onto the workers' queue in one statement, so every worker starts from the same backlog.
   Units per second from the release to the last completion seen, with 1, 2, 4 and 8 worker
   processes on Postgres and 1 on SQLite (a SQLite file is one machine's), at a
   `worker_concurrency` of 4 and of 32; and 4 workers with a `global_concurrency` that never
   binds (DBOS's other dequeue path). Machine CPU busy (/proc/stat, everything on the machine)
   says where it stops.

Ratios are against SQLite (WAL) and against one Postgres worker, measured in the same run.

    .venv/bin/python bench/bench_fleet.py [--units 400] [--worker-concurrency 4]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fleet import APP, APP_PATH, QUEUE, VERSION, Fleet
from _postgres import PostgresCluster, PostgresUnavailable, start_cluster
from _smoke import sizes, skipped

HOLD = "fleet-hold"  # a queue name no worker polls: units wait there until released
STEPS = sizes(200, 5)
SEQUENTIAL = sizes(20, 2)
WORKERS = sizes((1, 2, 4, 8), (1, 2))
CHECKPOINT_RUNS = sizes(3, 1)
TERMINAL = {"SUCCESS", "ERROR", "CANCELLED"}


@dataclass(frozen=True)
class Throughput:
    label: str
    workers: int
    units: int
    seconds: float
    cpu_busy: float

    @property
    def per_s(self) -> float:
        return self.units / self.seconds


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def sqlite_db(path: Path, *, wal: bool) -> str:
    if wal:
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
    return f"sqlite:///{path}"


def checkpoint_ms(db: str) -> float:
    done = subprocess.run(
        [sys.executable, str(APP_PATH), "steps", db, str(STEPS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(done.stdout.split()[-1]) / STEPS * 1e3


def wait_all(fleet: Fleet, ids: list[str], tick_s: float, timeout_s: float = 600.0) -> float:
    """Poll until every unit is terminal; the monotonic time it was first seen so.

    Timed here, in the client, rather than from DBOS's timestamps: its SQLite backend stores
    them with one-second resolution.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        found = fleet.client.list_workflows(workflow_ids=ids, load_input=False, load_output=False)
        seen = time.monotonic()
        if len(found) == len(ids) and all(str(w.status) in TERMINAL for w in found):
            bad = [w.workflow_id for w in found if str(w.status) != "SUCCESS"]
            if bad:
                raise RuntimeError(f"units did not succeed: {bad[:5]}")
            return seen
        if seen > deadline:
            raise RuntimeError("timed out waiting for the units")
        time.sleep(tick_s)


def start_workers(
    fleet: Fleet, count: int, concurrency: int, global_concurrency: int | None = None
) -> None:
    for i in range(count):
        fleet.start(
            f"w{i + 1}",
            worker_concurrency=concurrency,
            global_concurrency=global_concurrency,
            wait=False,
        )
    for i in range(count):
        fleet.wait_ready(f"w{i + 1}", fleet.workers[f"w{i + 1}"].pid)


def dispatch(db: str, root: Path, concurrency: int) -> tuple[float, list[float]]:
    """Ms from the enqueue call to the unit seen completed (the client looks every 2 ms): the
    first unit after the worker launched, then `SEQUENTIAL` more, one at a time.

    A random pause (seeded) before each enqueue, up to one poll interval, keeps the enqueue
    from locking onto the worker's polling phase, which would make every wait a whole poll.
    """
    rng = random.Random(16)
    fleet = Fleet(db, root)
    try:
        start_workers(fleet, 1, concurrency)
        latencies = []
        for i in range(SEQUENTIAL + 1):
            time.sleep(rng.uniform(0.0, 0.1))
            start = time.monotonic()
            fleet.enqueue([f"seq-{i}"], workflow="fleet.instant")
            latencies.append((wait_all(fleet, [f"seq-{i}"], 0.002) - start) * 1e3)
        return latencies[0], latencies[1:]
    finally:
        fleet.close()


def throughput(
    label: str,
    db: str,
    root: Path,
    *,
    workers: int,
    units: int,
    concurrency: int,
    global_concurrency: int | None = None,
) -> Throughput:
    fleet = Fleet(db, root)
    try:
        start_workers(fleet, workers, concurrency, global_concurrency)
        ids = [f"u-{i}" for i in range(units)]
        for wf_id in ids:
            options: Any = {
                "queue_name": HOLD,
                "workflow_name": "fleet.instant",
                "workflow_id": wf_id,
                "app_version": VERSION,
            }
            fleet.client.enqueue(options, wf_id)
        busy0, total0 = cpu_times()
        start = time.monotonic()
        fleet.client.resume_workflows(ids, queue_name=QUEUE)  # one UPDATE releases them all
        end = wait_all(fleet, ids, 0.05)
        busy1, total1 = cpu_times()
        cpu = (busy1 - busy0) / max(1, total1 - total0)
        return Throughput(label, workers, units, end - start, cpu)
    finally:
        fleet.close()


def fresh_postgres(cluster: PostgresCluster, name: str) -> str:
    cluster.drop_database(name)
    return cluster.create_database(name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=sizes(400, 8))
    parser.add_argument("--worker-concurrency", type=int, default=4)
    args = parser.parse_args()
    try:
        cluster = start_cluster(durable=True)
    except PostgresUnavailable as exc:
        print(f"bench_fleet: skipped: {exc}")
        return skipped()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
            run(cluster, Path(tmp), args.units, args.worker_concurrency)
    finally:
        cluster.stop()
    return 0


def run(cluster: PostgresCluster, tmp: Path, units: int, concurrency: int) -> None:
    print(f"app {APP} {VERSION}; PostgreSQL fsync on; {STEPS} steps; {units} units per run")
    print(
        f"\n== step checkpoint (one workflow of instant steps, one process; "
        f"median of {CHECKPOINT_RUNS})"
    )
    runs: dict[str, list[float]] = {"lite": [], "rollback": [], "pg": []}
    for i in range(CHECKPOINT_RUNS):  # interleaved, so all three see the same machine load
        runs["lite"].append(checkpoint_ms(sqlite_db(tmp / f"wal-{i}.sqlite", wal=True)))
        runs["rollback"].append(checkpoint_ms(sqlite_db(tmp / f"rb-{i}.sqlite", wal=False)))
        runs["pg"].append(checkpoint_ms(fresh_postgres(cluster, f"b_steps{i}")))
    lite, rollback, pg = (statistics.median(runs[k]) for k in ("lite", "rollback", "pg"))
    print(f"SQLite WAL (engine)      {lite:7.2f} ms/step  x1.00")
    print(f"SQLite rollback (DBOS)   {rollback:7.2f} ms/step  x{rollback / lite:.2f}")
    print(f"PostgreSQL               {pg:7.2f} ms/step  x{pg / lite:.2f}")

    print(
        f"\n== dispatch latency (1 worker, idle queue, poll 0.1 s; {SEQUENTIAL} units, one by one)"
    )
    dispatch_ms: dict[str, float] = {}
    for label, db, sub in (
        ("SQLite WAL", sqlite_db(tmp / "dispatch.sqlite", wal=True), "d-lite"),
        ("PostgreSQL", fresh_postgres(cluster, "b_dispatch"), "d-pg"),
    ):
        (tmp / sub).mkdir()
        first, rest = dispatch(db, tmp / sub, concurrency)
        dispatch_ms[label] = median = statistics.median(rest)
        print(
            f"{label:<11} enqueue → completed: median {median:6.1f} ms, "
            f"min {min(rest):6.1f}, max {max(rest):6.1f}; "
            f"the first unit after launch {first:6.1f} ms"
        )
    ratio = dispatch_ms["PostgreSQL"] / dispatch_ms["SQLite WAL"]
    print(f"PostgreSQL / SQLite: x{ratio:.2f}")

    for concurrency_ in sizes((concurrency, 8 * concurrency), (concurrency,)):
        throughput_series(cluster, tmp, units, concurrency_)


def throughput_series(cluster: PostgresCluster, tmp: Path, units: int, concurrency: int) -> None:
    print(f"\n== throughput of instant units (worker_concurrency {concurrency}, poll 0.1 s)")
    results = []
    sub = tmp / f"t{concurrency}-lite"
    sub.mkdir()
    db = sqlite_db(sub / "t.sqlite", wal=True)
    results.append(
        throughput("SQLite WAL", db, sub, workers=1, units=units, concurrency=concurrency)
    )
    for workers in WORKERS:
        sub = tmp / f"t{concurrency}-pg{workers}"
        sub.mkdir()
        db = fresh_postgres(cluster, f"b_tp{concurrency}_{workers}")
        results.append(
            throughput("PostgreSQL", db, sub, workers=workers, units=units, concurrency=concurrency)
        )
    # The same 4 workers with a global limit that never binds: what DBOS's other dequeue path
    # costs (REPEATABLE READ, NOWAIT, a count of every worker's units, backoff on conflicts).
    sub = tmp / f"t{concurrency}-pg4-global"
    sub.mkdir()
    db = fresh_postgres(cluster, f"b_tp{concurrency}_4g")
    results.append(
        throughput(
            "PG+global",
            db,
            sub,
            workers=4,
            units=units,
            concurrency=concurrency,
            global_concurrency=4 * concurrency,
        )
    )
    base_lite, base_pg = results[0].per_s, results[1].per_s
    for r in results:
        print(
            f"{r.label:<11} {r.workers} worker(s): {r.per_s:6.1f} units/s "
            f"({r.per_s / r.workers:5.1f} per worker)  x{r.per_s / base_lite:.2f} vs SQLite, "
            f"x{r.per_s / base_pg:.2f} vs 1 PG worker; machine CPU busy {r.cpu_busy:.0%}"
        )
    print(
        f"ceiling of one worker from the poll alone: worker_concurrency / poll = "
        f"{concurrency / 0.1:.0f} units/s"
    )


if __name__ == "__main__":
    raise SystemExit(main())
