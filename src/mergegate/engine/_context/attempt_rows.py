"""An agent attempt as a row of the run's database (`store.AttemptRecord`), its log by reference.

The agent's log stays where the backend wrote it, on the disk of the host that ran the attempt
(a worker's attempt folder); the row names the host and the path, and keeps the log's size,
the SHA-256 of its content and its last `EXCERPT_CHARS` characters, so `status`, `report` or a
person on any host with the database URL can read how the attempt ended and check that a
shipped copy of the log is the one it wrote. Reading is linear and bounded: the log is hashed
in chunks and only its end is decoded. The excerpt is agent output (untrusted): readers escape.
When the attempt ends, the worker that ran it ships the whole log (`ship_log`: into the
database, or the object store `[engine] log_store` names; bounded, content-addressed by the
row's SHA-256, see `mergegate.store.LogCopies`). `report` on another host (`report_logs`)
writes the shipped copy beside its page once its content matches the row's SHA-256, and shows
the row's end, with the host and path of the original, for a log that was not shipped.
"""

from __future__ import annotations

import hashlib
import socket
from dataclasses import replace
from pathlib import Path

from mergegate.agents.base import AgentResult
from mergegate.atomic_files import write_atomic
from mergegate.report import ReportLog
from mergegate.store import (
    EXCERPT_CHARS,
    SHIP_MAX_BYTES,
    AttemptRecord,
    LogCopies,
    LogsCollected,
    RunRows,
)

__all__ = [
    "COPIES_DIR",
    "attempt_record",
    "copy_problem",
    "log_digest",
    "report_logs",
    "ship_log",
]

COPIES_DIR = "shipped-logs"
"""The folder, in a run's folder on a host, of the logs `report` copied there from others."""
_CHUNK = 1 << 20
_ERROR_CHARS = 1_000


def log_digest(path: Path) -> tuple[int, str, str]:
    """(size in bytes, SHA-256 hex, its last `EXCERPT_CHARS` characters) of the file at `path`;
    (0, "", "") when it cannot be read. Undecodable bytes become U+FFFD, and so does NUL (which
    PostgreSQL's text refuses)."""
    digest = hashlib.sha256()
    size = 0
    tail = b""
    # the most bytes `EXCERPT_CHARS` UTF-8 characters take, and a character cut in front
    keep = EXCERPT_CHARS * 4 + 3
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
                tail = (tail + chunk)[-keep:]
    except OSError:
        return 0, "", ""
    text = tail.decode("utf-8", "replace").replace("\x00", "\ufffd")
    return size, digest.hexdigest(), text[-EXCERPT_CHARS:]


def attempt_record(
    run_dir: Path, attempt_dir: Path, result: AgentResult, role: str
) -> AttemptRecord:
    """The row of the attempt that ran in `attempt_dir` (a folder of the run's) and ended with
    `result`."""
    try:
        where = attempt_dir.resolve().relative_to(run_dir.resolve()).as_posix()
    except ValueError:
        where = attempt_dir.as_posix()
    log = result.log_path
    size, sha, excerpt = log_digest(log) if log is not None else (0, "", "")
    error = (result.error or "").replace("\x00", "\ufffd")
    return AttemptRecord(
        attempt=where[-1_000:],
        role=role,
        backend=result.backend[:200],
        status=str(result.status.value),
        exit_code=result.exit_code,
        duration_s=result.duration_s,
        tokens=result.usage.total_tokens,
        cost_usd=result.cost_usd,
        session_id=(result.session_id or None) and result.session_id[:200],
        error=error[:_ERROR_CHARS],
        host=socket.gethostname()[:255],
        log_path="" if log is None else str(log)[:4_096],
        log_bytes=size,
        log_sha256=sha,
        log_excerpt=excerpt,
    )


def _on_this_host(record: AttemptRecord, host: str) -> bool:
    """The attempt's log is here: written on this host, and the file it names still there
    at the size recorded (a state directory deleted or rewritten is not the log)."""
    if not record.log_path or record.host != host:
        return False
    try:
        return Path(record.log_path).stat().st_size == record.log_bytes
    except OSError:
        return False


def ship_log(rows: RunRows, record: AttemptRecord, store_url: str | None) -> bool:
    """Ship the attempt's log off this host (the row's log, if it is still that content and
    at most `SHIP_MAX_BYTES`); True when a copy is stored."""
    if not record.log_path or not record.log_sha256:
        return False
    copies = LogCopies(rows.db, store_url)
    return copies.ship(Path(record.log_path), record.log_sha256, record.log_bytes)


def report_logs(rows: RunRows | None, copies_dir: Path | None = None) -> list[ReportLog]:
    """The run's agent logs as the report shows them, from its attempt rows: the file's
    path when it is on this host; else, with `copies_dir`, the shipped copy written there
    (`<sha256>.log`, once its content matches the row's SHA-256); else where it is and its
    end (`EXCERPT_CHARS`), and why no copy is here. None without rows."""
    if rows is None:
        return []
    host = socket.gethostname()[:255]
    copies = LogCopies(rows.db)
    collected = rows.logs_collected()
    shown = []
    for a in rows.attempts():
        log = ReportLog(
            attempt=a.attempt,
            role=a.role,
            status=a.status,
            host=a.host,
            path=a.log_path,
            size=a.log_bytes,
            sha256=a.log_sha256,
            excerpt=a.log_excerpt,
            here=_on_this_host(a, host),
        )
        if not log.here and log.path and copies_dir is not None:
            log = _copied(log, copies, copies_dir, collected)
        shown.append(log)
    return shown


def copy_problem(problem: str, collected: LogsCollected | None) -> str:
    """Why no shipped copy of a log can be read (`FetchedLog.problem`), told with what the
    run's rows know: a copy missing from a run whose logs `gc` collected was deleted by it,
    at the time it recorded (the run is marked before any copy goes)."""
    if problem == "not shipped" and collected is not None:
        return f"its shipped copy was deleted by mergegate gc at {collected.at}"
    return problem


def _copied(
    log: ReportLog, copies: LogCopies, copies_dir: Path, collected: LogsCollected | None
) -> ReportLog:
    """`log` with its shipped copy written under `copies_dir`, or with why there is none."""
    if log.size > SHIP_MAX_BYTES:
        return replace(log, problem=f"not shipped: larger than {SHIP_MAX_BYTES} bytes")
    target = copies_dir / f"{log.sha256}.log"
    try:
        if target.stat().st_size == log.size and log_digest(target)[1] == log.sha256:
            return replace(log, path=str(target), here=True, copy_of=log.host)
    except OSError:
        pass  # not copied here yet
    fetched = copies.fetch(log.sha256, log.size)
    if fetched.data is None:
        return replace(log, problem=copy_problem(fetched.problem, collected))
    try:
        write_atomic(target, fetched.data, durable=False)
    except OSError as exc:
        return replace(log, problem=f"its copy cannot be written here: {exc.strerror or exc}")
    return replace(log, path=str(target), here=True, copy_of=log.host)
