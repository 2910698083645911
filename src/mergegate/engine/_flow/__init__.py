"""The durable workflows: run, phase and unit (`workflows`), the task pipeline (`task_pipeline`),
tasks set aside (`aside`), a person taking a task over (`takeover`) and their answers checked
against the run's state (`answers`). Over `_steps`, `_records` and `_context`."""
