"""The HTTP side of the model server: routing, reading requests, faults, streaming replies.

Stdlib `ThreadingHTTPServer`: a test double needs no framework, and one thread per connection
lets a `hang` fault block its own client without stopping the others.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mergegate.testing.model_server import _anthropic, _chat, _responses
from mergegate.testing.model_server._conversation import Api, RequestView, view_request
from mergegate.testing.model_server._log import RecordedRequest, redact_headers
from mergegate.testing.model_server._reply import Reply, ReplyError, estimate_tokens, make_reply
from mergegate.testing.model_server._script import Fault, FaultKind
from mergegate.testing.model_server._selector import Selection
from mergegate.testing.model_server._sse import SseEvent
from mergegate.testing.model_server._structured import (
    StructuredOutput,
    StructuredOutputError,
    reply_problem,
    structured_output,
)

if TYPE_CHECKING:
    from mergegate.testing.model_server._server import ModelServer

__all__ = ["HttpServer"]

MAX_BODY_BYTES = 32 * 1024 * 1024
_RAW_SAMPLE = 64 * 1024

_POST_ROUTES = {
    "/v1/messages": Api.ANTHROPIC_MESSAGES,
    "/v1/messages/count_tokens": Api.ANTHROPIC_COUNT_TOKENS,
    "/v1/chat/completions": Api.CHAT_COMPLETIONS,
    "/chat/completions": Api.CHAT_COMPLETIONS,
    "/v1/responses": Api.RESPONSES,
    "/responses": Api.RESPONSES,
}
_GET_ROUTES = {
    "/v1/models": Api.MODELS,
    "/models": Api.MODELS,
    "/health": Api.HEALTH,
    "/v1/health": Api.HEALTH,
}
_MODEL_APIS = frozenset({Api.ANTHROPIC_MESSAGES, Api.CHAT_COMPLETIONS, Api.RESPONSES})


class _HttpError(Exception):
    """Answer the request with this status and message (a client error, not a script fault)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class _Incoming:
    method: str
    path: str
    query: str
    api: Api
    headers: dict[str, str]
    raw: bytes
    body: Any


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: ModelServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up mid-stream are expected here; stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mergegate-model-server"
    server: HttpServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle plus the client's
        # delayed ACK adds ~40 ms to every response.
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """The request log is the record; no per-request lines on stderr."""

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    # -- dispatch ---------------------------------------------------------------------------

    def _dispatch(self) -> None:
        owner = self.server.owner
        seq = owner.log.next_seq()
        try:
            incoming = self._read_request()
        except _HttpError as exc:
            self._record_raw(seq, exc.status)
            self._send_json(exc.status, _chat.error_body(exc.status, exc.message))
            return
        with contextlib.suppress(ConnectionError, TimeoutError):
            self._answer(owner, seq, incoming)

    def _answer(self, owner: ModelServer, seq: int, incoming: _Incoming) -> None:
        api = incoming.api
        if api is Api.HEALTH:
            self._record(seq, incoming, 200)
            self._send_json(200, {"status": "ok"})
        elif api is Api.MODELS:
            self._record(seq, incoming, 200)
            anthropic = "anthropic-version" in incoming.headers
            body = (_anthropic if anthropic else _chat).models_body(owner.script.model)
            self._send_json(200, body)
        elif api is Api.ANTHROPIC_COUNT_TOKENS:
            self._record(seq, incoming, 200)
            self._send_json(200, _anthropic.count_tokens_body(estimate_tokens(len(incoming.raw))))
        elif api in _MODEL_APIS:
            self._answer_model(owner, seq, incoming)
        else:
            self._record(seq, incoming, 404)
            self._send_error(api, 404, f"no route for {incoming.method} {incoming.path}")

    def _answer_model(self, owner: ModelServer, seq: int, incoming: _Incoming) -> None:
        view = view_request(incoming.api, incoming.body)
        try:
            structured = structured_output(incoming.api, incoming.body)
        except StructuredOutputError as exc:  # the real API refuses such a request too
            self._record(seq, incoming, 400, view=view)
            self._send_error(incoming.api, 400, str(exc))
            return
        selection = owner.selector.select(view)
        turn = selection.turn
        if turn is None:
            self._record(seq, incoming, 500, view=view, selection=selection)
            message = "mergegate model-server: the script is exhausted (no turn left)"
            self._send_error(incoming.api, 500, message)
            return
        try:
            reply = make_reply(
                seq=seq,
                model=view.model or owner.script.model,
                turn=turn,
                request_chars=len(incoming.raw),
                prompt=view.prompt,
            )
        except ReplyError as exc:
            # Recorded with the status the client gets: the turn cannot be sent as scripted.
            self._record(seq, incoming, 500, view=view, selection=selection)
            self._send_error(incoming.api, 500, f"mergegate model-server: {exc}")
            return
        problem = _structured_problem(owner, structured, reply)
        if problem is not None:
            self._record(seq, incoming, 500, view=view, selection=selection, structured=structured)
            self._send_error(incoming.api, 500, f"mergegate model-server: {problem}")
            return
        fault = selection.fault
        status = _fault_status(fault) if fault else 200
        self._record(seq, incoming, status, view=view, selection=selection, structured=structured)
        owner.wait(turn.latency_s)
        try:
            self._deliver(owner, incoming, view, reply, fault=fault, delay=turn.event_delay_s)
        except ReplyError as exc:  # e.g. free-form tool arguments for the Anthropic API
            self._send_error(incoming.api, 500, f"mergegate model-server: {exc}")

    def _deliver(
        self,
        owner: ModelServer,
        incoming: _Incoming,
        view: RequestView,
        reply: Reply,
        *,
        fault: Fault | None,
        delay: float,
    ) -> None:
        if fault is not None and fault.kind in (FaultKind.HTTP_ERROR, FaultKind.RATE_LIMIT):
            self._send_fault_status(incoming.api, fault)
        elif fault is not None and fault.kind is FaultKind.HANG:
            owner.wait(fault.duration_s)
            self.close_connection = True
        elif view.stream:
            events = _stream_events(incoming, reply, owner.script.chunk_chars)
            self._send_stream(owner, events, fault, delay)
        else:
            self._send_body(owner, _body(incoming.api, reply), fault)

    # -- reading ----------------------------------------------------------------------------

    def _read_request(self) -> _Incoming:
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/") or "/"
        routes = _POST_ROUTES if self.command == "POST" else _GET_ROUTES
        api = routes.get(path, Api.UNKNOWN)
        headers = {name.lower(): value for name, value in self.headers.items()}
        raw = self._read_body(headers)
        body: Any = None
        if raw and api in (*_MODEL_APIS, Api.ANTHROPIC_COUNT_TOKENS):
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise _HttpError(400, f"request body is not JSON: {exc}") from exc
        return _Incoming(self.command, path, parts.query, api, headers, raw, body)

    def _read_body(self, headers: dict[str, str]) -> bytes:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        else:
            try:
                length = int(headers.get("content-length", "0"))
            except ValueError as exc:
                raise _HttpError(400, "bad content-length") from exc
            if length < 0 or length > MAX_BODY_BYTES:
                raise _HttpError(413, f"request body over {MAX_BODY_BYTES} bytes")
            raw = self.rfile.read(length)
        encoding = headers.get("content-encoding", "identity").lower()
        if encoding == "gzip":
            return gzip.decompress(raw)[: MAX_BODY_BYTES + 1]
        if encoding not in ("identity", ""):
            raise _HttpError(415, f"unsupported content-encoding {encoding!r}")
        return raw

    def _read_chunked(self) -> bytes:
        data = bytearray()
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip() or b"0", 16)
            except ValueError as exc:
                raise _HttpError(400, "bad chunked encoding") from exc
            if size == 0:
                self.rfile.readline(1024)
                return bytes(data)
            if len(data) + size > MAX_BODY_BYTES:
                raise _HttpError(413, f"request body over {MAX_BODY_BYTES} bytes")
            data += self.rfile.read(size)
            self.rfile.readline(1024)

    # -- recording --------------------------------------------------------------------------

    def _record(
        self,
        seq: int,
        incoming: _Incoming,
        status: int,
        *,
        view: RequestView | None = None,
        selection: Selection | None = None,
        structured: StructuredOutput | None = None,
    ) -> None:
        fault = selection.fault if selection else None
        text = None
        if incoming.body is None and incoming.raw:
            text = incoming.raw[:_RAW_SAMPLE].decode("utf-8", "replace")
        record = RecordedRequest(
            seq=seq,
            time=time.time(),
            method=incoming.method,
            path=incoming.path,
            query=incoming.query,
            api=incoming.api,
            headers=redact_headers(incoming.headers),
            body=incoming.body,
            body_text=text,
            stream=view.stream if view else False,
            model=view.model if view else "",
            prompt=view.prompt if view else "",
            tool_names=view.tool_names if view else (),
            turn=selection.index if selection else None,
            fault=fault.kind if fault else None,
            status=status,
            structured=structured,
        )
        self.server.owner.log.append(record)

    def _record_raw(self, seq: int, status: int) -> None:
        parts = urlsplit(self.path)
        headers = dict(self.headers.items())
        incoming = _Incoming(self.command, parts.path, parts.query, Api.UNKNOWN, headers, b"", None)
        self._record(seq, incoming, status)

    # -- writing ----------------------------------------------------------------------------

    def _send_json(
        self, status: int, payload: Any, extra_headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, api: Api, status: int, message: str) -> None:
        self._send_json(status, _error_body(api, status, message))

    def _send_fault_status(self, api: Api, fault: Fault) -> None:
        status = _fault_status(fault)
        headers: dict[str, str] = {}
        if fault.kind is FaultKind.RATE_LIMIT:
            headers["retry-after"] = str(math.ceil(fault.retry_after_s))
            headers["retry-after-ms"] = str(int(fault.retry_after_s * 1000))
        self._send_json(status, _error_body(api, status, fault.message), headers)

    def _send_body(self, owner: ModelServer, payload: Any, fault: Fault | None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if fault is None:
            self.wfile.write(data)
            return
        # truncate / stall: half the promised body, then silence or a closed connection.
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        if fault.kind is FaultKind.STALL:
            owner.wait(fault.duration_s)
        self.close_connection = True

    def _send_stream(
        self,
        owner: ModelServer,
        events: list[SseEvent],
        fault: Fault | None,
        event_delay_s: float,
    ) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        limit = fault.after_events if fault is not None else len(events)
        for n, event in enumerate(events[:limit]):
            if n and event_delay_s:
                owner.wait(event_delay_s)
            self._write_chunk(event.encode())
        if fault is None:
            self.wfile.write(b"0\r\n\r\n")
            return
        if fault.kind is FaultKind.STALL:
            owner.wait(fault.duration_s)
        # No terminating chunk: the client sees the connection drop mid-stream.
        self.close_connection = True

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def _structured_problem(
    owner: ModelServer, structured: StructuredOutput | None, reply: Reply
) -> str | None:
    """Why the scripted reply breaks the requested structured output (`check_structured`)."""
    if structured is None or not owner.script.check_structured:
        return None
    calls = {c.name: c.raw_json for c in reply.calls}
    return reply_problem(structured, reply.text, calls)


def _fault_status(fault: Fault) -> int:
    if fault.kind is FaultKind.RATE_LIMIT:
        return 429
    if fault.kind is FaultKind.HTTP_ERROR:
        return fault.status
    return 200


def _error_body(api: Api, status: int, message: str) -> dict[str, Any]:
    if api in (Api.ANTHROPIC_MESSAGES, Api.ANTHROPIC_COUNT_TOKENS):
        return _anthropic.error_body(status, message)
    return _chat.error_body(status, message)


def _body(api: Api, reply: Reply) -> dict[str, Any]:
    if api is Api.ANTHROPIC_MESSAGES:
        return _anthropic.message_body(reply)
    if api is Api.CHAT_COMPLETIONS:
        return _chat.completion_body(reply)
    return _responses.response_body(reply)


def _stream_events(incoming: _Incoming, reply: Reply, chunk_chars: int) -> list[SseEvent]:
    if incoming.api is Api.ANTHROPIC_MESSAGES:
        return _anthropic.message_events(reply, chunk_chars)
    if incoming.api is Api.CHAT_COMPLETIONS:
        options = incoming.body.get("stream_options") if isinstance(incoming.body, dict) else None
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        return _chat.completion_events(reply, chunk_chars, include_usage=include_usage)
    return _responses.response_events(reply, chunk_chars)
