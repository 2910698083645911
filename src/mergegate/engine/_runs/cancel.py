"""Cancelling a run: the stop request, its agents killed, its workflows cancelled, the run
marked cancelled and, on request, its work trees removed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mergegate.decisions import ExitCode
from mergegate.engine._context.orphans import kill_orphans
from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.engine._records.run_report import CancelReport
from mergegate.engine._records.summary import (
    build_report,
    write_run_summary,
)
from mergegate.engine._runs.database import check_database
from mergegate.engine._runs.execute import end_stream
from mergegate.git import (
    remove_tree,
    remove_workspace,
)
from mergegate.ids import (
    WorkflowId,
)
from mergegate.store import (
    FLEET_APP,
    RunState,
    RunStore,
    app_name_for_run,
    cancel_from_outside,
    sqlite_url,
)

__all__ = [
    "cancel_run",
]


def cancel_run(
    state_dir: Path, run_id: str, *, clean: bool = False, database_url: str | None = None
) -> CancelReport:
    """Stop a run: no agent starts any more (the stop request, in the run's database, is seen
    by every process and worker of the run before its next agent), every recorded agent
    group still running on this host is killed (and on a fleet worker's host by that worker,
    at its next beat), the workflows are cancelled, the run is marked cancelled. Work trees
    of unfinished units are kept for inspection unless `clean`."""
    store = RunStore(state_dir, database_url)
    record = store.load(run_id, EngineRunRecord)
    rows = store.rows(run_id)
    rows.request_stop("cancelled by mergegate cancel", replace=True, running=True)
    killed = kill_orphans(rows)
    _cancel_workflows(store, record, database_url)
    if record.status in (RunState.RUNNING, RunState.WAITING_FOR_HUMAN):
        record.status, record.exit_code = RunState.CANCELLED, int(ExitCode.AGENT_FAILURE)
        record.message = "cancelled by mergegate cancel"
        record.finished = datetime.now(UTC).isoformat(timespec="seconds")
        store.save(record)
    removed = _clean_worktrees(store, record) if clean else []
    end_stream(store, record, None)
    report = build_report(store, run_id)
    write_run_summary(report)
    return CancelReport(**dict(report), killed_groups=killed, removed_worktrees=removed)


def _cancel_workflows(store: RunStore, record: EngineRunRecord, database_url: str | None) -> None:
    run_id = record.run_id
    if record.database is None:
        cancel_from_outside(sqlite_url(store.database_path(run_id)))
        return
    check_database(record, database_url)
    assert database_url is not None
    if record.fleet:
        cancel_from_outside(database_url, app_name=FLEET_APP, prefix=WorkflowId.of_run(run_id))
    else:
        cancel_from_outside(database_url, app_name=app_name_for_run(run_id))


def _clean_worktrees(store: RunStore, record: EngineRunRecord) -> list[str]:
    """Remove the run's workspaces (and its throwaway checkouts); their paths."""
    root = store.layout.worktrees(record.run_id)
    removed = []
    if root.is_dir():
        for path in sorted(root.iterdir()):
            if not path.name.startswith("."):
                removed.append(str(path))
            remove_workspace(path)
        remove_tree(root)
    return removed
