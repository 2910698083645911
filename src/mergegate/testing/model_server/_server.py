"""The model server's lifecycle: bind a loopback port, serve on a thread, stop cleanly.

The HTTP handling (routes, faults, streaming) is in `_handler`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from pathlib import Path
from types import TracebackType

from mergegate.errors import UsageError
from mergegate.testing.model_server._handler import HttpServer
from mergegate.testing.model_server._log import RecordedRequest, RequestLog
from mergegate.testing.model_server._script import Script
from mergegate.testing.model_server._selector import TurnSelector

__all__ = ["ModelServer"]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ModelServer:
    """A scripted model server on a loopback port: a test double for agent CLIs and clients.

    ::

        with ModelServer(Script(turns=[Turn(text="hello")])) as server:
            client.post(server.url + "/v1/messages", json=...)
            assert server.requests[0].api == "anthropic_messages"

    `start()` binds (port 0 = an ephemeral port), serves on a background thread and returns
    the base URL; `stop()` ends hangs and stalls, closes every connection and the socket.
    A non-loopback `host` is refused (UsageError) unless `allow_remote=True`.
    """

    def __init__(
        self,
        script: Script,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: Path | None = None,
        allow_remote: bool = False,
    ) -> None:
        if not allow_remote and not _is_loopback(host):
            raise UsageError(
                f"refusing to serve on non-loopback host {host!r}: the model server is a test "
                "double (pass allow_remote / --allow-remote to force it)"
            )
        self.script = script
        self._host = host
        self._port = port
        self.log = RequestLog(log_path)
        self.selector = TurnSelector(script)
        self.stopping = threading.Event()
        self._http: HttpServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> str:
        """Bind and serve in the background (idempotent); return the base URL.

        Raises `UsageError` when the address cannot be bound (e.g. the port is in use).
        """
        if self._http is None:
            try:
                self._http = HttpServer((self._host, self._port), self)
            except OSError as exc:
                where = f"{self._host}:{self._port}"
                raise UsageError(f"cannot listen on {where}: {exc.strerror or exc}") from exc
            self._thread = threading.Thread(
                target=self._http.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="mergegate-model-server",
                daemon=True,
            )
            self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving: release hung handlers, close open connections and the socket."""
        http, self._http = self._http, None
        if http is None:
            return
        self.stopping.set()
        http.shutdown()
        with http.connections_lock:
            for conn in list(http.connections):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        http.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ModelServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what tests look at ------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (raises if not started)."""
        if self._http is None:
            raise RuntimeError("the model server is not running")
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        """Base URL, e.g. `http://127.0.0.1:PORT` (ANTHROPIC_BASE_URL takes it as is)."""
        host = self._host if ":" not in self._host else f"[{self._host}]"
        return f"http://{host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """`{url}/v1`, the base URL OpenAI clients and Codex providers expect."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        return self.log.records()

    # -- request handling (called from handler threads) -------------------------------------

    def wait(self, seconds: float | None) -> None:
        """Sleep up to `seconds` (None: forever), returning early when the server stops."""
        if seconds is None or seconds > 0:
            self.stopping.wait(seconds)
