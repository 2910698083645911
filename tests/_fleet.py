"""Drive worker processes of `tests/fleet_programs/fleet_app.py` (a small DBOS application)
against one database: start, SIGKILL, recover, and read what every step recorded.

The test process itself never launches DBOS; it enqueues and reads through a `DBOSClient`, as
`mergegate run --queue` and `status` will. Every process started here is stopped by its pid
in `close()`.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbos import DBOSClient

APP_PATH = Path(__file__).parent / "fleet_programs" / "fleet_app.py"
APP = "mergegate-fleet-test"
VERSION = "fleet-test-1"
QUEUE = "fleet-units"
TERMINAL = {"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"}


@dataclass(frozen=True)
class Event:
    """One line a step wrote: `b-start unit-3 w2 4711 12345.678901`."""

    name: str
    item: str
    executor: str
    pid: int
    at: float


def wait_for(predicate: Callable[[], Any], timeout_s: float, what: str) -> Any:
    """Poll `predicate` until it returns something truthy; fail naming `what`."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = predicate()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.05)


class Fleet:
    """Worker processes on one database, their step markers, and a client to the queue."""

    def __init__(self, db: str, workdir: Path) -> None:
        self.db = db
        self.workdir = workdir
        self.markers = workdir / "markers"
        self.block = Path(f"{self.markers}.block")
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self._client: DBOSClient | None = None

    # -- processes ------------------------------------------------------------------------
    def start(
        self,
        executor: str,
        *,
        worker_concurrency: int | None = 1,
        global_concurrency: int | None = None,
        wait: bool = True,
        engine: bool = False,
    ) -> subprocess.Popen[bytes]:
        """Start a worker as `executor` (replacing a dead one of that id); with `engine`,
        launched through mergegate's `DurableEngine` rather than DBOS directly."""
        argv = [sys.executable, str(APP_PATH), "worker", self.db, executor, str(self.markers)]
        if engine:
            argv.append("--engine")
        if worker_concurrency is not None:
            argv += ["--worker-concurrency", str(worker_concurrency)]
        if global_concurrency is not None:
            argv += ["--global-concurrency", str(global_concurrency)]
        log = (self.workdir / f"{executor}.log").open("ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir)
        log.close()
        self.workers[executor] = proc
        if wait:
            self.wait_ready(executor, proc.pid)
        return proc

    def wait_ready(self, executor: str, pid: int, timeout_s: float = 60.0) -> None:
        def ready() -> bool:
            proc = self.workers[executor]
            if proc.poll() is not None:
                raise AssertionError(
                    f"worker {executor} exited {proc.returncode}:\n{self.log(executor)}"
                )
            return any(e.name == "ready" and e.pid == pid for e in self.events())

        wait_for(ready, timeout_s, f"worker {executor} to launch")

    def kill(self, executor: str) -> None:
        """SIGKILL a worker (a host that dies) and reap it."""
        proc = self.workers[executor]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def close(self) -> None:
        """Stop every worker: SIGTERM (DBOS shuts down), then SIGKILL what is left."""
        for proc in self.workers.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.workers.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self._client is not None:
            self._client.destroy()
            self._client = None

    def log(self, executor: str) -> str:
        path = self.workdir / f"{executor}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def recover(self, dead: str, via: str) -> list[str]:
        """Run the admin recovery program for executor `dead`; the ids it re-enqueued."""
        done = subprocess.run(
            [sys.executable, str(APP_PATH), "recover", self.db, dead, "--via", via],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=self.workdir,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    # -- the queue -----------------------------------------------------------------------
    @property
    def client(self) -> DBOSClient:
        if self._client is None:
            self._client = DBOSClient(system_database_url=self.db, application_name=APP)
        return self._client

    def enqueue(
        self, ids: Iterable[str], sleep_s: float = 0.0, workflow: str = "fleet.unit"
    ) -> None:
        for wf_id in ids:
            options: Any = {
                "queue_name": QUEUE,
                "workflow_name": workflow,
                "workflow_id": wf_id,
                "app_version": VERSION,
            }
            args = (wf_id, sleep_s) if workflow == "fleet.unit" else (wf_id,)
            self.client.enqueue(options, *args)

    def statuses(self, ids: list[str]) -> dict[str, tuple[str, str | None]]:
        """`{id: (status, executor_id)}` for the given workflows."""
        found = self.client.list_workflows(workflow_ids=ids, load_input=False, load_output=False)
        return {w.workflow_id: (str(w.status), w.executor_id) for w in found}

    def wait_done(
        self, ids: list[str], timeout_s: float = 90.0
    ) -> dict[str, tuple[str, str | None]]:
        def done() -> dict[str, tuple[str, str | None]] | None:
            now = self.statuses(ids)
            return (
                now
                if len(now) == len(ids) and all(s in TERMINAL for s, _ in now.values())
                else None
            )

        return wait_for(done, timeout_s, f"{len(ids)} workflows to finish")

    # -- what the steps recorded ---------------------------------------------------------------
    def events(self, name: str | None = None, item: str | None = None) -> list[Event]:
        if not self.markers.exists():
            return []
        found = []
        for line in self.markers.read_text().splitlines():
            event, wf, executor, pid, at = line.split()
            if (name is None or event == name) and (item is None or wf == item):
                found.append(Event(event, wf, executor, int(pid), float(at)))
        return found


def peak_overlap(spans: Iterable[tuple[float, float]]) -> int:
    """The largest number of `(start, end)` intervals open at one moment."""
    spans = list(spans)  # read twice below: a generator would count only the starts
    points = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    running = peak = 0
    for _, delta in points:
        running += delta
        peak = max(peak, running)
    return peak


def no_process_left(pids: Iterable[int]) -> bool:
    """True when none of these pids is a live (non-zombie) process."""
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            return False
    return True
