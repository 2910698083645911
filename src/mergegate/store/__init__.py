"""Durable state (layer L2): DBOS Transact on a SQLite file, and the run records.

The one package that owns durable state. `mergegate.engine` declares its workflows and steps
with the decorators here and never imports `dbos` itself, so the Postgres fleet (a later
issue) is a different `EngineConfig.database_url`, not a rewrite.
"""

from __future__ import annotations

from mergegate.store._dbos import (
    APP_VERSION,
    ENGINE_SCHEMA,
    FLEET_APP,
    POLL_S,
    QUEUE,
    RUN_QUEUE,
    DatabaseUnavailableError,
    DurableEngine,
    EngineConfig,
    ExecutorWork,
    WorkflowState,
    app_name_for_run,
    cancel_from_outside,
    child_id,
    enqueue,
    enqueue_from_outside,
    executor_work,
    finished_result,
    recover_from_outside,
    sqlite_url,
    step,
    wait_result,
    workflow,
    workflow_id,
    workflow_inputs,
)
from mergegate.store._records import RunRecord, RunState, RunStore, new_run_id
from mergegate.store._workers import Roll, WorkerBeat

__all__ = [
    "APP_VERSION",
    "ENGINE_SCHEMA",
    "FLEET_APP",
    "POLL_S",
    "QUEUE",
    "RUN_QUEUE",
    "DatabaseUnavailableError",
    "DurableEngine",
    "EngineConfig",
    "ExecutorWork",
    "Roll",
    "RunRecord",
    "RunState",
    "RunStore",
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
    "recover_from_outside",
    "sqlite_url",
    "step",
    "wait_result",
    "workflow",
    "workflow_id",
    "workflow_inputs",
]
