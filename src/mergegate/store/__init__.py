"""Durable state (layer L2): DBOS Transact, and mergegate's own tables beside it.

The one package that owns durable state and touches the database: DBOS's workflows and steps
(`_dbos`), the runs' cards, plans and the state they decide from (`_records`, over the tables
of `_tables`), the agent logs shipped off the host that ran them (`_blobs`), and the fleet's
roll call (`_workers`). `mergegate.engine` declares its
workflows and steps with the decorators here and never imports `dbos` itself; their typed
arguments and results (pydantic models) are dumped for DBOS and validated back in one place,
`Seam`.
"""

from __future__ import annotations

from mergegate.store._blobs import SHIP_MAX_BYTES, FetchedLog, LogCopies
from mergegate.store._dbos import (
    APP_VERSION,
    ENGINE_SCHEMA,
    FLEET_APP,
    IDLE_POLL_S,
    POLL_S,
    QUEUE,
    RUN_QUEUE,
    DatabaseUnavailableError,
    DurableEngine,
    EngineConfig,
    ExecutorWork,
    IdlePolls,
    Queued,
    Seam,
    WorkflowState,
    app_name_for_run,
    cancel_from_outside,
    child_id,
    enqueue,
    enqueue_from_outside,
    executor_work,
    finished_result,
    recover_from_outside,
    seam_of,
    sqlite_url,
    step,
    wait_result,
    workflow,
    workflow_id,
    workflow_inputs,
)
from mergegate.store._leases import Lease, Leases, plan_lease, run_lease
from mergegate.store._records import (
    EXCERPT_CHARS,
    AttemptRecord,
    RecordKind,
    RunDocument,
    RunRecord,
    RunRows,
    RunState,
    RunStore,
    StateKind,
    new_run_id,
    stopping_runs,
)
from mergegate.store._tables import SCHEMA_VERSION, Key, Tables, tables
from mergegate.store._workers import Roll, WorkerBeat

__all__ = [
    "APP_VERSION",
    "ENGINE_SCHEMA",
    "EXCERPT_CHARS",
    "FLEET_APP",
    "IDLE_POLL_S",
    "POLL_S",
    "QUEUE",
    "RUN_QUEUE",
    "SCHEMA_VERSION",
    "SHIP_MAX_BYTES",
    "AttemptRecord",
    "DatabaseUnavailableError",
    "DurableEngine",
    "EngineConfig",
    "ExecutorWork",
    "FetchedLog",
    "IdlePolls",
    "Key",
    "Lease",
    "Leases",
    "LogCopies",
    "Queued",
    "RecordKind",
    "Roll",
    "RunDocument",
    "RunRecord",
    "RunRows",
    "RunState",
    "RunStore",
    "Seam",
    "StateKind",
    "Tables",
    "WorkerBeat",
    "WorkflowState",
    "app_name_for_run",
    "cancel_from_outside",
    "child_id",
    "enqueue",
    "enqueue_from_outside",
    "executor_work",
    "finished_result",
    "new_run_id",
    "plan_lease",
    "recover_from_outside",
    "run_lease",
    "seam_of",
    "sqlite_url",
    "step",
    "stopping_runs",
    "tables",
    "wait_result",
    "workflow",
    "workflow_id",
    "workflow_inputs",
]
