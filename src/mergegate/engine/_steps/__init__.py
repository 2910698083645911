"""The durable steps a task and a phase are made of: agent runs, commits, checks, git and people
(`core`), the implementer's turn with its handoff and help requests (`implementer_turn`), the
review stage (`review_stage`), the phase-boundary check and GSD write-back (`phase_check`), and
the preflight of a run's agents (`preflight`). Over `_records` and `_context`."""
