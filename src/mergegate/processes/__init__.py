"""Processes: the supervisor, the one place mergegate starts a child process.

Layer L2, below `mergegate.git` and `mergegate.agents`, which run their programs through it.
`mergegate.processes.supervisor` is the only module that imports `subprocess` (ruff
`banned-api` enforces it); the other modules here are its parts:

* `_values`: `Limits`, `StopReason`, `ProcessRecord`, `ProcessOutcome`, `CommandResult`;
* `_environment`: the scrubbed environment of a child;
* `_pump`: one output stream (capped log, tail, line splitting);
* `_groups`: process groups through /proc, and killing a group left by a crash (only one the
  supervisor started: its start time, namespace and tag are checked);
* `_ledger`: where the supervisor reports the processes it starts (the run engine keeps them
  in the run's database, so a crash's leftovers are killed from records no agent wrote);
* `_identity`: a process named so that another can tell whether it still runs (leases), and
  a supervisor whose leftovers a later process kills by its tags' token once it is gone;
* `_interrupt`: a person's Ctrl-C of a run: every child stopped, no caller told how it ended;
* `_reaper`: escaped descendants — the subreaper flag, the tag on each agent's tree, the sweep;
* `_sandbox`: the `Sandbox` a child runs in (bubblewrap: its own namespaces, only the paths
  bound in it); `_sandbox_init`: the sandbox's first process, awaited and reaped by pid.
"""

from __future__ import annotations

from mergegate.processes._environment import (
    SCRUBBED_ENV_NAMES,
    SCRUBBED_ENV_PREFIXES,
    child_environment,
)
from mergegate.processes._groups import (
    group_members,
    host_name,
    kill_recorded_group,
    kill_recorded_groups,
    made_here,
    process_start_ticks,
)
from mergegate.processes._identity import ProcessIdentity, SupervisorRecord, this_supervisor
from mergegate.processes._interrupt import (
    clear_interrupt,
    interrupt,
    interrupted,
    kill_now,
    wait_until_stopped,
)
from mergegate.processes._ledger import ProcessLedger, install_ledger, installed_ledger
from mergegate.processes._reaper import TREE_ENV, become_subreaper, is_subreaper
from mergegate.processes._sandbox import (
    DEFAULT_HOME,
    SYSTEM_LINKS,
    SYSTEM_READ,
    Bind,
    Sandbox,
    bwrap_argv,
    find_bwrap,
    sandbox_environment,
)
from mergegate.processes._values import (
    CommandResult,
    Limits,
    ProcessOutcome,
    ProcessRecord,
    StopReason,
    Stream,
)
from mergegate.processes.supervisor import run_command, sandbox_problem, supervise

__all__ = [
    "DEFAULT_HOME",
    "SCRUBBED_ENV_NAMES",
    "SCRUBBED_ENV_PREFIXES",
    "SYSTEM_LINKS",
    "SYSTEM_READ",
    "TREE_ENV",
    "Bind",
    "CommandResult",
    "Limits",
    "ProcessIdentity",
    "ProcessLedger",
    "ProcessOutcome",
    "ProcessRecord",
    "Sandbox",
    "StopReason",
    "Stream",
    "SupervisorRecord",
    "become_subreaper",
    "bwrap_argv",
    "child_environment",
    "clear_interrupt",
    "find_bwrap",
    "group_members",
    "host_name",
    "install_ledger",
    "installed_ledger",
    "interrupt",
    "interrupted",
    "is_subreaper",
    "kill_now",
    "kill_recorded_group",
    "kill_recorded_groups",
    "made_here",
    "process_start_ticks",
    "run_command",
    "sandbox_environment",
    "sandbox_problem",
    "supervise",
    "this_supervisor",
    "wait_until_stopped",
]
