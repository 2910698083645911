"""The run engine (layer L3): `mergegate run` executes a plan with implementer agents, a strict
two-stage review after every task, bounded fix rounds and exactly-once merges, on durable
state (`mergegate.store`). See docs/run.md.
"""

from __future__ import annotations

from mergegate.engine._api import (
    RunRequest,
    answer_checkpoints,
    cancel_run,
    create_run,
    dry_run_lines,
    execute_run,
    kill_orphans,
    list_runs,
    run_report,
)
from mergegate.engine._backends import AgentSpec, make_backend
from mergegate.engine._plan import compute_waves, task_spec, validate_plan
from mergegate.engine._runtime import RunOptions
from mergegate.engine.events import EventSink, RunEvent

__all__ = [
    "AgentSpec",
    "EventSink",
    "RunEvent",
    "RunOptions",
    "RunRequest",
    "answer_checkpoints",
    "cancel_run",
    "compute_waves",
    "create_run",
    "dry_run_lines",
    "execute_run",
    "kill_orphans",
    "list_runs",
    "make_backend",
    "run_report",
    "task_spec",
    "validate_plan",
]
