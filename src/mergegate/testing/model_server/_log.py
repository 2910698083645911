"""The record of every request a model server received, in memory and as JSONL."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from mergegate.testing.model_server._conversation import Api
from mergegate.testing.model_server._script import FaultKind
from mergegate.testing.model_server._structured import StructuredOutput

__all__ = ["RecordedRequest", "RequestLog", "redact_headers"]

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


class RecordedRequest(BaseModel):
    """One request as the server saw it, and what it decided to answer."""

    model_config = ConfigDict(frozen=True)

    seq: int
    """1-based arrival order."""
    time: float
    """Arrival time (epoch seconds)."""
    method: str
    path: str
    """Path without the query string."""
    query: str = ""
    api: Api
    headers: dict[str, str]
    """Lower-cased names; credential values are replaced by `<redacted>`."""
    body: Any = None
    """The parsed JSON body (None if there was none or it was not JSON)."""
    body_text: str | None = None
    """The raw body (first 64 KiB) when it was not JSON."""
    stream: bool = False
    model: str = ""
    prompt: str = ""
    """The latest user prompt, as used for `match` (empty for non-model requests)."""
    tool_names: tuple[str, ...] = ()
    """The tools the client offered."""
    turn: int | None = None
    """Index of the scripted turn chosen (None: no turn, e.g. exhausted or not a model call)."""
    fault: FaultKind | None = None
    status: int
    """The HTTP status the server chose (a `hang` fault never sends it)."""
    structured: StructuredOutput | None = None
    """The structured output the request asked for (its wire field and schema), if any."""


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    """Lower-case header names and hide credentials (a real key may be pointed here by mistake)."""
    return {
        name.lower(): "<redacted>" if name.lower() in _SECRET_HEADERS else value
        for name, value in headers.items()
    }


class RequestLog:
    """Thread-safe, append-only request record; mirrored line by line to `path` if given."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._records: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._seq = 0

    def next_seq(self) -> int:
        """Reserve the next sequence number (arrival order)."""
        with self._lock:
            self._seq += 1
            return self._seq

    def append(self, record: RecordedRequest) -> None:
        """Keep `record` and write it as one JSON line."""
        with self._lock:
            self._records.append(record)
            if self._path is not None:
                with self._path.open("a", encoding="utf-8") as handle:
                    handle.write(record.model_dump_json() + "\n")

    def records(self) -> list[RecordedRequest]:
        """A snapshot, in the order the records were appended."""
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        """Forget the in-memory records (the JSONL file is left alone)."""
        with self._lock:
            self._records.clear()
