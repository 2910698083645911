"""The runs, as the CLI drives them: create one (`create`), execute it (`execute`), resume it
with a person's answers (`resume`), cancel it (`cancel`), read what was recorded (`queries`);
beside them the run's database (`database`) and the leases of the process executing it
(`leases`). Over `_flow`, `_steps`, `_records` and `_context`; under `_fleet`.

One run executes per process: `execute_run` installs the run's `Runtime`, launches the durable
engine on the run's own database (which recovers whatever a crash left pending), starts the
current generation's run workflow unless it exists, waits for it and writes the summary.

Everything a command decides from is read from the run's database (`mergegate.store`): its
card (agents, options, budgets), its plan, a person's answers, the stop request, where its
units and phases stand and the processes it started. A person's answers reach it only through
these functions (`prepare_resume`, `record_plan_answers`, `cancel_run`); the run's folder is
written for people and never read back.
"""
