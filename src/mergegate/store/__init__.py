"""Durable state (layer L2): DBOS Transact on a SQLite file, and the run records.

The one package that owns durable state. `mergegate.engine` declares its workflows and steps
with the decorators here and never imports `dbos` itself, so the Postgres fleet (a later
issue) is a different `EngineConfig.database_url`, not a rewrite.
"""

from __future__ import annotations

from mergegate.store._dbos import (
    ENGINE_SCHEMA,
    POLL_S,
    QUEUE,
    DurableEngine,
    EngineConfig,
    WorkflowState,
    cancel_from_outside,
    child_id,
    enqueue,
    sqlite_url,
    step,
    wait_result,
    workflow,
    workflow_id,
)
from mergegate.store._records import RunRecord, RunState, RunStore, new_run_id

__all__ = [
    "ENGINE_SCHEMA",
    "POLL_S",
    "QUEUE",
    "DurableEngine",
    "EngineConfig",
    "RunRecord",
    "RunState",
    "RunStore",
    "WorkflowState",
    "cancel_from_outside",
    "child_id",
    "enqueue",
    "new_run_id",
    "sqlite_url",
    "step",
    "wait_result",
    "workflow",
    "workflow_id",
]
