"""Processes: the supervisor, the one place mergegate starts a child process.

Layer L2, below `mergegate.git` and `mergegate.agents`, which run their programs through it.
No other module imports `subprocess` (ruff `banned-api` enforces it).
"""

from __future__ import annotations

from mergegate.processes.supervisor import (
    SCRUBBED_ENV_NAMES,
    SCRUBBED_ENV_PREFIXES,
    CommandResult,
    Limits,
    ProcessOutcome,
    ProcessRecord,
    StopReason,
    Stream,
    child_environment,
    group_members,
    kill_recorded_group,
    process_start_ticks,
    run_command,
    supervise,
)

__all__ = [
    "SCRUBBED_ENV_NAMES",
    "SCRUBBED_ENV_PREFIXES",
    "CommandResult",
    "Limits",
    "ProcessOutcome",
    "ProcessRecord",
    "StopReason",
    "Stream",
    "child_environment",
    "group_members",
    "kill_recorded_group",
    "process_start_ticks",
    "run_command",
    "supervise",
]
