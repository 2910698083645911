"""`mergegate gc`: the unit and progress branches of finished runs deleted, here and on the
remote the runs shared.

Which branches are a run's comes only from `mergegate.ids` (`UnitBranch.run_prefixes`, each
listed name read back as a unit or progress branch of that run, `integration_branch`), never
from a branch a person named (`run --into`) or a pattern: a branch mergegate did not name for
the run is never touched. The integration branch only with `include_integration`. A run that
is not finished (running, waiting for a person, escalated, failed or interrupted: `resume`
may still continue it from its branches) is refused when named, skipped with
`finished_before`.

The run's shipped agent logs go too (`RunRows.collect_logs`): the copies in `mergegate_blobs`
and their files in a `file:///` log store, except a copy another run's attempt still names
(content-addressed: two runs that shipped the same bytes share one copy, deleted with the
last of them). The attempt rows stay (`report` lists each attempt, its end and hash).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from mergegate.engine._context.runtime import EngineRunRecord
from mergegate.errors import UsageError
from mergegate.git import (
    checked_out_branches,
    delete_branches,
    delete_remote_branches,
    list_branches,
    list_remote_branches,
    remote_url,
)
from mergegate.ids import IdError, UnitBranch, integration_branch
from mergegate.store import RunState, RunStore, StoredLog

__all__ = ["FINISHED", "GcRequest", "RunBranches", "gc_runs"]

FINISHED = frozenset({RunState.COMPLETED, RunState.CANCELLED})
"""The states nothing continues from: a run in any other one may be resumed."""


@dataclass(frozen=True)
class RunBranches:
    """One run's branches that `gc` deleted (or, in a dry run, would delete)."""

    run_id: str
    local: tuple[str, ...]
    """In the repository `gc` ran in."""
    remote: tuple[str, ...]
    remote_url: str | None
    """The remote looked at (`--remote`, else the one the run was queued with), or None."""
    kept: tuple[str, ...] = ()
    """Local branches left alone: checked out in a work tree."""
    logs: tuple[StoredLog, ...] = ()
    """The run's shipped agent logs deleted (no other run names them)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "local": list(self.local),
            "remote": list(self.remote),
            "remote_url": self.remote_url,
            "kept": list(self.kept),
            "logs": [log.as_dict() for log in self.logs],
        }


@dataclass(frozen=True)
class GcRequest:
    """What to collect: one run (`run_id`) or every finished run finished before a time."""

    state_dir: Path
    repo: Path
    database_url: str | None = None
    run_id: str | None = None
    finished_before: datetime | None = None
    remote: str | None = None
    """A remote's name in `repo` or a URL; None: the run's own (`run --queue --remote`)."""
    include_integration: bool = False
    dry_run: bool = False


def gc_runs(request: GcRequest) -> list[RunBranches]:
    """Delete (or, with `dry_run`, list) the branches of the runs `request` selects, each
    run's by compare and swap from the commit listed, locally and on the remote."""
    store = RunStore(request.state_dir, request.database_url)
    if request.run_id is not None:
        records = [_finished(store.load(request.run_id, EngineRunRecord))]
    elif request.finished_before is not None:
        cutoff = _utc(request.finished_before)
        records = [r for r in store.list(EngineRunRecord) if _finished_before(r, cutoff)]
    else:
        raise UsageError("name a RUN or give --finished-before DATE")
    url = remote_url(request.repo, request.remote) if request.remote is not None else None
    selected = tuple(r.run_id for r in records)
    found = []
    for record in records:
        branches = _collect(request, record, url or record.remote)
        logs = store.rows(record.run_id).collect_logs(selected, dry_run=request.dry_run)
        found.append(replace(branches, logs=tuple(logs)))
    return _listed_once(found) if request.dry_run else found


def _listed_once(found: list[RunBranches]) -> list[RunBranches]:
    """A dry run's lists with each shared copy under the first run that lists it (collected
    together, it goes once)."""
    seen: set[str] = set()
    once = []
    for run in found:
        logs = tuple(log for log in run.logs if log.sha256 not in seen)
        seen.update(log.sha256 for log in logs)
        once.append(replace(run, logs=logs))
    return once


def _finished(record: EngineRunRecord) -> EngineRunRecord:
    if record.status not in FINISHED:
        raise UsageError(
            f"run {record.run_id} is {record.status.value}, not finished (completed or "
            "cancelled): resume may still need its branches; nothing was deleted"
        )
    return record


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _finished_before(record: EngineRunRecord, cutoff: datetime) -> bool:
    if record.status not in FINISHED or not record.finished:
        return False
    try:
        return _utc(datetime.fromisoformat(record.finished)) < cutoff
    except ValueError:  # a card mergegate did not write: not proof the run is old
        return False


def _ours(run_id: str, name: str, integration: tuple[str, ...]) -> bool:
    """Whether `name` reads back as a unit or progress branch of `run_id` (or is its
    integration branch, when asked for)."""
    if name in integration:
        return True
    for parse in (UnitBranch.parse, UnitBranch.parse_progress):
        try:
            return parse(name).run_id == run_id
        except IdError:
            continue
    return False


def _collect(request: GcRequest, record: EngineRunRecord, url: str | None) -> RunBranches:
    run_id = record.run_id
    prefixes = UnitBranch.run_prefixes(run_id)
    integration = (integration_branch(run_id),) if request.include_integration else ()
    local = {
        n: s
        for n, s in list_branches(request.repo, prefixes, integration).items()
        if _ours(run_id, n, integration)
    }
    busy = checked_out_branches(request.repo)
    kept = tuple(sorted(n for n in local if n in busy))
    local = {n: s for n, s in local.items() if n not in busy}
    remote: dict[str, str] = {}
    if url is not None:
        listed = list_remote_branches(request.repo, url, prefixes, integration)
        remote = {n: s for n, s in listed.items() if _ours(run_id, n, integration)}
    if not request.dry_run:
        local_done = tuple(delete_branches(request.repo, local))
        remote_done = tuple(delete_remote_branches(request.repo, url, remote)) if url else ()
    else:
        local_done, remote_done = tuple(sorted(local)), tuple(sorted(remote))
    return RunBranches(run_id, local_done, remote_done, url, kept)
