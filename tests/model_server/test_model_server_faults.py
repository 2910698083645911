"""Injected faults, latency, the request log and the server's lifecycle."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from mergegate.errors import UsageError
from mergegate.testing.model_server import (
    Api,
    Fault,
    FaultKind,
    ModelServer,
    RecordedRequest,
    Script,
    Turn,
)

STREAM_BODY: dict[str, Any] = {
    "model": "m",
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def _turn(fault: Fault, text: str = "after the fault") -> Script:
    return Script(turns=[Turn(text=text, fault=fault)], chunk_chars=4)


def _read_stream(
    client: httpx.Client, url: str, body: dict[str, Any]
) -> tuple[bytes, httpx.HTTPError | None]:
    """Read a streamed response until it ends or fails; return the bytes and the error."""
    received = bytearray()
    try:
        with client.stream("POST", url, json=body) as response:
            for part in response.iter_bytes():
                received += part
    except httpx.HTTPError as exc:
        return bytes(received), exc
    return bytes(received), None


def test_http_error_then_recovery(serve: Any, client: httpx.Client) -> None:
    fault = Fault(kind=FaultKind.HTTP_ERROR, status=529, message="overloaded!", count=1)
    server = serve(_turn(fault))
    first = client.post(f"{server.url}/v1/messages", json={**STREAM_BODY, "stream": False})
    assert first.status_code == 529
    assert first.json()["error"] == {"type": "overloaded_error", "message": "overloaded!"}
    second = client.post(f"{server.url}/v1/messages", json={**STREAM_BODY, "stream": False})
    assert second.json()["content"][0]["text"] == "after the fault"
    assert [(r.fault, r.status) for r in server.requests] == [
        (FaultKind.HTTP_ERROR, 529),
        (None, 200),
    ]


def test_rate_limit_carries_retry_after(serve: Any, client: httpx.Client) -> None:
    server = serve(_turn(Fault(kind=FaultKind.RATE_LIMIT, retry_after_s=2.5)))
    response = client.post(f"{server.openai_base_url}/responses", json={"input": "x"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.headers["retry-after-ms"] == "2500"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_truncated_stream_closes_mid_sse(serve: Any, client: httpx.Client, sse: Any) -> None:
    server = serve(_turn(Fault(kind=FaultKind.TRUNCATE, after_events=3)))
    received, error = _read_stream(client, f"{server.url}/v1/messages", STREAM_BODY)
    assert isinstance(error, httpx.RemoteProtocolError)
    events = sse(received.decode())
    assert len(events) == 3
    assert "message_stop" not in {e["type"] for e in events}


def test_truncated_body_is_shorter_than_promised(serve: Any, client: httpx.Client) -> None:
    server = serve(_turn(Fault(kind=FaultKind.TRUNCATE)))
    with pytest.raises(httpx.RemoteProtocolError):
        client.post(f"{server.url}/v1/chat/completions", json={"messages": []})


def test_hang_never_answers_until_its_duration_ends(serve: Any) -> None:
    server = serve(_turn(Fault(kind=FaultKind.HANG)))
    with httpx.Client(timeout=0.3) as client, pytest.raises(httpx.ReadTimeout):
        client.post(f"{server.url}/v1/messages", json=STREAM_BODY)
    # The request was recorded before the server went quiet.
    assert [r.fault for r in server.requests] == [FaultKind.HANG]

    bounded = serve(_turn(Fault(kind=FaultKind.HANG, duration_s=0.05)))
    with httpx.Client(timeout=10) as client, pytest.raises(httpx.RemoteProtocolError):
        client.post(f"{bounded.url}/v1/messages", json=STREAM_BODY)


def test_stall_sends_some_events_then_goes_quiet(serve: Any, sse: Any) -> None:
    server = serve(_turn(Fault(kind=FaultKind.STALL, after_events=2)))
    with httpx.Client(timeout=httpx.Timeout(10, read=0.3)) as client:
        body = {"input": "x", "stream": True}
        received, error = _read_stream(client, f"{server.url}/v1/responses", body)
    assert isinstance(error, httpx.ReadTimeout)
    types = [e["type"] for e in sse(received.decode())]
    assert types == ["response.created", "response.in_progress"]


def test_latency_delays_the_answer(serve: Any) -> None:
    server = serve(Script(turns=[Turn(text="slow", latency_s=30)]))
    with httpx.Client(timeout=0.2) as client, pytest.raises(httpx.ReadTimeout):
        client.post(f"{server.url}/v1/messages", json=STREAM_BODY)


def test_stop_releases_a_hung_request_and_is_idempotent() -> None:
    server = ModelServer(_turn(Fault(kind=FaultKind.HANG)))
    url = server.start()
    assert server.start() == url
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            httpx.post(f"{url}/v1/messages", json=STREAM_BODY, timeout=30)
        except httpx.HTTPError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    while not server.requests:
        threading.Event().wait(0.01)
    server.stop()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert isinstance(outcome[0], httpx.RemoteProtocolError | httpx.ReadError)
    server.stop()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url


def test_request_log_in_memory_and_jsonl(tmp_path: Path, serve: Any, client: httpx.Client) -> None:
    log = tmp_path / "requests.jsonl"
    server = serve(Script(turns=[Turn(text="a"), Turn(match="MARK", text="b")]), log_path=log)
    body = {
        "model": "claude-x",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "go MARK"}]}],
        "tools": [{"name": "Write"}, {"name": "Bash"}],
    }
    client.post(
        f"{server.url}/v1/messages",
        json=body,
        headers={"x-api-key": "sk-secret", "x-claude-code-session-id": "s-1"},
    )
    client.get(f"{server.url}/health")
    records = server.requests
    from_file = [RecordedRequest.model_validate_json(line) for line in log.read_text().splitlines()]
    assert from_file == records
    first, health = records
    assert (first.seq, first.api, first.turn, first.prompt) == (
        1,
        Api.ANTHROPIC_MESSAGES,
        1,
        "go MARK",
    )
    assert first.tool_names == ("Write", "Bash")
    assert first.body == body
    assert first.headers["x-api-key"] == "<redacted>"
    assert first.headers["x-claude-code-session-id"] == "s-1"
    assert "sk-secret" not in log.read_text()
    assert (health.api, health.status) == (Api.HEALTH, 200)


def test_concurrent_requests_are_all_recorded(serve: Any) -> None:
    server = serve(Script(turns=[Turn(text="same")], when_exhausted="repeat_last"))

    def call() -> None:
        httpx.post(f"{server.url}/v1/chat/completions", json={"messages": []}, timeout=10)

    workers = [threading.Thread(target=call) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(r.seq for r in server.requests) == list(range(1, 9))


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com"])
def test_non_loopback_hosts_are_refused(host: str) -> None:
    with pytest.raises(UsageError, match="non-loopback"):
        ModelServer(Script(turns=[Turn(text="x")]), host=host)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    ModelServer(Script(turns=[Turn(text="x")]), host=host)


def test_busy_port_is_a_usage_error(serve: Any) -> None:
    busy = serve(Script(turns=[Turn(text="x")]))
    with pytest.raises(UsageError, match="cannot listen"):
        ModelServer(Script(turns=[Turn(text="x")]), port=busy.port).start()


def test_gzip_request_bodies_are_read(serve: Any, client: httpx.Client) -> None:
    import gzip

    server = serve(Script(turns=[Turn(text="x")]))
    raw = gzip.compress(json.dumps({"input": "zipped MARK"}).encode())
    response = client.post(
        f"{server.url}/v1/responses",
        content=raw,
        headers={"content-encoding": "gzip", "content-type": "application/json"},
    )
    assert response.status_code == 200
    assert server.requests[0].prompt == "zipped MARK"
