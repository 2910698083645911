"""One output stream of a supervised process: a capped log file, an in-memory tail, and lines
split with a size cap and handed to the backend's parser."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from mergegate.processes._values import Limits, Stream

__all__ = ["LineCallback", "StreamPump", "TailCallback"]

LineCallback = Callable[[Stream, str], bool | None]
"""Called once per complete line; returns True once the line was the terminal event."""
TailCallback = Callable[[Stream, str], None]
"""Called once per complete line for live progress (a UI tail); its return value is ignored."""


class StreamPump:
    """One stream: log file (capped), in-memory tail, and line splitting with a size cap."""

    def __init__(
        self,
        name: Stream,
        log: IO[bytes] | None,
        limits: Limits,
        on_line: LineCallback | None,
        on_tail: TailCallback | None,
    ) -> None:
        self.name: Stream = name
        self.log = log
        self.limits = limits
        self.on_line = on_line
        self.on_tail = on_tail
        self.total = 0
        self.logged = 0
        self.tail = bytearray()
        self.partial = bytearray()
        self.oversize = False
        self.oversize_lines = 0
        self.done = False

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._log(chunk)
        self.tail += chunk
        if len(self.tail) > 2 * self.limits.tail_bytes:
            del self.tail[: len(self.tail) - self.limits.tail_bytes]
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._line(chunk[start:end])
            start = end + 1
        self._keep_partial(chunk[start:])

    def close(self) -> None:
        if self.partial or self.oversize:
            self._line(b"")
        if self.log is not None:
            self._log_tail()
            self.log.close()
            self.log = None

    def tail_bytes(self) -> bytes:
        return bytes(self.tail[-self.limits.tail_bytes :]) if self.limits.tail_bytes else b""

    def _keep_partial(self, rest: bytes) -> None:
        if self.oversize:
            return
        if len(self.partial) + len(rest) > self.limits.max_line_bytes:
            self.oversize = True
            self.partial.clear()
            return
        self.partial += rest

    def _line(self, piece: bytes) -> None:
        if self.oversize or len(self.partial) + len(piece) > self.limits.max_line_bytes:
            self.oversize_lines += 1
            self.oversize = False
            self.partial.clear()
            return
        data = bytes(self.partial) + piece if self.partial else piece
        self.partial.clear()
        text = data.decode("utf-8", "replace").removesuffix("\r")
        if self.on_tail is not None:
            self.on_tail(self.name, text)
        if self.on_line is not None and self.on_line(self.name, text):
            self.done = True

    def _log(self, chunk: bytes) -> None:
        room = self.limits.log_cap_bytes - self.logged
        if self.log is None or room <= 0:
            return
        self.log.write(chunk[:room])
        self.logged += min(room, len(chunk))

    def _log_tail(self) -> None:
        assert self.log is not None
        omitted = self.total - self.logged
        if omitted <= 0:
            return
        kept = self.tail_bytes()[-omitted:]
        self.log.write(
            f"\n[mergegate: log capped at {self.logged} bytes; "
            f"{omitted - len(kept)} bytes omitted; the last {len(kept)} bytes follow]\n".encode()
        )
        self.log.write(kept)
