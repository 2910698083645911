"""The run engine (layer L3): `mergegate run` executes a plan with implementer agents, a strict
two-stage review after every task (through `mergegate.review`'s steps), bounded fix rounds,
exactly-once merges and a verification at every phase boundary (`mergegate.verify`), on
durable state (`mergegate.store`). See docs/run.md.
"""

from __future__ import annotations

from mergegate.engine._context.journal import RunCounts
from mergegate.engine._context.orphans import kill_orphans
from mergegate.engine._context.plan_views import (
    compute_waves,
    task_checks,
    task_spec,
    validate_plan,
)
from mergegate.engine._context.run_agents import (
    AgentSpec,
    Budget,
    Metered,
    RunAgents,
    build_backend,
)
from mergegate.engine._context.run_events import EventSink, RunEvent
from mergegate.engine._context.runtime import EngineRunRecord, RunOptions
from mergegate.engine._fleet.admin import (
    fleet_database_url,
    fleet_status,
    fleet_workers,
    recover_worker,
    settle_global_concurrency,
)
from mergegate.engine._fleet.worker import Worker, WorkerOptions, enqueue_run
from mergegate.engine._records.run_report import CancelReport, OrphanEntry, RunReport, UnitEntry
from mergegate.engine._runs.cancel import cancel_run
from mergegate.engine._runs.create import RunRequest, create_run, dry_run_lines
from mergegate.engine._runs.database import database_url_of
from mergegate.engine._runs.execute import execute_run
from mergegate.engine._runs.gc import GcRequest, RunBranches, gc_runs
from mergegate.engine._runs.logs import (
    AttemptLog,
    LogQuery,
    ShownLog,
    list_attempt_logs,
    read_attempt_log,
)
from mergegate.engine._runs.queries import (
    database_runs,
    latest_run,
    list_runs,
    recorded_agents,
    recorded_card,
    recorded_events,
    recorded_logs,
    recorded_records,
    run_report,
)
from mergegate.engine._runs.resume import Answers, prepare_resume, record_plan_answers
from mergegate.engine._steps.preflight import check_agents, require_ready

__all__ = [
    "AgentSpec",
    "Answers",
    "AttemptLog",
    "Budget",
    "CancelReport",
    "EngineRunRecord",
    "EventSink",
    "GcRequest",
    "LogQuery",
    "Metered",
    "OrphanEntry",
    "RunAgents",
    "RunBranches",
    "RunCounts",
    "RunEvent",
    "RunOptions",
    "RunReport",
    "RunRequest",
    "ShownLog",
    "UnitEntry",
    "Worker",
    "WorkerOptions",
    "build_backend",
    "cancel_run",
    "check_agents",
    "compute_waves",
    "create_run",
    "database_runs",
    "database_url_of",
    "dry_run_lines",
    "enqueue_run",
    "execute_run",
    "fleet_database_url",
    "fleet_status",
    "fleet_workers",
    "gc_runs",
    "kill_orphans",
    "latest_run",
    "list_attempt_logs",
    "list_runs",
    "prepare_resume",
    "read_attempt_log",
    "record_plan_answers",
    "recorded_agents",
    "recorded_card",
    "recorded_events",
    "recorded_logs",
    "recorded_records",
    "recover_worker",
    "require_ready",
    "run_report",
    "settle_global_concurrency",
    "task_checks",
    "task_spec",
    "validate_plan",
]
