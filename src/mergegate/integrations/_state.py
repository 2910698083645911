"""What a hook remembers between invocations, and the log of what it decided.

Layout under mergegate's per-user state directory (`$MERGEGATE_STATE_DIR`, else
`$XDG_STATE_HOME/mergegate`, else `~/.local/state/mergegate`; never the project tree):

    hooks/<tool>/sessions/<session id>.json   per agent session: the latch (`_latch`), and per
                                             reviewer the undecidable answers in a row, with
                                             bounded excerpts and the restatement asked for
    hooks/<tool>/decisions.jsonl             one line per decision (rotated to .1 at 8 MiB)
    hooks/<tool>/.lock                       serialises read-modify-write across processes

Every directory and file is reached without following symbolic links (`_private_dir`): a
linked `decisions.jsonl` or `sessions/` is refused, and the hook blocks saying so.

Agent CLIs run hooks concurrently (parallel subagents finish together), so every
read-modify-write holds an exclusive `flock` on `.lock`, and files are replaced atomically.
Everything is bounded: excerpts, reviewers per session, sessions kept (the oldest *open* ones
are pruned; a closed latch is never pruned), log size. A lock that cannot be taken within its
timeout raises `HookStateError`; the hook then blocks.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mergegate.errors import MergegateError
from mergegate.integrations._fast import MAX_SESSION_BYTES, session_file_name
from mergegate.integrations._latch import Json, Latch, Record, object_of, text, whole
from mergegate.integrations._latch import number as number_at
from mergegate.integrations._private_dir import HOOK_SESSIONS, PrivateDir, hook_dir

__all__ = [
    "EXCERPT_CHARS",
    "HookState",
    "HookStateError",
    "ReviewMemory",
    "SessionMemory",
    "hook_dir",
    "session_file_name",
]

EXCERPT_CHARS = 1200
MAX_REVIEWERS_PER_SESSION = 32
MAX_SESSIONS = 256
MAX_LOG_BYTES = 8 * 1024 * 1024
_LOG = "decisions.jsonl"


class HookStateError(MergegateError):
    """The hook's state could not be read or written in time (the hook blocks)."""


@dataclass
class ReviewMemory(Record):
    """One reviewer's consecutive undecidable results in one session."""

    malformed: int = 0
    excerpts: list[str] = field(default_factory=list)
    """The first and the latest undecidable output (raw, each cut to `EXCERPT_CHARS`)."""
    updated: float = 0.0
    restate_id: str | None = None
    """The `review_id` the hook asked the restated verdict object to carry."""

    def __post_init__(self) -> None:
        if self.malformed < 0:
            raise ValueError("malformed: at least 0")
        if self.restate_id is not None and len(self.restate_id) > 64:
            raise ValueError("restate_id: at most 64 characters")
        self.updated = float(self.updated)

    @classmethod
    def from_json(cls, data: Json) -> ReviewMemory:
        excerpts = data.get("excerpts", [])
        if not isinstance(excerpts, list) or not all(isinstance(e, str) for e in excerpts):
            raise ValueError("excerpts: a list of strings is expected")
        return cls(
            malformed=whole(data, "malformed", 0),
            excerpts=list(excerpts),
            updated=number_at(data, "updated", 0.0),
            restate_id=text(data, "restate_id", 64, None, nullable=True),
        )


@dataclass
class SessionMemory(Record):
    """Everything remembered about one agent session: its latch and its reviewers."""

    latch: Latch = field(default_factory=Latch)
    reviews: dict[str, ReviewMemory] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Json) -> SessionMemory:
        """The memory a session file holds (strict: `ValueError` for anything else)."""
        reviews = object_of(data.get("reviews", {}), "reviews")
        return cls(
            latch=Latch.from_json(object_of(data.get("latch", {}), "latch")),
            reviews={k: ReviewMemory.from_json(object_of(v, k)) for k, v in reviews.items()},
        )

    def note_malformed(
        self, key: str, output: str, now: float, restate_id: str | None = None
    ) -> ReviewMemory:
        """Count one more undecidable result for reviewer `key`; keep first and latest."""
        memory = self.reviews.get(key) or ReviewMemory()
        kept = output[:EXCERPT_CHARS]
        excerpts = [*memory.excerpts[:1], kept] if memory.excerpts else [kept]
        count = min(memory.malformed + 1, 99)
        restate = memory.restate_id or restate_id
        updated = ReviewMemory(malformed=count, excerpts=excerpts, updated=now, restate_id=restate)
        self.reviews[key] = updated
        self._bound()
        return updated

    def note_verdict(self, key: str) -> int:
        """A real verdict ends the run of undecidable results; returns how long it was."""
        memory = self.reviews.pop(key, None)
        return memory.malformed if memory else 0

    def restate_id(self, key: str) -> str | None:
        """The id of the restatement asked of reviewer `key`, if one is outstanding."""
        memory = self.reviews.get(key)
        return memory.restate_id if memory else None

    def _bound(self) -> None:
        while len(self.reviews) > MAX_REVIEWERS_PER_SESSION:
            oldest = min(self.reviews, key=lambda k: self.reviews[k].updated)
            del self.reviews[oldest]


@dataclass
class HookState:
    """The state and the decision log of one tool's hook in `directory` (a `PrivateDir`, or a
    path whose last part mergegate may create: every part below it is reached without
    following links)."""

    directory: PrivateDir | Path
    # Parallel subagents stop together and each hook holds the lock for a read, a parse and an
    # fsync'd write: eight in a queue on a loaded two-core machine waited past 5 s. The hook's
    # own deadline (20 s) stays the bound on the whole answer.
    lock_timeout_s: float = 15.0
    clock: Callable[[], float] = time.time
    _place: PrivateDir = field(init=False, repr=False)

    def __post_init__(self) -> None:
        given = self.directory
        self._place = (
            given if isinstance(given, PrivateDir) else PrivateDir(given.parent, (given.name,))
        )

    @property
    def path(self) -> Path:
        return self._place.path

    @property
    def sessions_dir(self) -> Path:
        return self.path / HOOK_SESSIONS

    @property
    def log_path(self) -> Path:
        return self.path / _LOG

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive lock; raise `HookStateError` after `lock_timeout_s`."""
        try:
            with self._place.locked(".lock", self.lock_timeout_s):
                yield
        except TimeoutError as exc:
            raise HookStateError(
                f"the hook state in {self.path} stayed locked for {self.lock_timeout_s:g}s"
            ) from exc
        except OSError as exc:
            raise HookStateError(f"cannot open the hook state: {exc}") from exc

    @contextlib.contextmanager
    def session(self, session_id: str) -> Iterator[SessionMemory]:
        """Read the session's memory under the lock; write it back when the block ends."""
        with self.locked():
            name = session_file_name(session_id)
            memory = self._load(name) or SessionMemory()
            yield memory
            self._save(name, memory)
            self._prune(keep=name)

    def read_session(self, session_id: str) -> SessionMemory | None:
        """The session's memory without the lock (files are replaced atomically); None when
        the session has none. Raises `HookStateError` when it cannot be read."""
        return self._load(session_file_name(session_id))

    def sessions(self) -> list[tuple[str, SessionMemory]]:
        """Every remembered session `(file name, memory)`, the most recently changed first.
        A file that cannot be read raises `HookStateError`."""
        names = sorted(self._sessions.names(".json"), key=lambda n: n[1], reverse=True)
        found = []
        for name, _mtime in names:
            memory = self._load(name)
            if memory is not None:
                found.append((name, memory))
        return found

    @property
    def _sessions(self) -> PrivateDir:
        return self._place.child(HOOK_SESSIONS)

    def _load(self, name: str) -> SessionMemory | None:
        try:
            data = self._sessions.read(name, MAX_SESSION_BYTES)
            if data is None:
                return None
            return SessionMemory.from_json(object_of(json.loads(data), "session"))
        except (OSError, ValueError, RecursionError) as exc:
            # A corrupt memory must not reset the count or open the latch silently: that
            # would grant a second "retry once", or let a commit through. Refuse, and the
            # hook blocks saying so.
            raise HookStateError(f"cannot read the hook state {name}: {exc}") from exc

    def _save(self, name: str, memory: SessionMemory) -> None:
        try:
            dumped = json.dumps(memory.to_json(), indent=1, ensure_ascii=False)
            self._sessions.write(name, (dumped + "\n").encode())
        except OSError as exc:
            raise HookStateError(f"cannot write the hook state: {exc}") from exc

    def _prune(self, keep: str) -> None:
        files = [n for n in self._sessions.names(".json") if n[0] != keep]
        if len(files) < MAX_SESSIONS:
            return
        files.sort(key=lambda n: n[1])
        excess = len(files) - MAX_SESSIONS + 1
        for name, _mtime in files:
            if excess <= 0:
                break
            with contextlib.suppress(HookStateError):
                memory = self._load(name)
                if memory is not None and memory.latch.closed:
                    continue  # a "no" is kept until a review approves or a person releases it
            self._sessions.remove(name)
            excess -= 1

    def log(self, record: dict[str, Any]) -> None:
        """Append one decision to the log (under the lock; rotated past `MAX_LOG_BYTES`)."""
        line = json.dumps({"time": round(self.clock(), 3), **record}, ensure_ascii=False)
        with self.locked():
            try:
                size = self._place.append(_LOG, (line + "\n").encode("utf-8"))
                if size > MAX_LOG_BYTES:
                    self._place.rename(_LOG, _LOG + ".1")
            except OSError as exc:
                raise HookStateError(f"cannot write the decision log: {exc}") from exc

    def read_log(self) -> list[dict[str, Any]]:
        """Every decision in the current log file, oldest first (for tests and `--help` users)."""
        data = self._place.read(_LOG, 4 * MAX_LOG_BYTES)
        if data is None:
            return []
        return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
