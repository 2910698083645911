"""What a hook remembers between invocations, and the log of what it decided.

Layout under the state directory (`.mergegate/` by default):

    hooks/<tool>/sessions/<session id>.json   per agent session: consecutive malformed
                                             reviews per reviewer, with bounded excerpts
    hooks/<tool>/decisions.jsonl             one line per decision (rotated to .1 at 8 MiB)
    hooks/<tool>/.lock                       serialises read-modify-write across processes

Agent CLIs run hooks concurrently (parallel subagents finish together), so every
read-modify-write holds an exclusive `flock` on `.lock`, and files are replaced atomically.
Everything is bounded: excerpts, reviewers per session, sessions kept (oldest pruned), log size.
A lock that cannot be taken within its timeout raises `HookStateError`; the hook then blocks.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mergegate.atomic_files import append_jsonl, write_atomic
from mergegate.errors import MergegateError

__all__ = [
    "EXCERPT_CHARS",
    "HookState",
    "HookStateError",
    "ReviewMemory",
    "SessionMemory",
    "session_file_name",
]

EXCERPT_CHARS = 1200
MAX_REVIEWERS_PER_SESSION = 32
MAX_SESSIONS = 256
MAX_LOG_BYTES = 8 * 1024 * 1024
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class HookStateError(MergegateError):
    """The hook's state could not be read or written in time (the hook blocks)."""


class ReviewMemory(BaseModel):
    """One reviewer's consecutive undecidable results in one session."""

    model_config = ConfigDict(extra="ignore")

    malformed: int = Field(0, ge=0)
    excerpts: list[str] = Field(default_factory=list)
    """The first and the latest undecidable output (raw, each cut to `EXCERPT_CHARS`)."""
    updated: float = 0.0


class SessionMemory(BaseModel):
    """Everything remembered about one agent session."""

    model_config = ConfigDict(extra="ignore")

    reviews: dict[str, ReviewMemory] = Field(default_factory=dict)

    def note_malformed(self, key: str, output: str, now: float) -> ReviewMemory:
        """Count one more undecidable result for reviewer `key`; keep first and latest."""
        memory = self.reviews.get(key) or ReviewMemory()
        kept = output[:EXCERPT_CHARS]
        excerpts = [*memory.excerpts[:1], kept] if memory.excerpts else [kept]
        count = min(memory.malformed + 1, 99)
        updated = ReviewMemory(malformed=count, excerpts=excerpts, updated=now)
        self.reviews[key] = updated
        self._bound()
        return updated

    def note_verdict(self, key: str) -> int:
        """A real verdict ends the run of undecidable results; returns how long it was."""
        memory = self.reviews.pop(key, None)
        return memory.malformed if memory else 0

    def _bound(self) -> None:
        while len(self.reviews) > MAX_REVIEWERS_PER_SESSION:
            oldest = min(self.reviews, key=lambda k: self.reviews[k].updated)
            del self.reviews[oldest]


def session_file_name(session_id: str) -> str:
    """A file name for a session id: the id itself when it is plain, else a hash of it."""
    if _SAFE_ID.fullmatch(session_id):
        return f"{session_id}.json"
    digest = hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:32]
    return f"sha-{digest}.json"


@dataclass
class HookState:
    """The state and the decision log of one tool's hook under `directory`."""

    directory: Path
    lock_timeout_s: float = 5.0
    clock: Callable[[], float] = time.time

    @property
    def sessions_dir(self) -> Path:
        return self.directory / "sessions"

    @property
    def log_path(self) -> Path:
        return self.directory / "decisions.jsonl"

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive lock; raise `HookStateError` after `lock_timeout_s`."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise HookStateError(f"cannot open the hook state in {self.directory}: {exc}") from exc
        try:
            self._acquire(fd)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _acquire(self, fd: int) -> None:
        deadline = time.monotonic() + self.lock_timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise HookStateError(
                        f"the hook state in {self.directory} stayed locked for "
                        f"{self.lock_timeout_s:g}s"
                    ) from None
                time.sleep(0.02)

    @contextlib.contextmanager
    def session(self, session_id: str) -> Iterator[SessionMemory]:
        """Read the session's memory under the lock; write it back when the block ends."""
        with self.locked():
            path = self.sessions_dir / session_file_name(session_id)
            memory = self._load(path)
            yield memory
            write_atomic(path, memory.model_dump_json(indent=1) + "\n")
            self._prune(keep=path)

    def _load(self, path: Path) -> SessionMemory:
        try:
            return SessionMemory.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return SessionMemory()
        except (OSError, ValidationError, ValueError) as exc:
            # A corrupt memory must not reset the count silently: that would grant a
            # second "retry once". Refuse, and the hook blocks saying so.
            raise HookStateError(f"cannot read the hook state {path}: {exc}") from exc

    def _prune(self, keep: Path) -> None:
        files = [p for p in self.sessions_dir.glob("*.json") if p != keep]
        if len(files) < MAX_SESSIONS:
            return
        files.sort(key=_mtime)
        for old in files[: len(files) - MAX_SESSIONS + 1]:
            with contextlib.suppress(OSError):
                old.unlink()

    def log(self, record: dict[str, Any]) -> None:
        """Append one decision to the log (under the lock; rotated past `MAX_LOG_BYTES`)."""
        with self.locked():
            path = self.log_path
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_size > MAX_LOG_BYTES:
                    os.replace(path, path.with_name(path.name + ".1"))
            append_jsonl(path, {"time": round(self.clock(), 3), **record})

    def read_log(self) -> list[dict[str, Any]]:
        """Every decision in the current log file, oldest first (for tests and `--help` users)."""
        try:
            lines = self.log_path.read_text("utf-8").splitlines()
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in lines if line.strip()]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
