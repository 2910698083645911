"""What a handoff leaves behind: the seed-002 debug record, attempt events, failed-handoff files.

* `HandoffRecord` — one per handoff: `handoff_type`, `session_id`, `original_error`
  (`type`, `details`, `output_sample`), `retry_attempts[]` (`attempt`, `timestamp`,
  `prompt_used`, `result`, `error`, ...) and `final_status` (recovered | escalated | fatal).
  Attempt 1 is the first ask; attempts 2+ are the retries.
* Events — one per attempt and one per finished handoff, sent to an `EventSink`; the default
  sink appends JSON lines to `<state>/events.jsonl` for the metrics issue to aggregate.
* Failed handoffs — escalated or fatal ones are written (atomically, never overwritten) to
  `<state>/failed_handoffs/` with the record and every raw output.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

from mergegate.atomic_files import append_jsonl, write_json_atomic
from mergegate.config import Config, state_dir
from mergegate.events import Sink
from mergegate.handoff._envelope import component_name, make_envelope
from mergegate.handoff._failures import output_sample

__all__ = [
    "AttemptRecord",
    "ErrorInfo",
    "EventSink",
    "HandoffRecord",
    "HandoffRecorder",
    "JsonlEventSink",
    "MemoryEventSink",
]

FinalStatus = Literal["recovered", "escalated", "fatal"]
PromptLevel = Literal["initial", "full", "minimal", "bare", "fresh"]

MAX_PROMPT_CHARS = 64 * 1024
"""Prompts longer than this are cut in the record (their sha256 is always kept)."""
MAX_SAVED_OUTPUT_CHARS = 1024 * 1024
"""Raw outputs longer than this are cut (head kept) in failed-handoff files."""
EVENTS_FILE = "events.jsonl"
HANDOFF_LOG_FILE = "handoffs.jsonl"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ErrorInfo(_Record):
    """An error as recorded: `type` is an `ErrorKind` value, or `stuck`, `agent_failed`,
    `exception` or `lost`."""

    type: str
    details: str
    output_sample: str


class AttemptRecord(_Record):
    attempt: int
    timestamp: datetime
    prompt_used: str
    prompt_sha256: str
    prompt_level: PromptLevel
    fresh_session: bool
    result: Literal["success", "failure"]
    error: str | None
    error_type: str | None
    duration_s: float
    output_sample: str
    prior: bool = False
    """The reply was obtained before the retry loop started (the agent's own run, or an
    attempt persisted before a crash) rather than asked for by the loop."""

    @classmethod
    def of(
        cls,
        attempt: int,
        *,
        timestamp: datetime,
        prompt: str,
        prompt_level: PromptLevel,
        error_type: str | None,
        error: str | None,
        output: str,
        duration_s: float,
        prior: bool = False,
    ) -> AttemptRecord:
        """An attempt as recorded: the prompt (cut past `MAX_PROMPT_CHARS`) with the sha256 of
        all of it, and the first 500 characters of the output. No `error_type` is a success;
        a fresh session is the `initial` or `fresh` level."""
        recorded, digest = prompt_digest(prompt)
        return cls(
            attempt=attempt,
            timestamp=timestamp,
            prompt_used=recorded,
            prompt_sha256=digest,
            prompt_level=prompt_level,
            fresh_session=prompt_level in ("initial", "fresh"),
            result="failure" if error_type else "success",
            error=error,
            error_type=error_type,
            duration_s=round(max(0.0, duration_s), 6),
            output_sample=output_sample(output),
            prior=prior,
        )


class HandoffRecord(_Record):
    """Seed 002's debug information for one handoff (plus component and timing)."""

    handoff_type: str
    component: str
    session_id: str
    original_error: ErrorInfo | None
    retry_attempts: tuple[AttemptRecord, ...]
    final_status: FinalStatus
    max_attempts: int
    started_at: datetime
    finished_at: datetime


EventSink: TypeAlias = Sink[Mapping[str, Any]]
"""Receives one plain event per handoff attempt (and per finished handoff): the one sink
protocol of `mergegate.events`, over plain mappings."""


@dataclass(frozen=True)
class JsonlEventSink:
    """Appends each event as one JSON line (line-atomic, fsynced)."""

    path: Path

    def emit(self, event: Mapping[str, Any]) -> None:
        append_jsonl(self.path, dict(event))


@dataclass
class MemoryEventSink:
    """Keeps events in a list: a test double, and handy for callers that aggregate live."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def emit(self, event: Mapping[str, Any]) -> None:
        self.events.append(dict(event))


@dataclass(frozen=True)
class HandoffRecorder:
    """Where a handoff's events, log line and failure file go. Any of them may be off."""

    events: EventSink | None = None
    failed_dir: Path | None = None
    log_path: Path | None = None

    @classmethod
    def from_config(cls, config: Config) -> HandoffRecorder:
        """Events to `<state>/events.jsonl`; the rest as `[handoff_validation]` says."""
        root = state_dir(config)
        settings = config.handoff_validation
        return cls(
            events=JsonlEventSink(root / EVENTS_FILE),
            failed_dir=(
                root / settings.failed_handoff_dir if settings.save_failed_handoffs else None
            ),
            log_path=root / HANDOFF_LOG_FILE if settings.log_all_handoffs else None,
        )

    @classmethod
    def for_run(cls, config: Config, run_dir: Path) -> HandoffRecorder:
        """Everything in one run's directory: events to `<run_dir>/events.jsonl`, the log to
        `<run_dir>/handoffs.jsonl` (`log_all_handoffs`), failure files to
        `<run_dir>/<failed_handoff_dir>/` (`save_failed_handoffs`; an absolute
        `failed_handoff_dir` is used as it is)."""
        settings = config.handoff_validation
        return cls(
            events=JsonlEventSink(run_dir / EVENTS_FILE),
            failed_dir=(
                run_dir / settings.failed_handoff_dir if settings.save_failed_handoffs else None
            ),
            log_path=run_dir / HANDOFF_LOG_FILE if settings.log_all_handoffs else None,
        )

    @classmethod
    def disabled(cls) -> HandoffRecorder:
        """Record nothing (the record is still returned to the caller)."""
        return cls()

    def emit(self, event: Mapping[str, Any]) -> None:
        if self.events is not None:
            self.events.emit(event)

    def finish(self, record: HandoffRecord, outputs: Sequence[str]) -> Path | None:
        """Log the record; save a failure file unless recovered. Returns that file's path.

        The failure file is the common envelope (`component`, `session_id`, `status:
        failure`, the retry metadata) around `{"record": ..., "outputs": [...]}`."""
        if self.log_path is not None:
            append_jsonl(self.log_path, record.model_dump(mode="json"))
        if record.final_status == "recovered" or self.failed_dir is None:
            return None
        path = self.failed_dir / _failure_file_name(record)
        retries, errors = retry_metadata(record)
        envelope = make_envelope(
            component_name(record.component),
            record.session_id,
            {
                "record": record.model_dump(mode="json"),
                "outputs": [_bounded_output(text) for text in outputs],
            },
            status="failure",
            retry_count=retries,
            previous_errors=errors,
        )
        write_json_atomic(path, envelope, overwrite=False)
        return path


def retry_metadata(record: HandoffRecord | None) -> tuple[int, list[str]]:
    """`(retry_count, previous_errors)` of a handoff's debug record: the attempts after the
    first, and one line per failed attempt (`<error type>: <first line of its error>`)."""
    if record is None or not record.retry_attempts:
        return 0, []
    failed = [a for a in record.retry_attempts if a.result == "failure"]
    errors = [f"{a.error_type}: {_first_line(a.error)}" for a in failed]
    return len(record.retry_attempts) - 1, errors


def prompt_digest(prompt: str) -> tuple[str, str]:
    """`(prompt as recorded, sha256 of the whole prompt)`."""
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    if len(prompt) <= MAX_PROMPT_CHARS:
        return prompt, digest
    cut = len(prompt) - MAX_PROMPT_CHARS
    return prompt[:MAX_PROMPT_CHARS] + f"\n[... {cut} more characters not recorded]", digest


def _first_line(text: str | None) -> str:
    lines = (text or "").splitlines()
    return lines[0] if lines else ""


def _bounded_output(text: str) -> str:
    if len(text) <= MAX_SAVED_OUTPUT_CHARS:
        return text
    cut = len(text) - MAX_SAVED_OUTPUT_CHARS
    return text[:MAX_SAVED_OUTPUT_CHARS] + f"\n[... {cut} more characters not saved]"


def _failure_file_name(record: HandoffRecord) -> str:
    stamp = record.finished_at.strftime("%Y%m%dT%H%M%S%fZ")
    session = re.sub(r"[^A-Za-z0-9_.-]+", "-", record.session_id)[:40].strip("-.") or "nosession"
    return f"{stamp}-{record.handoff_type}-{session}-{uuid.uuid4().hex[:8]}.json"
