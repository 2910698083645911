"""A small DBOS application for the fleet contract tests and bench/bench_fleet.py.

It uses DBOS directly, not mergegate's engine: the point is to pin the DBOS 3.4 behaviours the
engine will rely on for a fleet, on Postgres as on SQLite. With `--engine`, a worker launches
through mergegate's `DurableEngine` instead, to pin what the engine adds on top.

    fleet_app.py worker DB EXECUTOR MARKERS [--worker-concurrency N] [--global-concurrency N]
                        [--poll S] [--queue NAME] [--engine]
        Launch DBOS as executor EXECUTOR, register the queue with those limits, and take
        units from it until SIGTERM. Appends `ready EXECUTOR PID` to MARKERS once launched.
        On SIGTERM it leaves at once: units it was running stay PENDING under its id.
        `--engine`: launch and register through `mergegate.store.DurableEngine` (which keeps
        `--worker-concurrency` to this process: the queue's row holds 0).
    fleet_app.py recover DB DEAD [--via internal|public]
        Re-enqueue the workflows executor DEAD left PENDING, for any live worker to take:
        `internal` launches DBOS (as `admin-<pid>`, listening to no queue) and calls
        `DBOS._recover_pending_workflows([DEAD])`; `public` uses only a `DBOSClient`
        (`list_workflows` + `resume_workflows` back onto each workflow's own queue).
        Prints the ids it re-enqueued, one a line.
    fleet_app.py enqueue DB N [--sleep S] [--prefix P]
        Enqueue units P0..P(N-1) (`fleet.unit`, step b sleeping S) through a `DBOSClient`,
        without launching DBOS, the way `mergegate run --queue` will submit a run.
    fleet_app.py status DB
        One line per workflow: id, status, executor id (what `mergegate status` will show).
    fleet_app.py steps DB N
        Launch DBOS as `local` and run one workflow of N instant steps; print the seconds the
        workflow took (the step checkpoint latency, for the benchmark).

Workflow `fleet.unit(item, sleep_s)` runs steps a, b, c. Each appends
`<event> <item> <executor> <pid> <monotonic>` to MARKERS (events a, b-start, b-end, c); step b
sleeps `sleep_s`, then waits while the file `MARKERS.block` exists, so a test can kill the
worker inside it. Workflow `fleet.instant(item)` is one step that only returns.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from dbos import DBOS, DBOSClient, DBOSConfig

APP = "mergegate-fleet-test"
VERSION = "fleet-test-1"
QUEUE = "fleet-units"
STATE = {"markers": Path(os.devnull), "executor": "?"}


def _mark(event: str, item: str) -> None:
    line = f"{event} {item} {STATE['executor']} {os.getpid()} {time.monotonic():.6f}\n"
    # One write of a short line with O_APPEND: lines from many processes never interleave.
    fd = os.open(STATE["markers"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@DBOS.step(name="fleet.a")
def step_a(item: str) -> str:
    _mark("a", item)
    return item


@DBOS.step(name="fleet.b")
def step_b(item: str, sleep_s: float) -> str:
    _mark("b-start", item)
    time.sleep(sleep_s)
    block = Path(f"{STATE['markers']}.block")
    while block.exists():
        time.sleep(0.02)
    _mark("b-end", item)
    return item + "b"


@DBOS.step(name="fleet.c")
def step_c(item: str, prev: str) -> str:
    _mark("c", item)
    return prev + "c"


@DBOS.workflow(name="fleet.unit", max_recovery_attempts=100)
def unit(item: str, sleep_s: float) -> str:
    return step_c(item, step_b(step_a(item), sleep_s))


@DBOS.step(name="fleet.noop")
def noop(i: int) -> int:
    return i


@DBOS.workflow(name="fleet.instant", max_recovery_attempts=100)
def instant(item: str) -> str:
    noop(0)
    return item


@DBOS.workflow(name="fleet.steps")
def many_steps(n: int) -> int:
    return sum(noop(i) for i in range(n))


def _config(db: str, executor: str, poll: float) -> DBOSConfig:
    return {
        "name": APP,
        "system_database_url": db,
        "application_version": VERSION,
        "executor_id": executor,
        "log_level": "WARNING",
        "notification_listener_polling_interval_sec": poll,
        "sys_db_pool_size": 6,
    }


def worker(args: argparse.Namespace) -> int:
    STATE["markers"], STATE["executor"] = Path(args.markers), args.executor
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    engine = _launch_engine(args) if args.engine else None
    if engine is None:
        DBOS(config=_config(args.db, args.executor, args.poll))
        DBOS.launch()
        DBOS.register_queue(
            args.queue,
            worker_concurrency=args.worker_concurrency,
            global_concurrency=args.global_concurrency,
            polling_interval_sec=args.poll,
            on_conflict="always_update",
        )
    _mark("ready", "-")
    stop.wait()
    if engine is not None:
        engine.shutdown()
    else:
        DBOS.destroy()
    # Workflows still running stay PENDING under this executor id (recovered by the next
    # process with the same id); leave now rather than let their threads fail noisily.
    os._exit(0)


def _launch_engine(args: argparse.Namespace) -> Any:
    from mergegate.store import DurableEngine, EngineConfig

    if args.worker_concurrency is None:
        raise SystemExit("--engine needs --worker-concurrency")
    engine = DurableEngine(
        EngineConfig(
            args.db,
            concurrency=args.worker_concurrency,
            executor_id=args.executor,
            application_version=VERSION,
            polling_interval_s=args.poll,
            app_name=APP,
            queue=args.queue,
            global_concurrency=args.global_concurrency,
        )
    )
    engine.launch()
    return engine


def recover(args: argparse.Namespace) -> int:
    if args.via == "internal":
        ids = _recover_internal(args.db, args.dead)
    else:
        ids = _recover_public(args.db, args.dead)
    for wf_id in ids:
        print(wf_id)
    return 0


def _recover_internal(db: str, dead: str) -> list[str]:
    DBOS(config=_config(db, f"admin-{os.getpid()}", 0.1))
    DBOS.listen_queues([])  # an admin takes no work itself: the survivors do
    DBOS.launch()
    try:
        handles = DBOS._recover_pending_workflows([dead])
        return [h.get_workflow_id() for h in handles]
    finally:
        DBOS.destroy()


def _recover_public(db: str, dead: str) -> list[str]:
    client = DBOSClient(system_database_url=db, application_name=APP)
    try:
        pending = client.list_workflows(
            status="PENDING", executor_id=dead, app_version=VERSION, load_input=False
        )
        for wf in pending:
            client.resume_workflow(wf.workflow_id, queue_name=wf.queue_name)
        return [wf.workflow_id for wf in pending]
    finally:
        client.destroy()


def enqueue(args: argparse.Namespace) -> int:
    client = DBOSClient(system_database_url=args.db, application_name=APP)
    try:
        for i in range(args.n):
            options: Any = {
                "queue_name": QUEUE,
                "workflow_name": "fleet.unit",
                "workflow_id": f"{args.prefix}{i}",
                "app_version": VERSION,
            }
            client.enqueue(options, f"{args.prefix}{i}", args.sleep)
    finally:
        client.destroy()
    return 0


def status(args: argparse.Namespace) -> int:
    client = DBOSClient(system_database_url=args.db, application_name=APP)
    try:
        for wf in client.list_workflows(load_input=False, load_output=False):
            print(f"{wf.workflow_id:<12} {wf.status:<10} {wf.executor_id}")
    finally:
        client.destroy()
    return 0


def steps(args: argparse.Namespace) -> int:
    DBOS(config=_config(args.db, "local", 0.1))
    DBOS.launch()
    try:
        many_steps(1)  # warm up: connections, the workflow's first insert
        start = time.perf_counter()
        many_steps(args.n)
        print(f"{time.perf_counter() - start:.6f}")
    finally:
        DBOS.destroy()
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("worker")
    w.add_argument("db")
    w.add_argument("executor")
    w.add_argument("markers")
    w.add_argument("--worker-concurrency", type=int, default=None)
    w.add_argument("--global-concurrency", type=int, default=None)
    w.add_argument("--poll", type=float, default=0.1)
    w.add_argument("--queue", default=QUEUE)
    w.add_argument("--engine", action="store_true")
    w.set_defaults(run=worker)
    r = sub.add_parser("recover")
    r.add_argument("db")
    r.add_argument("dead")
    r.add_argument("--via", choices=("internal", "public"), default="internal")
    r.set_defaults(run=recover)
    e = sub.add_parser("enqueue")
    e.add_argument("db")
    e.add_argument("n", type=int)
    e.add_argument("--sleep", type=float, default=0.0)
    e.add_argument("--prefix", default="unit-")
    e.set_defaults(run=enqueue)
    t = sub.add_parser("status")
    t.add_argument("db")
    t.set_defaults(run=status)
    s = sub.add_parser("steps")
    s.add_argument("db")
    s.add_argument("n", type=int)
    s.set_defaults(run=steps)
    return parser


def main() -> int:
    logging.getLogger("dbos").setLevel(logging.WARNING)
    args = _parser().parse_args()
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
