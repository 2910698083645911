"""Helpers for the model-server tests: a running server per test and an SSE reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mergegate.testing.model_server import ModelServer, Script


def parse_sse(text: str) -> list[tuple[str | None, str]]:
    """(event name, data) pairs of a server-sent-event stream."""
    events: list[tuple[str | None, str]] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name = None
        data = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        events.append((name, "\n".join(data)))
    return events


def sse_payloads(text: str) -> list[dict[str, Any]]:
    """The JSON payloads of a stream (the Chat `[DONE]` sentinel is skipped)."""
    return [json.loads(data) for _, data in parse_sse(text) if data != "[DONE]"]


@pytest.fixture
def sse() -> Any:
    """The `sse_payloads` helper, as a fixture (test modules here are not a package)."""
    return sse_payloads


@pytest.fixture
def serve() -> Iterator[Any]:
    """`serve(script, **kwargs)` starts a server that is stopped after the test."""
    servers: list[ModelServer] = []

    def start(script: Script, **kwargs: Any) -> ModelServer:
        server = ModelServer(script, **kwargs)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c
