"""The typed event stream: every kind round-trips, reading is strict on known kinds and
tolerant of unknown ones, lines stay bounded, replays count once, handoffs map without loss."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from mergegate.agents import AgentResult, HelpSignal, RunStatus, Usage
from mergegate.events import (
    EVENTS_FILE,
    KINDS,
    MAX_LINE_BYTES,
    AgentAttempt,
    EventBase,
    EventLog,
    EventLogError,
    FindingRef,
    HandoffAttempt,
    HandoffEvents,
    HandoffFinished,
    KnownEvent,
    MemorySink,
    UnknownEvent,
    VerdictEvent,
    fit_line,
    read_events,
)
from mergegate.events import _models as models
from mergegate.handoff import HandoffRecorder, request_handoff
from mergegate.metrics import compute_metrics

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

MINIMAL: dict[str, dict[str, Any]] = {
    "run.started": {},
    "run.finished": {"status": "completed"},
    "phase.started": {},
    "phase.finished": {"status": "completed"},
    "wave": {"number": 1, "units": ["u1", "u2"]},
    "unit.started": {},
    "unit.finished": {"status": "merged"},
    "unit.merged": {"commit": "abc"},
    "unit.escalated": {"reason": "conflict"},
    "unit.skipped": {"reason": "depends on u0"},
    "task.started": {"number": 1},
    "task.finished": {"decision": "approved"},
    "step": {"step": "implement", "message": "implementing T1"},
    "notice": {"message": "review is off"},
    "agent.attempt": {"role": "implementer", "backend": "claude", "status": "ok"},
    "verdict": {"decision": "approve"},
    "review.finished": {"status": "approved"},
    "fix.round": {"round": 1},
    "escalation": {"reason": "cap"},
    "handoff.attempt": {"handoff_type": "agent-result", "result": "success"},
    "handoff.finished": {"handoff_type": "agent-result", "final_status": "recovered"},
    "help.requested": {},
    "help.advice": {"advisor": "local", "status": "ok"},
    "merge": {"outcome": "merged"},
    "check": {"command": "pytest -q", "passed": True},
    "verification": {"status": "passed"},
    "alert": {
        "rule": "average_retries",
        "component": "reviewer",
        "value": 2.5,
        "threshold": 2.0,
        "message": "m",
    },
}

_ADAPTER: TypeAdapter[KnownEvent] = TypeAdapter(KnownEvent)


def make(kind: str, **fields: Any) -> EventBase:
    event: EventBase = _ADAPTER.validate_python(
        {"kind": kind, "run_id": "r1", "at": T0, **MINIMAL[kind], **fields}
    )
    return event


def test_every_kind_has_a_minimal_example() -> None:
    assert set(MINIMAL) == KINDS
    assert len(KINDS) >= 27


@pytest.mark.parametrize("kind", sorted(MINIMAL))
def test_every_kind_round_trips_through_the_log(tmp_path: Path, kind: str) -> None:
    event = make(kind, phase="01", unit="u1", task="T1")
    EventLog.in_run_dir(tmp_path).emit(event)
    stream = read_events(tmp_path)
    assert stream.events == (event,)
    assert stream.unknown == stream.replayed == stream.torn == 0
    line = json.loads((tmp_path / EVENTS_FILE).read_text())
    assert line["schema_version"] == 1
    assert line["kind"] == kind


def test_unknown_kinds_and_newer_schema_versions_are_kept_not_crashed_on(tmp_path: Path) -> None:
    log = EventLog.in_run_dir(tmp_path)
    log.emit(make("run.started"))
    with (tmp_path / EVENTS_FILE).open("a") as handle:
        handle.write(json.dumps({"kind": "robot.dance", "at": T0.isoformat(), "moves": 3}) + "\n")
        handle.write(json.dumps({"kind": "verdict", "schema_version": 2, "new": 1}) + "\n")
    log.emit(make("run.finished"))
    stream = read_events(tmp_path)
    assert [e.kind for e in stream.events] == [
        "run.started",
        "robot.dance",
        "verdict",
        "run.finished",
    ]
    assert stream.unknown == 2
    dance = stream.events[1]
    assert isinstance(dance, UnknownEvent)
    assert dance.data["moves"] == 3
    assert dance.at == T0
    assert isinstance(stream.events[2], UnknownEvent)
    assert compute_metrics(stream.events).unknown_events == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"kind": "verdict", "decision": "maybe"}', "invalid verdict event: decision"),
        ('{"kind": "agent.attempt", "role": "robot", "backend": "x", "status": "ok"}', "role"),
        ('{"kind": "check", "command": "x", "passed": true, "surprise": 1}', "surprise"),
        ("not json at all", "not a JSON line"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_known_kinds_are_read_strictly(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / EVENTS_FILE).write_text(make("run.started").model_dump_json() + "\n" + line + "\n")
    with pytest.raises(EventLogError, match=message) as info:
        read_events(tmp_path)
    assert f"{EVENTS_FILE}:2:" in str(info.value)
    assert info.value.exit_code == 2


def test_a_torn_last_line_is_skipped_and_counted(tmp_path: Path) -> None:
    good = make("run.started").model_dump_json()
    (tmp_path / EVENTS_FILE).write_text(good + "\n" + good.replace("r1", "r2")[:40])
    stream = read_events(tmp_path)
    assert len(stream.events) == 1
    assert stream.torn == 1


def test_replayed_events_count_once(tmp_path: Path) -> None:
    log = EventLog.in_run_dir(tmp_path)
    attempt = make("agent.attempt", event_id="r1/u1/T1/a1")
    log.emit(attempt)
    log.emit(attempt)  # a durable step re-run after a crash emits it again
    log.emit(make("agent.attempt", event_id="r1/u1/T1/a2"))
    stream = read_events(tmp_path)
    assert [e.event_id for e in stream.events] == ["r1/u1/T1/a1", "r1/u1/T1/a2"]
    assert stream.replayed == 1
    assert compute_metrics(stream.events).usage.attempts == 2


def test_a_line_over_the_bound_is_refused_when_read(tmp_path: Path) -> None:
    (tmp_path / EVENTS_FILE).write_text('{"kind": "x", "pad": "' + "a" * MAX_LINE_BYTES + '"}\n')
    with pytest.raises(EventLogError, match="longer than"):
        read_events(tmp_path)


def test_missing_stream_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(EventLogError, match="cannot read"):
        read_events(tmp_path / "nowhere")


def test_parallel_writers_never_interleave_inside_a_line(tmp_path: Path) -> None:
    log = EventLog.in_run_dir(tmp_path, fsync=False)

    def write(unit: str) -> None:
        for n in range(200):
            log.emit(make("step", unit=unit, message=f"{unit} {n} " + "x" * 2000))

    threads = [threading.Thread(target=write, args=(f"u{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stream = read_events(tmp_path)
    assert len(stream.events) == 800
    assert {e.unit for e in stream.events} == {"u0", "u1", "u2", "u3"}


def test_the_mirror_sees_every_event_the_log_wrote(tmp_path: Path) -> None:
    mirror = MemorySink()
    log = EventLog.in_run_dir(tmp_path, mirror=mirror.emit)
    events = [make("run.started"), make("task.started", task="T1"), make("run.finished")]
    for event in events:
        log.emit(event)
    assert mirror.events == events
    assert list(read_events(tmp_path).events) == events


# ---------------------------------------------------------------- bounds


def _fill(model: type[BaseModel], text: str) -> dict[str, Any]:
    """Every str field of `model` set to `text`, every list/dict to many long items."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = str(info.annotation)
        if name in ("kind", "schema_version", "at", "started_at"):
            continue
        if annotation.startswith("dict["):
            values[name] = {f"{text}{i}": text for i in range(100)}
        elif "FindingRef" in annotation:
            values[name] = [
                {"id": text, "severity": "minor", "title": text, "file": text, "status": text}
                for _ in range(500)
            ]
        elif annotation.startswith("tuple["):
            values[name] = [text] * 500
        elif "str" in annotation and "Literal" not in annotation:
            values[name] = text
    return values


_MODELS = {str(m.model_fields["kind"].default): m for m in EventBase.__subclasses__()}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(MINIMAL)),
    text=st.text(min_size=0, max_size=50).map(lambda s: s * 4000) | st.just("\x00" * 5000),
)
def test_every_event_fits_one_bounded_line(kind: str, text: str) -> None:
    values = {**MINIMAL[kind], **_fill(_MODELS[kind], text)}
    event = _MODELS[kind].model_validate({"kind": kind, **values})
    fitted, line = fit_line(event)
    assert len(line) <= MAX_LINE_BYTES
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    again = type(event).model_validate_json(line)  # still a valid event of its kind
    assert (again.kind, again.event_id, again.at) == (event.kind, event.event_id, event.at)
    assert again == fitted


def test_untrusted_text_is_cut_with_a_visible_mark() -> None:
    event = VerdictEvent(decision="fixes", evidence="x" * 50_000)
    assert len(event.evidence) <= models.LINE
    assert event.evidence.endswith("chars]")
    assert "+49" in event.evidence


def test_verdict_findings_are_capped_and_the_total_kept() -> None:
    findings = [FindingRef(id=f"F-{i}", severity="minor") for i in range(80)]
    event = VerdictEvent(decision="fixes", findings=findings, findings_total=80)
    assert len(event.findings) == models.MAX_FINDINGS
    assert event.findings_total == 80


def test_naive_times_are_taken_as_utc() -> None:
    event = VerdictEvent(decision="approve", at=datetime(2026, 1, 1, 12))
    assert event.at == datetime(2026, 1, 1, 12, tzinfo=UTC)


# ---------------------------------------------------------------- producers


def test_an_attempt_event_from_an_agent_result() -> None:
    result = AgentResult(
        backend="claude",
        status=RunStatus.TIMEOUT,
        exit_code=None,
        usage=Usage(input_tokens=100, output_tokens=20, cache_read_tokens=5),
        cost_usd=0.25,
        duration_s=301.5,
        error="wall-clock limit reached",
        session_id="s-1",
        signals=(HelpSignal(marker=">>>HELP<<<"),),
    )
    end = T0 + timedelta(seconds=400)
    event = AgentAttempt.from_result(
        result, role="implementer", run_id="r1", task="T1", attempt=2, at=end
    )
    assert event.status == "timeout"
    assert event.timed_out
    assert (event.tokens_in, event.tokens_out, event.cache_read_tokens) == (100, 20, 5)
    assert event.tokens == 125
    assert event.cost_usd == 0.25
    assert event.requested_help
    assert event.started_at == end - timedelta(seconds=301.5)
    assert event.error == "wall-clock limit reached"


class _Ask:
    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    def __call__(self, prompt: str) -> str:
        return self.replies.pop(0)


def test_handoff_events_map_into_the_stream_without_loss(tmp_path: Path) -> None:
    """The real retry loop, writing through `HandoffEvents` into a run's log."""
    log = EventLog.in_run_dir(tmp_path)
    recorder = HandoffRecorder(events=HandoffEvents(log, {"run_id": "r1", "task": "T1"}))
    replies = [
        '{"task_id": "T-1", "success": true',  # truncated
        '{"task_id": "T-1", "success": "yes", "completed_normally": true}',  # schema
        '{"task_id": "T-1", "success": true, "completed_normally": true}',
    ]
    outcome = request_handoff(
        _Ask(replies),
        "report as JSON",
        "agent-result",
        session_id="sess-1",
        component="agent",
        recorder=recorder,
        sleep=lambda _: None,
    )
    assert outcome.ok
    events = read_events(tmp_path).known()
    attempts = [e for e in events if isinstance(e, HandoffAttempt)]
    finished = [e for e in events if isinstance(e, HandoffFinished)]
    assert [a.attempt for a in attempts] == [1, 2, 3]
    assert [a.result for a in attempts] == ["failure", "failure", "success"]
    assert [a.error_type for a in attempts] == [
        r.error_type or "" for r in outcome.record.retry_attempts
    ]
    assert {a.task for a in attempts} == {"T1"}
    assert len(finished) == 1
    assert (finished[0].final_status, finished[0].attempts) == ("recovered", 3)
    component = compute_metrics(events).components["handoff:agent-result"]
    assert (component.operations, component.succeeded, component.attempts) == (1, 1, 3)
    assert component.retries_before_success == 2
    assert sum(component.failure_types.values()) == 2


def test_every_event_sink_is_the_one_sink_protocol(tmp_path: Path) -> None:
    """The run stream, the handoff events and the engine's live view share `events.Sink`."""
    from mergegate.engine import EventSink as LiveSink
    from mergegate.events import Sink
    from mergegate.handoff import JsonlEventSink, MemoryEventSink

    sinks = [
        EventLog(tmp_path / EVENTS_FILE),
        MemorySink(),
        MemoryEventSink(),
        JsonlEventSink(tmp_path / "h.jsonl"),
        LiveSink(),
    ]
    assert all(isinstance(sink, Sink) for sink in sinks)
