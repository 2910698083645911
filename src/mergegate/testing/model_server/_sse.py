"""Server-sent events: the one framing all three streaming APIs share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["SseEvent", "data_event", "named_event"]


@dataclass(frozen=True)
class SseEvent:
    """One event: an optional `event:` name and one `data:` line."""

    data: str
    event: str | None = None

    def encode(self) -> bytes:
        head = f"event: {self.event}\n" if self.event else ""
        return f"{head}data: {self.data}\n\n".encode()


def named_event(payload: dict[str, Any]) -> SseEvent:
    """An event named after the payload's `type` (the Anthropic and Responses convention)."""
    return SseEvent(data=json.dumps(payload, ensure_ascii=False), event=str(payload["type"]))


def data_event(payload: dict[str, Any] | str) -> SseEvent:
    """An unnamed event (the Chat Completions convention); a string is sent as is."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return SseEvent(data=data)
