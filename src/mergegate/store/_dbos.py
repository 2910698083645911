"""DBOS Transact behind one small seam: the only module of mergegate that imports `dbos`.

DBOS keeps workflow state in a system database: a SQLite file by default (embedded, no
server), Postgres for a fleet later (issue 16: a different `database_url`, nothing else). What
mergegate relies on, pinned by `tests/test_store_dbos.py` so a DBOS upgrade that changes it
fails loudly:

* a workflow re-runs from its last completed step after the process dies, and a completed step
  is never executed again (its recorded output is returned instead);
* recovery happens at launch, for this `executor_id` and this `application_version` only; both
  are therefore fixed (`local`, and mergegate's version plus `ENGINE_SCHEMA`), never DBOS's
  default hash of the workflow source, which would strand a run after any code change;
* a queue with `worker_concurrency` runs at most that many workflows at once, polled every
  0.1 s (DBOS's default of 1 s would add a second to every unit);
* recovery puts pending workflows on DBOS's internal queue, which is polled every 0.1 s too
  (its default of 1 s would add a second to every resume, and to every child workflow a
  recovered parent waits for): set through DBOS's registry before launch; and a workflow
  that waits for a child another thread runs (a recovered unit and its recovered task) polls
  every 0.1 s, not 1 s (`dbos._core.DEFAULT_POLLING_INTERVAL`). These are the uses of
  private DBOS names, pinned by the contract tests;
* starting a workflow under an id that already finished returns its recorded result.

DBOS is a process-wide singleton; `DurableEngine` launches it for one database and shuts it
down again, so a process (or a test) can use several databases one after the other.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from dbos import DBOS, DBOSClient, DBOSConfig, SetWorkflowID, WorkflowHandle
from dbos import _core as dbos_core
from dbos._dbos import _get_or_create_dbos_registry
from dbos._utils import INTERNAL_QUEUE_NAME

from mergegate import __version__

__all__ = [
    "ENGINE_SCHEMA",
    "POLL_S",
    "QUEUE",
    "DurableEngine",
    "EngineConfig",
    "WorkflowState",
    "cancel_from_outside",
    "child_id",
    "enqueue",
    "sqlite_url",
    "step",
    "wait_result",
    "workflow",
    "workflow_id",
]

P = ParamSpec("P")
R = TypeVar("R")

ENGINE_SCHEMA = 3  # 3: the implement step collects its agent-result and consults advisors
"""Bumped whenever workflow code changes the order of its steps: runs recorded by another
schema are not recovered by this one (DBOS matches the application version exactly)."""
QUEUE = "mergegate-units"
POLL_S = 0.1
_MAX_RECOVERY_ATTEMPTS = 1000
_TERMINAL = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})


class WorkflowState:
    """DBOS's workflow status names, as strings (so callers need not import dbos)."""

    PENDING = "PENDING"
    ENQUEUED = "ENQUEUED"
    SUCCESS = "SUCCESS"
    ERROR = "ERROR"
    CANCELLED = "CANCELLED"
    TERMINAL = _TERMINAL


@dataclass(frozen=True)
class EngineConfig:
    """Where the durable state lives and how the engine runs."""

    database_url: str
    """`sqlite:///<path>` (the embedded default) or a `postgresql://` URL."""
    concurrency: int = 2
    """Units (queued workflows) running at once on this executor."""
    executor_id: str = "local"
    application_version: str = f"mergegate-{__version__}-e{ENGINE_SCHEMA}"
    polling_interval_s: float = POLL_S


def sqlite_url(path: Path) -> str:
    """The database URL of a SQLite file, created in WAL mode when new.

    WAL lets `status` read while a run writes, and needs one fsync per commit instead of the
    rollback journal's several; it is a property of the file, so DBOS's own connections use it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        with contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
    return f"sqlite:///{path}"


def workflow(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a durable workflow (deterministic: all I/O happens in steps)."""
    return DBOS.workflow(name=name, max_recovery_attempts=_MAX_RECOVERY_ATTEMPTS)


def step(name: str, *, retries: int = 0) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare a step: its result is recorded once it returns, and never recomputed.

    `retries` re-runs a step that raised (after 0.5 s, then 1 s, ...): for idempotent git
    steps, which can meet a lock left for a moment by a git process of a crashed run.
    """
    if retries:
        return DBOS.step(
            name=name, retries_allowed=True, max_attempts=retries + 1, interval_seconds=0.5
        )
    return DBOS.step(name=name)


@contextlib.contextmanager
def child_id(workflow_id: str) -> Iterator[None]:
    """Start the next workflow (a call, or `enqueue`) under this id: idempotent by id."""
    with SetWorkflowID(workflow_id):
        yield


def enqueue(func: Callable[..., Any], workflow_id: str, *args: Any) -> WorkflowHandle[Any]:
    """Put a workflow on the concurrency-limited queue under `workflow_id`."""
    queue = DBOS.retrieve_queue(QUEUE)
    if queue is None:  # pragma: no cover - launch registers it
        raise RuntimeError(f"queue {QUEUE!r} is not registered")
    with SetWorkflowID(workflow_id):
        return queue.enqueue(func, *args)


def wait_result(handle: WorkflowHandle[Any]) -> Any:
    """The result of a started workflow (inside a workflow: a durable, recorded wait)."""
    return handle.get_result(polling_interval_sec=POLL_S)


def workflow_id() -> str | None:
    """The id of the workflow the caller runs in, if any."""
    return DBOS.workflow_id


class DurableEngine:
    """Launch DBOS on one database, start and watch workflows, shut it down.

    Only one engine can be launched per process at a time (DBOS is a singleton).
    """

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self._launched = False

    def launch(self) -> None:
        """Open the database (creating it), recover this executor's pending workflows,
        register the queue. Recovery starts in the background at once."""
        logging.getLogger("dbos").setLevel(logging.WARNING)
        config: DBOSConfig = {
            "name": "mergegate",
            "system_database_url": self.config.database_url,
            "application_version": self.config.application_version,
            "executor_id": self.config.executor_id,
            "log_level": "WARNING",
            "notification_listener_polling_interval_sec": self.config.polling_interval_s,
            "sys_db_pool_size": 8,
        }
        DBOS(config=config)
        dbos_core.DEFAULT_POLLING_INTERVAL = self.config.polling_interval_s
        # the internal queue (recovery) is made on first use with a 1 s polling interval
        _get_or_create_dbos_registry()._register_internal_queue(
            INTERNAL_QUEUE_NAME, polling_interval_sec=self.config.polling_interval_s
        )
        DBOS.launch()
        self._launched = True
        DBOS.register_queue(
            QUEUE,
            worker_concurrency=self.config.concurrency,
            polling_interval_sec=self.config.polling_interval_s,
            on_conflict="always_update",
        )

    def shutdown(self) -> None:
        """Stop DBOS without waiting for workflows: pending ones stay pending and are
        recovered by the next launch on the same database."""
        if self._launched:
            DBOS.destroy(destroy_registry=False)
            self._launched = False

    def __enter__(self) -> DurableEngine:
        self.launch()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def start(self, func: Callable[..., Any], wf_id: str, *args: Any) -> str:
        """Start `func(*args)` in the background under `wf_id` (a no-op if it exists)."""
        with SetWorkflowID(wf_id):
            DBOS.start_workflow(func, *args)
        return wf_id

    def status(self, wf_id: str) -> str | None:
        """The workflow's status name, or None when there is no such workflow."""
        found = DBOS.get_workflow_status(wf_id)
        return None if found is None else str(found.status)

    def wait(
        self, wf_id: str, *, timeout_s: float | None = None, tick: Callable[[], None] = lambda: None
    ) -> str | None:
        """Poll until the workflow is terminal (or the timeout passes); its last status.

        `tick` runs between polls (the CLI refreshes its live view there).
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            state = self.status(wf_id)
            if state in _TERMINAL:
                return state
            if deadline is not None and time.monotonic() >= deadline:
                return state
            tick()
            time.sleep(self.config.polling_interval_s)

    def result(self, wf_id: str) -> Any:
        """The recorded result of a finished workflow (raises what the workflow raised)."""
        return DBOS.retrieve_workflow(wf_id).get_result(polling_interval_sec=POLL_S)

    def active(self) -> list[str]:
        """Ids of workflows still pending or enqueued in this database."""
        found = DBOS.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED],
            load_input=False,
            load_output=False,
        )
        return [w.workflow_id for w in found]

    def cancel_all(self) -> list[str]:
        """Cancel every pending or enqueued workflow; returns their ids."""
        ids = self.active()
        for wf_id in ids:
            DBOS.cancel_workflow(wf_id)
        return ids


def cancel_from_outside(database_url: str) -> list[str]:
    """Cancel every pending or enqueued workflow of a database without launching DBOS here
    (a launch would recover them into this process). A running orchestrator sees the
    cancellation at its next step; a crashed one's workflows are never recovered again."""
    client = DBOSClient(system_database_url=database_url)
    try:
        found = client.list_workflows(
            status=[WorkflowState.PENDING, WorkflowState.ENQUEUED],
            load_input=False,
            load_output=False,
        )
        ids = [w.workflow_id for w in found]
        if ids:
            client.cancel_workflows(ids)
        return ids
    finally:
        client.destroy()
