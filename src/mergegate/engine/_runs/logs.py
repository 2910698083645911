"""`mergegate logs`: a run's agent attempts, and one attempt's whole log, from any host with
the database URL.

The attempt rows (`store.AttemptRecord`) say where each log is (host, path), its size and
SHA-256; the log itself is on the disk of the host that ran it, and its copy, shipped when the
attempt ended, in the database or the `file:///` log store (`store.LogCopies`). A log is shown
only when its bytes are exactly the ones recorded — the file on this host, else the shipped
copy, each hashed first: a file rewritten since, or a copy altered in the database or the
store, is refused (`LogIntegrityError`, exit 1), never shown. Which attempt comes only from the
rows: a task given as the start of the attempts' folder paths, the role and the attempt's
number as `logs RUN` lists them.
"""

from __future__ import annotations

import hashlib
import socket
from dataclasses import dataclass
from pathlib import Path

from mergegate.engine._context.attempt_rows import copy_problem
from mergegate.errors import LogIntegrityError, LogUnavailableError, UsageError
from mergegate.ids import AttemptPath
from mergegate.store import SHIP_MAX_BYTES, AttemptRecord, LogCopies, RunRows, RunStore

__all__ = ["AttemptLog", "LogQuery", "ShownLog", "list_attempt_logs", "read_attempt_log"]


@dataclass(frozen=True)
class LogQuery:
    """Which attempts: of `run_id`, under `task` (the start of their folder paths: `P1/U1/T1`,
    `U1/T1` when one phase has it, `P1/U1` for a unit), of `role`; `number`: the n-th of
    `task`'s attempts as listed (1-based; None: the last one selected)."""

    state_dir: Path
    run_id: str
    database_url: str | None = None
    task: str | None = None
    role: str | None = None
    number: int | None = None


@dataclass(frozen=True)
class AttemptLog:
    """One attempt as `logs RUN` lists it."""

    task: str
    """The first three parts of its folder's path (its phase, unit and task)."""
    number: int
    """Its place among its task's attempts, from 1: what `--attempt N` names."""
    record: AttemptRecord
    where: str
    """`here` (the file on this host, at its size), `shipped` (a copy stored), `collected`
    (`gc` deleted the copy), `not shipped`, or `no log`."""

    def as_dict(self) -> dict[str, object]:
        r = self.record
        return {
            "task": self.task,
            "number": self.number,
            "attempt": r.attempt,
            "role": r.role,
            "status": r.status,
            "host": r.host,
            "log_path": r.log_path,
            "size": r.log_bytes,
            "sha256": r.log_sha256,
            "log": self.where,
        }


@dataclass(frozen=True)
class ShownLog:
    """One attempt's log, its content checked against its row."""

    attempt: AttemptLog
    data: bytes
    source: str
    """`this host` (the file the attempt wrote) or `shipped copy`."""
    note: str = ""
    """Why the copy was read although this host has a file at the path (it was rewritten)."""


def list_attempt_logs(query: LogQuery) -> list[AttemptLog]:
    """The run's attempts, numbered per task, under `query.task` and of `query.role` if
    given; `UsageError` (exit 2) for a run no database holds, or a task or role none has."""
    rows = RunStore(query.state_dir, query.database_url).rows(query.run_id)
    listed = _numbered(rows)
    if query.task is not None:
        listed = _under(listed, query.task, query.run_id)
    if query.role is not None:
        listed = [a for a in listed if a.record.role == query.role]
        if not listed:
            within = f" under {query.task}" if query.task else ""
            raise UsageError(f"run {query.run_id} has no {query.role} attempt{within}")
    return listed


def read_attempt_log(query: LogQuery) -> ShownLog:
    """The log of the attempt `query` selects, exactly as recorded; `UsageError` (exit 2) for
    an unknown run, task, role or attempt number, `LogIntegrityError` (exit 1) when the only
    bytes found are not the recorded ones, `LogUnavailableError` (exit 4) when none can be
    read here."""
    if query.task is None:
        raise UsageError("name the TASK whose log to print (mergegate logs RUN lists them)")
    rows = RunStore(query.state_dir, query.database_url).rows(query.run_id)
    chosen = _chosen(list_attempt_logs(query), query)
    return _read(rows, chosen)


def _numbered(rows: RunRows) -> list[AttemptLog]:
    host = socket.gethostname()[:255]
    copies = LogCopies(rows.db)
    collected = rows.logs_collected() is not None
    counts: dict[str, int] = {}
    listed = []
    for record in rows.attempts():
        task = AttemptPath.parse(record.attempt).task.format()
        counts[task] = counts.get(task, 0) + 1
        where = _where(record, host, copies, collected)
        listed.append(AttemptLog(task, counts[task], record, where))
    return listed


def _where(record: AttemptRecord, host: str, copies: LogCopies, collected: bool) -> str:
    if not record.log_path or not record.log_sha256:
        return "no log"
    if _here(record, host):
        return "here"
    if copies.db.has_blob(record.log_sha256):
        return "shipped"
    return "collected" if collected else "not shipped"


def _here(record: AttemptRecord, host: str) -> bool:
    if record.host != host:
        return False
    try:
        return Path(record.log_path).stat().st_size == record.log_bytes
    except OSError:
        return False


def _under(listed: list[AttemptLog], task: str, run_id: str) -> list[AttemptLog]:
    """The attempts whose folder path starts with `task`'s parts; else, when none does, those
    whose path without its phase does (`U1/T1`)."""
    parts = AttemptPath.prefix(task)
    found = [a for a in listed if AttemptPath.parse(a.record.attempt).starts_with(parts)]
    if not found and parts:
        found = [a for a in listed if AttemptPath.parse(a.record.attempt).starts_with(parts, 1)]
    if not found:
        raise UsageError(
            f"run {run_id} has no attempt under {task!r} (mergegate logs {run_id} lists them)"
        )
    return found


def _chosen(selected: list[AttemptLog], query: LogQuery) -> AttemptLog:
    if query.number is None:
        return selected[-1]
    tasks = sorted({a.task for a in selected})
    if len(tasks) > 1:
        raise UsageError(
            f"{query.task!r} names {len(tasks)} tasks of run {query.run_id} "
            f"({', '.join(tasks[:5])}): name one task with --attempt"
        )
    for found in selected:
        if found.number == query.number:
            return found
    role = f"{query.role} " if query.role else ""
    raise UsageError(
        f"task {tasks[0]} of run {query.run_id} has no {role}attempt {query.number} "
        f"(its {role}attempts: {', '.join(str(a.number) for a in selected)})"
    )


def _read(rows: RunRows, chosen: AttemptLog) -> ShownLog:
    r = chosen.record
    name = f"attempt {r.attempt} of run {rows.run_id}"
    if not r.log_path or not r.log_sha256:
        raise LogUnavailableError(f"{name} recorded no log")
    note = ""
    if r.host == socket.gethostname()[:255]:
        data = _file(Path(r.log_path), r.log_bytes)
        if data is not None and hashlib.sha256(data).hexdigest() == r.log_sha256:
            return ShownLog(chosen, data, "this host")
        if data is not None or Path(r.log_path).exists():
            note = f"the file {r.log_path} here is not the log recorded (rewritten since)"
    fetched = LogCopies(rows.db).fetch(r.log_sha256, r.log_bytes)
    if fetched.data is not None:
        return ShownLog(chosen, fetched.data, "shipped copy", note)
    if fetched.refused or (note and fetched.problem == "not shipped"):
        why = fetched.problem if fetched.refused else note
        raise LogIntegrityError(
            f"{name}: refused, not shown: {why} (recorded: {r.log_bytes} bytes, sha256 "
            f"{r.log_sha256})"
        )
    raise LogUnavailableError(f"{name}: {_unavailable(rows, r, fetched.problem)}")


def _unavailable(rows: RunRows, r: AttemptRecord, problem: str) -> str:
    where = f"the log is on host {r.host} at {r.log_path}; its end is in report"
    if r.log_bytes > SHIP_MAX_BYTES:
        return f"larger than {SHIP_MAX_BYTES} bytes, never shipped: {where}"
    return f"{copy_problem(problem, rows.logs_collected())}: {where}"


def _file(path: Path, size: int) -> bytes | None:
    """The file's bytes when it has exactly `size` of them (read at most one more)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(size + 1)
    except OSError:
        return None
    return data if len(data) == size else None
