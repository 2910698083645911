"""Model-server cost per request, as a ratio against a bare stdlib HTTP server in the same run.

Both servers answer the same keep-alive httpx client with a JSON body of similar size; the
model server also parses the request, selects a turn, records it and encodes the reply. A
streamed Anthropic reply is measured too (many small chunked writes).
"""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from _smoke import sizes
from mergegate.testing.model_server import ModelServer, Script, Turn

REQUESTS = sizes(300, 10)
WARM_UP = sizes(20, 2)
BODY = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi " * 200}]}
TEXT = "The quick brown fox jumps over the lazy dog. " * 10


class _Bare(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    payload = json.dumps({"content": [{"type": "text", "text": TEXT}]}).encode()

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as the server does

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _per_request(call: Callable[[], object]) -> float:
    for _ in range(WARM_UP):
        call()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(REQUESTS // 5):
            call()
        samples.append((time.perf_counter() - start) / (REQUESTS // 5))
    return statistics.median(samples)


def main() -> None:
    bare = ThreadingHTTPServer(("127.0.0.1", 0), _Bare)
    threading.Thread(target=bare.serve_forever, daemon=True).start()
    script = Script(turns=[Turn(text=TEXT)], when_exhausted="repeat_last")
    with httpx.Client() as client, ModelServer(script) as server:
        bare_url = f"http://127.0.0.1:{bare.server_address[1]}/v1/messages"
        baseline = _per_request(lambda: client.post(bare_url, json=BODY).content)
        plain = _per_request(lambda: client.post(f"{server.url}/v1/messages", json=BODY).content)
        streamed = {**BODY, "stream": True}
        stream = _per_request(
            lambda: client.post(f"{server.url}/v1/messages", json=streamed).content
        )
    bare.shutdown()
    bare.server_close()
    print(f"baseline (bare http.server): {baseline * 1e6:.0f} us/request")
    print(f"model server, JSON reply:      {plain / baseline:.2f}x baseline")
    print(f"model server, streamed reply:  {stream / baseline:.2f}x baseline")


if __name__ == "__main__":
    main()
