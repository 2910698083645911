"""A run's typed event stream (`mergegate.events`): written once per event, across crashes.

Every process that executes a run (`mergegate run`, each fleet worker) appends the run's events
to the run's database (`RunRows.append_event`: the `mergegate_events` table, through `store`)
through one `RunJournal` per process; `status`, `stats` and `report` read them from there
(`run_events`), so a process with only the database URL sees the whole run. The journal also
appends each event to `<run dir>/events.jsonl` on its own host, without an fsync: a copy for
people (`tail -f`), never read back while the database has the run's events (a run made before
the table existed has only the file, and is read from it).

Workflow code is replayed after a crash and a step that was in flight runs again, so the same
event can be emitted twice; every event the engine emits therefore carries a **stable id**
derived from where it happened (`<run>/g<gen>/<unit>/…`, a task's key, an attempt folder). The
database keeps each id once per run whichever worker appends it (a unique key), the journal
drops a repeat it has seen (it reads the stream when it opens: a resumed process), and readers
drop repeated ids too (`read_events`), so metrics count each fact once however often the run
was resumed. Before it appends to the file the journal repairs a last line torn by a crash.

Alerts are checked live (`AlertingSink` over an `AlertMonitor` fed with what the file already
holds) and once more over the whole stream at the end of the run (`close_stream`), which also
writes the HTML report.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mergegate.engine._context.attempt_rows import COPIES_DIR, report_logs
from mergegate.events import (
    EVENTS_FILE,
    MAX_LINE_BYTES,
    Alert,
    EventBase,
    EventLog,
    EventLogError,
    EventStream,
    read_events,
)
from mergegate.ids import event_id
from mergegate.metrics import (
    AlertingSink,
    AlertMonitor,
    AlertRules,
    compute_metrics,
)
from mergegate.report import Folded, ReportRecord, report_alerts, write_report
from mergegate.store import DatabaseUnavailableError, RecordKind, RunRows, StreamRead

__all__ = [
    "NoCounts",
    "NullJournal",
    "RunCounts",
    "RunJournal",
    "StreamEnd",
    "close_stream",
    "event_key",
    "place_of",
    "repair_tail",
    "report_records",
    "run_events",
]


class NullJournal:
    """Takes events and keeps none (a runtime built without a run's stream, as in tests)."""

    def emit(self, event: EventBase) -> None:
        del event


def repair_tail(path: Path) -> bool:
    """Cut a last line a crash left without its newline (an append after it would turn the
    torn line into an unreadable one in the middle of the stream). True when it cut one."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    if size == 0:
        return False
    with path.open("rb+") as handle:
        handle.seek(max(0, size - MAX_LINE_BYTES - 1))
        tail = handle.read()
        if tail.endswith(b"\n"):
            return False
        cut = tail.rfind(b"\n")
        keep = size - len(tail) + cut + 1 if cut >= 0 else 0
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return True


def run_events(run_dir: Path, rows: RunRows | None, since: StreamRead | None = None) -> EventStream:
    """The run's stream: from its database when it holds the run's events (every worker's;
    with `since`, a read of them before, only the rows appended after it are parsed), else
    from `<run dir>/events.jsonl` (a run made before the table existed, a run without a
    database). `EventLogError` (exit 2) when neither can be read."""
    if rows is not None:
        stream = rows.read_stream(since).stream
        if stream.events or not (run_dir / EVENTS_FILE).is_file():
            return stream
    return read_events(run_dir)


_RECORD_TITLES = {
    RecordKind.PHASE_SUMMARY: "Phase {} summary",
    RecordKind.VERIFICATION: "Phase {} verification (VERIFICATION.md)",
    RecordKind.UNIT_SUMMARY: "Unit {} summary (SUMMARY.md)",
    RecordKind.TASK_REVIEW: "Review of task {}",
}


def report_records(rows: RunRows | None) -> list[ReportRecord]:
    """The run's records for people as the report shows them (phase and unit summaries,
    task reviews), from its database: the same page on every host. None without rows."""
    if rows is None:
        return []
    return [
        ReportRecord(
            title=_RECORD_TITLES[doc.kind].format(
                "/".join((*doc.key[:-1], f"T{doc.key[-1]}"))
                if doc.kind == RecordKind.TASK_REVIEW
                else "/".join(doc.key)
            ),
            markdown=doc.markdown,
        )
        for doc in rows.documents()
    ]


@dataclass
class _DatabaseFirst:
    """Appends each event to the run's database, then to this host's `events.jsonl` (a copy
    for people: a full local disk loses only the copy)."""

    rows: RunRows
    log: EventLog
    failed: list[str] = field(default_factory=list)

    def emit(self, event: EventBase) -> None:
        self.rows.append_event(event)
        try:
            self.log.emit(event)
        except OSError as exc:
            self.failed.append(f"cannot write {self.log.path}: {exc}")


@dataclass
class RunJournal:
    """The typed event stream of one run, as this process writes it: each event id once,
    alerts checked as events arrive. Thread-safe (a run's units run in parallel threads).

    With `rows` (the run's state in its database) each event goes to the database, and to
    `events.jsonl` as a copy without an fsync; without, to `events.jsonl` only (fsynced unless
    `fsync` is False)."""

    run_dir: Path
    rules: AlertRules = field(default_factory=AlertRules)
    on_alert: Callable[[Alert], None] | None = None
    fsync: bool = True
    seen: set[str] = field(default_factory=set)
    failed: str = ""
    """Why an event could not be written (a full disk, the database gone): the run goes on
    without its picture."""
    rows: RunRows | None = None
    opened: StreamRead | None = field(default=None, init=False)
    """The database's stream as this journal read it when it opened (a resumed run's events
    so far): the end of the run reads only what was appended after it."""
    _sink: AlertingSink = field(init=False)
    _copy: _DatabaseFirst | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        path = self.run_dir / EVENTS_FILE
        repair_tail(path)
        monitor = AlertMonitor(self.rules)
        existing, self.opened = _existing(self.run_dir, self.rows)
        for event in existing:
            self.seen.add(event.event_id)
            if isinstance(event, Alert):
                monitor.raised.add(event.key)
        for event in existing:
            # folded in with the counts the rules keep (a resumed run's rates are over the
            # whole run); what it raises was raised then, or is found at the end of the run
            monitor.observe(event)
        if self.rows is None:
            self._sink = AlertingSink(
                EventLog(path, fsync=self.fsync), monitor, on_alert=self.on_alert
            )
            return
        # the database is the durable copy: an fsync of the file would only cost time
        self._copy = _DatabaseFirst(self.rows, EventLog(path, fsync=False))
        self._sink = AlertingSink(self._copy, monitor, on_alert=self.on_alert)

    @property
    def alerts(self) -> list[Alert]:
        """The alerts this process raised (earlier processes' are in the file)."""
        return list(self._sink.alerts)

    def emit(self, event: EventBase) -> None:
        """Write `event` unless an event with its id was written before; check the alerts."""
        with self._lock:
            if event.event_id in self.seen:
                return
            self.seen.add(event.event_id)
            try:
                self._sink.emit(event)
            except OSError as exc:
                self.failed = self.failed or f"cannot write {self.run_dir / EVENTS_FILE}: {exc}"
            except DatabaseUnavailableError as exc:
                self.failed = self.failed or f"cannot append the run's events: {exc}"
            if self._copy is not None and self._copy.failed and not self.failed:
                self.failed = self._copy.failed[0]


def _existing(run_dir: Path, rows: RunRows | None) -> tuple[list[EventBase], StreamRead | None]:
    """The events already in the stream, and the database's read of them (None when they
    came from the file); none when it cannot be read (a run is never stopped by its own
    log: the next reader reports the bad line)."""
    has_file = (run_dir / EVENTS_FILE).is_file()
    try:
        if rows is None:
            return (read_events(run_dir).known() if has_file else []), None
        read = rows.read_stream()
        found = read.stream.known()
        if found or not has_file:
            return found, read
        # a run begun before its events were rows, continued now: its file's events move in
        # (each id once, so two workers doing this at once append each event once)
        found = read_events(run_dir).known()
        for event in found:
            rows.append_event(event)
        return found, None
    except EventLogError:
        return [], None


_PLACE = re.compile(r"^(?P<phase>[^/]+)/(?P<unit>[^/]+)/(?P<task>[^/]+)/")


def place_of(run_dir: Path, path: Path) -> dict[str, str]:
    """Where a task's record folder (`<run dir>/<phase>/<unit>/<task>/…`) belongs:
    `{phase, unit, task}` (empty values for a folder outside a task)."""
    try:
        relative = path.resolve().relative_to(run_dir.resolve()).as_posix() + "/"
    except ValueError:
        return {"phase": "", "unit": "", "task": ""}
    found = _PLACE.match(relative)
    if found is None:
        return {"phase": "", "unit": "", "task": ""}
    return {"phase": found["phase"], "unit": found["unit"], "task": found["task"]}


def event_key(run_id: str, run_dir: Path, path: Path) -> str:
    """A stable event id for what happened in `path` (a folder of the run's records)."""
    try:
        relative = path.resolve().relative_to(run_dir.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    return event_id(run_id, relative)


class RunCounts(BaseModel):
    """A few counts from a finished run's metrics (the run report's `metrics`)."""

    model_config = ConfigDict(extra="forbid")

    tasks: int
    agent_attempts: int
    tokens: int
    cost_usd: float
    fix_rounds: int
    first_pass_approval_rate: float | None
    merges: int
    escalations: int


class NoCounts(BaseModel):
    """No counts: the run's stream could not be read (the report's `metrics` is `{}`)."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class StreamEnd:
    """What the end of a run adds to its result: the alerts (each once), the report's path,
    and a few counts from the metrics."""

    alerts: list[Alert]
    report: Path | None
    metrics: RunCounts | NoCounts
    error: str = ""
    """Why the stream could not be read or the report written (the run's result stands)."""


def close_stream(run_dir: Path, rules: AlertRules, journal: RunJournal | None) -> StreamEnd:
    """At the end of a run: every alert of the whole stream (those raised live, and any the
    rules find over the stream that were not — written into it), and the HTML report.

    Never raises for a stream or report problem: the run already ended; the problem is
    reported in `error`."""
    rows = journal.rows if journal is not None else None
    try:
        stream = run_events(run_dir, rows, journal.opened if journal is not None else None)
    except EventLogError as exc:
        return StreamEnd([], None, NoCounts(), error=str(exc))
    # one read and one fold of the stream for everything the end of a run reports (the
    # stream of a long run is tens of thousands of events): the alerts the rules find now
    # are written into it and added to the stream as read, not read again
    alerts = report_alerts(stream.known(), rules)
    recorded = sum(isinstance(e, Alert) for e in stream.events)
    late = alerts[recorded:]  # the stream's own alerts come first, then those found now
    if late:
        if journal is not None:
            for alert in late:
                journal.emit(alert)
        stream = replace(stream, events=(*stream.events, *late))
    folded = Folded(compute_metrics(stream.events), tuple(alerts))
    metrics = folded.metrics
    counts = RunCounts(
        tasks=metrics.tasks,
        agent_attempts=metrics.usage.attempts,
        tokens=metrics.usage.total_tokens,
        cost_usd=round(metrics.usage.cost_usd, 6),
        fix_rounds=metrics.fix_rounds,
        first_pass_approval_rate=metrics.first_pass_approval_rate,
        merges=metrics.merges,
        escalations=metrics.escalations,
    )
    try:
        report = write_report(
            run_dir,
            stream=stream,
            rules=rules,
            records=report_records(rows),
            logs=report_logs(rows, run_dir / COPIES_DIR),
            folded=folded,
        )
    except EventLogError as exc:  # pragma: no cover - a report that cannot be written
        return StreamEnd(alerts, None, counts, error=str(exc))
    except OSError as exc:  # pragma: no cover
        return StreamEnd(alerts, None, counts, error=f"cannot write the report: {exc}")
    return StreamEnd(alerts, report, counts)
