"""What a run writes for people and reads back for `status`: the run summary (`summary`), the
unit records and conflict packages (`unit_records`), a task's review report (`task_report`),
where a run stands and what to do next (`run_status`). Over `_context` only."""
