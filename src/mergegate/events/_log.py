"""Writing and reading a run's event stream: `events.jsonl` in the run directory.

* `EventLog` appends one event per line with a single `write` on an `O_APPEND` descriptor
  (fsynced unless asked not to), so parallel units never interleave inside a line and a crash
  leaves at most a torn last line; an optional `mirror` receives every event too (the run's
  durable state, a live view).
* `read_events` reads a stream back: strict on the kinds this version knows (a line that does
  not validate is an `EventLogError`, exit 2, naming the file and line), tolerant of kinds it
  does not know (kept as `UnknownEvent`), of a torn last line (skipped and counted), and of
  replays (an `event_id` seen before is dropped and counted).
* `HandoffEvents` turns the plain events of `mergegate.handoff` (`handoff.attempt`,
  `handoff.finished`) into typed ones, so a `HandoffRecorder` can write into a run's stream.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from mergegate.errors import UsageError
from mergegate.events._models import (
    KINDS,
    MAX_LINE_BYTES,
    SCHEMA_VERSION,
    EventBase,
    HandoffAttempt,
    HandoffFinished,
    KnownEvent,
)
from mergegate.events._sink import Sink

__all__ = [
    "EVENTS_FILE",
    "Event",
    "EventLog",
    "EventLogError",
    "EventSink",
    "EventStream",
    "HandoffEvents",
    "MemorySink",
    "UnknownEvent",
    "fit_line",
    "handoff_event",
    "parse_event",
    "read_event_lines",
    "read_events",
]

EVENTS_FILE = "events.jsonl"
_KNOWN: TypeAdapter[KnownEvent] = TypeAdapter(KnownEvent)


class EventLogError(UsageError):
    """An event stream that cannot be read: a line of a known kind that does not validate,
    a line that is not JSON (other than a torn last line), or a line longer than the bound."""


class UnknownEvent(BaseModel):
    """An event of a kind (or a schema version) this version does not know: kept as read."""

    model_config = ConfigDict(frozen=True)

    kind: str
    schema_version: int = SCHEMA_VERSION
    event_id: str = ""
    at: datetime | None = None
    run_id: str = ""
    phase: str = ""
    unit: str = ""
    task: str = ""
    data: dict[str, Any]
    """The whole line as read."""


Event: TypeAlias = EventBase | UnknownEvent
"""What a reader gets: a known event model, or an `UnknownEvent`."""


EventSink: TypeAlias = Sink[EventBase]
"""Anything that takes typed events (a log file, a list, a live view)."""


@dataclass
class MemorySink:
    """Keeps events in a list: a test double, and a buffer for live views."""

    events: list[EventBase] = field(default_factory=list)

    def emit(self, event: EventBase) -> None:
        self.events.append(event)


class EventLog:
    """Appends events to `path` (normally `<run dir>/events.jsonl`), one bounded line each."""

    def __init__(
        self,
        path: Path,
        *,
        mirror: Callable[[EventBase], None] | None = None,
        fsync: bool = True,
    ) -> None:
        self.path = path
        self.mirror = mirror
        self.fsync = fsync
        self._lock = threading.Lock()

    @classmethod
    def in_run_dir(cls, run_dir: Path, **options: Any) -> EventLog:
        return cls(run_dir / EVENTS_FILE, **options)

    def emit(self, event: EventBase) -> None:
        """Append `event` as one line of at most `MAX_LINE_BYTES`; then hand it to the mirror.

        Each text field is already cut by its model; an event that still does not fit (many
        long findings of escaped control characters) has its texts and lists cut further,
        with the usual visible mark, until it does."""
        event, data = fit_line(event)
        with self._lock:
            self._append(data)
            if self.mirror is not None:
                self.mirror(event)

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            if written != len(data):  # pragma: no cover - only on a full disk
                raise OSError(f"short write to {self.path}: {written} of {len(data)} bytes")
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)


_KEEP = frozenset({"kind", "schema_version", "event_id", "at", "started_at"})


def fit_line(event: EventBase) -> tuple[EventBase, bytes]:
    """`event` and its JSON line; when the line is over the bound, a copy whose texts and
    lists were cut (texts to 2,000, 1,000, … characters, lists halved) until it fits."""
    limit = 2_000
    data = (event.model_dump_json() + "\n").encode("utf-8")
    while len(data) > MAX_LINE_BYTES and limit >= 8:
        values = {
            k: v if k in _KEEP else _shrink(v, limit)
            for k, v in event.model_dump(mode="json").items()
        }
        event = type(event).model_validate(values)
        data = (event.model_dump_json() + "\n").encode("utf-8")
        limit //= 2
    return event, data


def _shrink(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: max(1, limit - 16)]}…[+{len(value) - limit} chars]"
    if isinstance(value, list):
        return [_shrink(v, limit) for v in value[: max(1, len(value) // 2)]]
    if isinstance(value, dict):
        items = list(value.items())[: max(1, len(value) // 2)]
        return {_shrink(k, limit): _shrink(v, limit) for k, v in items}
    return value


def parse_event(data: Mapping[str, Any]) -> Event:
    """One decoded line as an event: strict for a known kind of this schema version (raises
    `ValidationError`), an `UnknownEvent` for any other kind or a newer schema version."""
    kind = data.get("kind")
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(kind, str) and kind in KINDS and version == SCHEMA_VERSION:
        event: EventBase = _KNOWN.validate_python(data)
        return event
    known_header = {
        k: data[k]
        for k in ("event_id", "run_id", "phase", "unit", "task")
        if isinstance(data.get(k), str)
    }
    return UnknownEvent(
        kind=str(kind),
        schema_version=version if isinstance(version, int) else -1,
        at=_time_or_none(data.get("at")),
        data=dict(data),
        **known_header,
    )


def _time_or_none(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


@dataclass(frozen=True)
class EventStream:
    """A stream as read: its events in file order, and what the reader set aside."""

    events: tuple[Event, ...]
    source: Path | None = None
    """The file read; None for a stream read from the run's database (`read_event_lines`)."""
    unknown: int = 0
    """Events of kinds (or schema versions) this version does not know; kept in `events`."""
    replayed: int = 0
    """Events dropped because an event with the same `event_id` came before."""
    torn: int = 0
    """1 when the last line was cut by a crash (skipped), else 0."""

    def known(self) -> list[EventBase]:
        return [e for e in self.events if isinstance(e, EventBase)]


def read_events(path: Path | str, *, run_id: str | None = None) -> EventStream:
    """Read `path` (an events file, or a run directory holding `events.jsonl`).

    `run_id` fills the run id of events that have none (a stream written outside a run).
    Raises `EventLogError` (exit 2) naming the file and line for a line it must not skip.
    """
    target = Path(path)
    if target.is_dir():
        target = target / EVENTS_FILE
    try:
        handle = target.open("rb")
    except OSError as exc:
        raise EventLogError(f"cannot read {target}: {exc.strerror or exc}") from exc
    with handle:
        return _collect(str(target), _lines(target, handle), run_id, source=target)


def read_event_lines(
    lines: Iterable[str], *, where: str, run_id: str | None = None, first: int = 1
) -> EventStream:
    """Read a stream kept as complete lines elsewhere than a file (the rows of the run's
    database, in the order they were appended), with the rules of `read_events`: strict on
    known kinds, tolerant of unknown ones, replays dropped. `where` names the stream in an
    `EventLogError` (`<where>:<row>: …`, rows numbered from `first`: the rest of a stream
    read before). A line over the bound is an error, as in a file."""

    def numbered() -> Iterator[tuple[int, bytes, bool]]:
        for number, line in enumerate(lines, start=first):
            data = line.encode("utf-8")
            if len(data) > MAX_LINE_BYTES:
                raise EventLogError(f"{where}:{number}: line longer than {MAX_LINE_BYTES} bytes")
            yield number, data, True

    return _collect(where, numbered(), run_id, source=None)


def _lines(target: Path, handle: Any) -> Iterator[tuple[int, bytes, bool]]:
    """`(number, line, complete)`; a line longer than the bound is an error."""
    number = 0
    while True:
        line: bytes = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise EventLogError(f"{target}:{number}: line longer than {MAX_LINE_BYTES} bytes")
        yield number, line, line.endswith(b"\n")


def _collect(
    target: str,
    lines: Iterable[tuple[int, bytes, bool]],
    run_id: str | None,
    *,
    source: Path | None,
) -> EventStream:
    events: list[Event] = []
    seen: set[str] = set()
    unknown = replayed = torn = 0
    for number, line, complete in lines:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if not complete:  # a torn last line: the crash came mid-write
                torn = 1
                continue
            raise EventLogError(f"{target}:{number}: not a JSON line") from None
        if not isinstance(data, dict):
            raise EventLogError(f"{target}:{number}: not a JSON object")
        if run_id and not data.get("run_id"):
            data["run_id"] = run_id
        event = _parse_line(target, number, data)
        if event.event_id and event.event_id in seen:
            replayed += 1
            continue
        seen.add(event.event_id)
        unknown += isinstance(event, UnknownEvent)
        events.append(event)
    return EventStream(tuple(events), source, unknown=unknown, replayed=replayed, torn=torn)


def _parse_line(target: str, number: int, data: dict[str, Any]) -> Event:
    try:
        return parse_event(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = list(first["loc"])
        if loc and loc[0] == data.get("kind"):  # the union's tag, not a field
            loc = loc[1:]
        where = ".".join(str(p) for p in loc) or "(root)"
        raise EventLogError(
            f"{target}:{number}: invalid {data.get('kind')} event: {where}: {first['msg']}"
        ) from None


# ---------------------------------------------------------------- handoffs


def handoff_event(raw: Mapping[str, Any], **context: Any) -> EventBase | None:
    """The typed event for one of `mergegate.handoff`'s plain events (None for other types).
    `context` adds run_id, phase, unit, task (and may override any field)."""
    kind = raw.get("type")
    common = {
        "handoff_type": raw.get("handoff_type") or "unknown",
        "component": raw.get("component") or "",
        "session_id": raw.get("session_id") or "",
        "error_type": raw.get("error_type") or "",
        "duration_s": max(0.0, float(raw.get("duration_s") or 0.0)),
    }
    if isinstance(raw.get("timestamp"), str):
        common["at"] = raw["timestamp"]
    if kind == "handoff.attempt":
        values = {**common, "attempt": raw.get("attempt", 1), "result": raw.get("result")}
        return HandoffAttempt.model_validate({**values, **context})
    if kind == "handoff.finished":
        values = {
            **common,
            "final_status": raw.get("final_status"),
            "attempts": raw.get("attempts", 1),
        }
        return HandoffFinished.model_validate({**values, **context})
    return None


@dataclass(frozen=True)
class HandoffEvents:
    """A `mergegate.handoff.EventSink` that writes typed events into `sink` with `context`:
    `HandoffRecorder(events=HandoffEvents(log, run_id=..., task=...))`."""

    sink: EventSink
    context: Mapping[str, Any] = field(default_factory=dict)

    def emit(self, event: Mapping[str, Any]) -> None:
        typed = handoff_event(event, **self.context)
        if typed is not None:
            self.sink.emit(typed)
