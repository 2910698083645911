"""Processes: the supervisor, the one place mergegate starts a child process.

Layer L2, below `mergegate.git` and `mergegate.agents`, which run their programs through it.
`mergegate.processes.supervisor` is the only module that imports `subprocess` (ruff
`banned-api` enforces it); the other modules here are its parts:

* `_values`: `Limits`, `StopReason`, `ProcessRecord`, `ProcessOutcome`, `CommandResult`;
* `_environment`: the scrubbed environment of a child;
* `_pump`: one output stream (capped log, tail, line splitting);
* `_groups`: process groups through /proc, and killing a group left by a crash.
"""

from __future__ import annotations

from mergegate.processes._environment import (
    SCRUBBED_ENV_NAMES,
    SCRUBBED_ENV_PREFIXES,
    child_environment,
)
from mergegate.processes._groups import group_members, kill_recorded_group, process_start_ticks
from mergegate.processes._values import (
    CommandResult,
    Limits,
    ProcessOutcome,
    ProcessRecord,
    StopReason,
    Stream,
)
from mergegate.processes.supervisor import run_command, supervise

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
