"""mergegate's own tables, beside DBOS's in the same database: the state a run decides from.

A run's folder holds what people read (reports, summaries, logs, copies of the card); an agent
can write there (always without the sandbox, and its attempt folders even with it), so nothing
is ever read back from it for a decision. What decides is here, in the run's database — its
own SQLite file under `<state>/db/`, or the database `[engine] database_url` names (one
SQLite file for every run, or the fleet's PostgreSQL), written only by mergegate:

    mergegate_runs         one row per run: its card (a `RunRecord`) and its plan snapshot
    mergegate_run_state    typed values by (run, kind, key): a person's answers, the stop
                           request, unit and phase outcomes, verification results (`StateKind`)
    mergegate_usage        one row per agent run of a run with a token or cost budget
    mergegate_processes    the process groups a run started, until they end
    mergegate_leases       who executes a run, and a plan on a repository, now (`_leases`)
    mergegate_queue_limits a fleet queue's `global_concurrency`, stored once by the first
                           command that names it (`claim_queue_limit`)
    mergegate_events       the run's typed event stream: one bounded JSON line per event, in
                           the order appended (`seq`), each `event_id` once per run
    mergegate_attempts     one row per agent attempt: what it was and how it ended, and where
                           its log is on the host that ran it (size, SHA-256, last lines)
    mergegate_records      the records a run writes for people, by (run, kind, key): a task's
                           review (its verdicts and findings), a unit's and a phase's summary —
                           the typed value as JSON and the markdown people read (`RecordKind`)
    mergegate_blobs        agent logs shipped from the host that ran them, by the SHA-256 of
                           their content (`_blobs`): compressed in the row, or the URL of the
                           object store that holds them
    mergegate_supervisors  each process that started a run's agents (`SupervisorRecord`),
                           recorded before its first one: what it left is found by its token
    mergegate_schema       the migrations applied (numbered; each one idempotent)

The SQL is fixed text, portable between SQLite (3.24 or later) and PostgreSQL (a statement
that cannot be, an identity column, is written once per dialect: `_PerDialect`); values are
always bound parameters, never formatted into a statement. A key is a tuple of ids stored as a
JSON array, so no id (whatever characters a plan allowed) can be mistaken for another.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, create_engine, event, make_url, text
from sqlalchemy.exc import DatabaseError, DisconnectionError, IntegrityError, OperationalError
from sqlalchemy.pool import QueuePool

from mergegate.config import redact_url
from mergegate.processes import ProcessRecord, SupervisorRecord
from mergegate.store._dbos import DatabaseUnavailableError, driver_url

__all__ = ["KEEP_OPEN", "SCHEMA_VERSION", "Key", "Tables", "tables"]

Key = tuple[str, ...]
"""A row's key within its run and kind: ids, in order (phase, unit, ...)."""

KEEP_OPEN = 4
"""SQLite databases whose connections a process keeps open between uses, the most recently
used ones: a run uses two (its own file and the leases'), while a command that reads every
run's file (`runs`, `stats`) would otherwise keep one open per run."""
_POOL_SIZE = 4
"""Idle connections kept per SQLite database (more are opened while more threads write at
once, and closed when they are done: writers queue on the file's lock anyway)."""


@dataclass(frozen=True)
class _PerDialect:
    """One migration statement spelled for each database (what fixed text cannot share)."""

    sqlite: str
    postgresql: str

    def text_for(self, sqlite: bool) -> str:
        return self.sqlite if sqlite else self.postgresql


_EVENTS_COLUMNS = """run_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            at TEXT NOT NULL,
            line TEXT NOT NULL,
            UNIQUE (run_id, event_id)
        )"""

_MIGRATIONS: tuple[tuple[str | _PerDialect, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS mergegate_runs (
            run_id TEXT PRIMARY KEY,
            card TEXT NOT NULL,
            plan TEXT NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS mergegate_run_state (
            run_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (run_id, kind, key)
        )""",
        """CREATE TABLE IF NOT EXISTS mergegate_usage (
            run_id TEXT NOT NULL,
            tokens BIGINT NOT NULL,
            cost_usd DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS mergegate_usage_run ON mergegate_usage (run_id)",
        """CREATE TABLE IF NOT EXISTS mergegate_processes (
            run_id TEXT NOT NULL,
            executor_id TEXT NOT NULL,
            attempt_dir TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS mergegate_processes_run ON mergegate_processes (run_id)",
        """CREATE INDEX IF NOT EXISTS mergegate_processes_executor
            ON mergegate_processes (executor_id)""",
    ),
    (
        """CREATE TABLE IF NOT EXISTS mergegate_leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL
        )""",
    ),
    (
        """CREATE TABLE IF NOT EXISTS mergegate_queue_limits (
            queue TEXT PRIMARY KEY,
            global_concurrency INTEGER NOT NULL
        )""",
    ),
    (
        # `seq` orders a run's events as appended; the unique (run, event id) makes a replayed
        # step's append a no-op (`append_event`), whichever worker replays it
        _PerDialect(
            sqlite="CREATE TABLE IF NOT EXISTS mergegate_events (\n"
            "            seq INTEGER PRIMARY KEY AUTOINCREMENT,\n            " + _EVENTS_COLUMNS,
            postgresql="CREATE TABLE IF NOT EXISTS mergegate_events (\n"
            "            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n            "
            + _EVENTS_COLUMNS,
        ),
        "CREATE INDEX IF NOT EXISTS mergegate_events_run ON mergegate_events (run_id, seq)",
    ),
    (
        """CREATE TABLE IF NOT EXISTS mergegate_attempts (
            run_id TEXT NOT NULL,
            attempt TEXT NOT NULL,
            record TEXT NOT NULL,
            PRIMARY KEY (run_id, attempt)
        )""",
    ),
    (
        # what was only in a host's run folder: a host with the database URL alone reads it
        """CREATE TABLE IF NOT EXISTS mergegate_records (
            run_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            record TEXT NOT NULL,
            markdown TEXT NOT NULL,
            PRIMARY KEY (run_id, kind, key)
        )""",
    ),
    (
        # a log's copy for hosts that did not run its attempt: its bytes compressed, or
        # (`location` not empty) where an object store keeps them; one row per content
        _PerDialect(
            sqlite="CREATE TABLE IF NOT EXISTS mergegate_blobs (\n"
            "            sha256 TEXT PRIMARY KEY,\n            size BIGINT NOT NULL,\n"
            "            location TEXT NOT NULL,\n            data BLOB\n        )",
            postgresql="CREATE TABLE IF NOT EXISTS mergegate_blobs (\n"
            "            sha256 TEXT PRIMARY KEY,\n            size BIGINT NOT NULL,\n"
            "            location TEXT NOT NULL,\n            data BYTEA\n        )",
        ),
    ),
    (
        # a child's own record is written only once it exists: a SIGKILL in between left an
        # agent nobody knew of; its supervisor, recorded first, names it by its tag's token
        """CREATE TABLE IF NOT EXISTS mergegate_supervisors (
            run_id TEXT NOT NULL,
            executor_id TEXT NOT NULL,
            token TEXT NOT NULL,
            record TEXT NOT NULL,
            PRIMARY KEY (run_id, token)
        )""",
        """CREATE INDEX IF NOT EXISTS mergegate_supervisors_executor
            ON mergegate_supervisors (executor_id)""",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)
"""The newest migration: a database at a higher number was written by a newer mergegate."""
_LOCK_KEY = 0x6D67_7374  # "mgst": PostgreSQL serialises concurrent migrations on it

_SCHEMA = "CREATE TABLE IF NOT EXISTS mergegate_schema (version INTEGER PRIMARY KEY)"
_PUT = """INSERT INTO mergegate_run_state (run_id, kind, key, value)
    VALUES (:run, :kind, :key, :value)
    ON CONFLICT (run_id, kind, key) DO UPDATE SET value = excluded.value"""
_PUT_RECORD = """INSERT INTO mergegate_records (run_id, kind, key, record, markdown)
    VALUES (:r, :k, :key, :rec, :md)
    ON CONFLICT (run_id, kind, key)
    DO UPDATE SET record = excluded.record, markdown = excluded.markdown"""
_ADD = """INSERT INTO mergegate_run_state (run_id, kind, key, value)
    VALUES (:run, :kind, :key, :value)
    ON CONFLICT (run_id, kind, key) DO NOTHING"""
_GET = """SELECT value FROM mergegate_run_state
    WHERE run_id = :run AND kind = :kind AND key = :key"""
_PROCESS_ROWS = "SELECT run_id, attempt_dir, record FROM mergegate_processes"
_SUPERVISOR_ROWS = "SELECT run_id, record FROM mergegate_supervisors"
_APPEND_EVENT = """INSERT INTO mergegate_events (run_id, event_id, kind, at, line)
    VALUES (:r, :e, :k, :a, :l) ON CONFLICT (run_id, event_id) DO NOTHING"""
_EVENT_LINES = """SELECT seq, line FROM mergegate_events
    WHERE run_id = :r AND seq > :after ORDER BY seq"""
_EVENT_COUNT = "SELECT COUNT(*) FROM mergegate_events WHERE run_id = :r AND seq <= :upto"
_QUEUE_LIMIT = "SELECT global_concurrency FROM mergegate_queue_limits WHERE queue = :q"
_ITEMS = """SELECT key, value FROM mergegate_run_state
    WHERE run_id = :run AND kind = :kind ORDER BY key"""
_VALUES_WHERE_EXECUTOR_RUNS = """SELECT DISTINCT s.run_id, s.value FROM mergegate_run_state s
    JOIN mergegate_processes p ON p.run_id = s.run_id
    WHERE p.executor_id = :executor AND s.kind = :kind AND s.key = :key"""


# a copy only this run's attempts name: its hash in no other run's attempt record (a LIKE on
# the record's JSON: a hash is 64 hex digits, no wildcard, and a record that mentions it
# anywhere keeps the copy — the safe side), runs whose logs were collected left out
_SOLE_BLOB = """SELECT sha256, size, location FROM mergegate_blobs
    WHERE sha256 = :h AND NOT EXISTS (
        SELECT 1 FROM mergegate_attempts a
        WHERE a.run_id NOT IN :runs AND a.record LIKE :pattern
        AND a.run_id NOT IN (SELECT s.run_id FROM mergegate_run_state s WHERE s.kind = :k)
    )"""
_DROP_SOLE_BLOB = """DELETE FROM mergegate_blobs
    WHERE sha256 = :h AND NOT EXISTS (
        SELECT 1 FROM mergegate_attempts a
        WHERE a.run_id NOT IN :runs AND a.record LIKE :pattern
        AND a.run_id NOT IN (SELECT s.run_id FROM mergegate_run_state s WHERE s.kind = :k)
    ) RETURNING location"""


def _sole_params(run_id: str, sha256: str, kind: str, also: Sequence[str]) -> dict[str, Any]:
    # the run itself among `runs`: never an empty IN, whose SQL each dialect types its own way
    runs = [run_id, *also]
    return {"h": sha256, "runs": runs, "pattern": f"%{sha256}%", "k": kind}


def _sqlite_connection(conn: Any, _record: Any) -> None:
    """mergegate's own connections to a SQLite file (in WAL mode, as `sqlite_url` makes it).

    Writers take the lock when their transaction begins (`IMMEDIATE`, as DBOS's do), so two
    writers queue (the busy timeout) instead of one failing on a stale snapshot.

    `synchronous=NORMAL`: a commit appends to the WAL without an fsync of its own (an fsync
    costs 2 to 40 ms here, and a task writes about ten rows). Nothing is reordered: DBOS's
    connections commit with an fsync into the same WAL, which makes every earlier commit
    durable too, so a power cut loses at most the rows written since DBOS's last recorded
    step — rows that the replay of that step writes again, or a person's answer that is asked
    for again (the run still waits) — never a row a recorded step came after."""
    conn.isolation_level = "IMMEDIATE"
    cursor = conn.cursor()
    try:
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _file_identity(path: str | None) -> tuple[int, int, int, int] | None:
    """(device, inode, size, modification time) of a database file; None when it has no file
    (in memory) or none now. SQLite writes the file itself only when it checkpoints its WAL
    (about every thousand pages): a connection that sees it changed is merely opened again."""
    if not path or path == ":memory:":
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


class _SameFile:
    """Connection events that keep a pooled SQLite connection on the file now at the path.

    A connection per use always opened the file at the path as it is; a kept one stays on the
    file it opened, which may have been moved or deleted since (a state directory removed and
    made again, a copy put in place: its writes would go where nothing reads them), or written
    over by something else than SQLite (its page cache would hide that). So each connection
    remembers the file as it opened it, and each use checks the path still shows it
    unchanged (one `stat`); when not, the pool drops the connection and opens the file."""

    def __init__(self, path: str | None) -> None:
        self.path = path

    def connect(self, _conn: Any, record: Any) -> None:
        record.info["file"] = _file_identity(self.path)
        record.info["just_opened"] = True

    def checkout(self, _conn: Any, record: Any, _proxy: Any) -> None:
        if not self.path or self.path == ":memory:":
            return  # no file to follow
        if record.info.pop("just_opened", False):
            # Opened for this checkout: it is on the file now at the path. Its identity is
            # taken again, since a checkpoint (of DBOS's connections, in another thread) may
            # have written the file between the open and now; refusing it for that made the
            # pool give up after its second try ('This connection is closed': a run failed).
            record.info["file"] = _file_identity(self.path)
            return
        opened = record.info.get("file")
        if opened is None or opened != _file_identity(self.path):
            raise DisconnectionError(f"{self.path} is not the file this connection opened")


def _spelled(statement: str | _PerDialect, sqlite: bool) -> str:
    return statement if isinstance(statement, str) else statement.text_for(sqlite)


def encode_key(key: Key) -> str:
    return json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))


def _decode_key(raw: str) -> Key:
    return tuple(str(part) for part in json.loads(raw))


class Tables:
    """mergegate's tables in one database (made, or brought up to date, on first use)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.sqlite = database_url.startswith("sqlite")
        if self.sqlite:
            # connections kept between uses (a connect and its pragma cost more than most
            # statements here), on the file now at the path (`_SameFile`), for the
            # `KEEP_OPEN` databases used last (`_kept`); used by one thread at a time, handed
            # between threads by the pool; 30 s of busy wait covers DBOS's own writes
            self._engine: Engine = create_engine(
                database_url,
                poolclass=QueuePool,
                pool_size=_POOL_SIZE,
                max_overflow=-1,
                connect_args={"timeout": 30, "check_same_thread": False},
            )
            same_file = _SameFile(make_url(database_url).database)
            event.listen(self._engine, "connect", _sqlite_connection)
            event.listen(self._engine, "connect", same_file.connect)
            event.listen(self._engine, "checkout", same_file.checkout)
        else:
            self._engine = create_engine(
                driver_url(database_url), pool_size=2, max_overflow=6, pool_pre_ping=True
            )
        self._migrated = False
        self._lock = threading.Lock()

    # ------------------------------------------------------------ connections

    @contextlib.contextmanager
    def _failing_as_one_line(self) -> Iterator[None]:
        try:
            yield
        except IntegrityError:
            raise
        except DatabaseError as exc:
            first = (str(exc.orig or exc).strip().splitlines() or [""])[0]
            what = "reached" if isinstance(exc, OperationalError) else "used"
            raise DatabaseUnavailableError(
                f"the database {redact_url(self.database_url)} cannot be {what}: "
                f"{redact_url(first)}"
            ) from exc

    @contextlib.contextmanager
    def begin(self) -> Iterator[Connection]:
        """A transaction on tables that exist; a database error becomes one line (exit 4)."""
        with self._failing_as_one_line():
            self._migrate()
            if self.sqlite:
                _used(self)
            with self._engine.begin() as conn:
                yield conn

    def _migrate(self) -> None:
        with self._lock:
            if self._migrated:
                return
            try:
                self._apply()
            except IntegrityError:  # another process applied the same migration just now
                self._apply()
            self._migrated = True

    def _apply(self) -> None:
        with self._engine.begin() as conn:
            if not self.sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            conn.execute(text(_SCHEMA))
            done = int(
                conn.execute(text("SELECT max(version) FROM mergegate_schema")).scalar() or 0
            )
            if done > SCHEMA_VERSION:
                raise DatabaseUnavailableError(
                    f"the database {redact_url(self.database_url)} holds mergegate's tables at "
                    f"version {done}, and this mergegate knows {SCHEMA_VERSION}: use a newer one"
                )
            for number in range(done + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[number - 1]:
                    conn.execute(text(_spelled(statement, self.sqlite)))
                conn.execute(
                    text("INSERT INTO mergegate_schema (version) VALUES (:n)"), {"n": number}
                )

    def dispose(self) -> None:
        """Close the connections kept (one in use now is let go when it is given back, and
        closed when Python collects the pool it came from)."""
        with _open_lock:
            _kept.pop(self, None)
        self._engine.dispose()

    # ------------------------------------------------------------ runs

    def insert_run(self, run_id: str, card: str, plan: str) -> bool:
        """A new run's card and plan, in one transaction; False when the run exists."""
        try:
            with self.begin() as conn:
                conn.execute(
                    text("INSERT INTO mergegate_runs (run_id, card, plan) VALUES (:r, :c, :p)"),
                    {"r": run_id, "c": card, "p": plan},
                )
        except IntegrityError:
            return False
        return True

    def update_card(self, run_id: str, card: str) -> None:
        with self.begin() as conn:
            conn.execute(
                text("UPDATE mergegate_runs SET card = :c WHERE run_id = :r"),
                {"r": run_id, "c": card},
            )

    def card(self, run_id: str) -> str | None:
        with self.begin() as conn:
            found = conn.execute(
                text("SELECT card FROM mergegate_runs WHERE run_id = :r"), {"r": run_id}
            ).scalar()
        return None if found is None else str(found)

    def plan(self, run_id: str) -> str | None:
        with self.begin() as conn:
            found = conn.execute(
                text("SELECT plan FROM mergegate_runs WHERE run_id = :r"), {"r": run_id}
            ).scalar()
        return None if found is None else str(found)

    # ------------------------------------------------------------ typed state

    def put(self, run_id: str, kind: str, key: Key, value: str, *, replace: bool) -> bool:
        """Write a value; without `replace`, only when the key has none (the first writer
        wins). True when this call's value is the one stored."""
        params = {"run": run_id, "kind": kind, "key": encode_key(key), "value": value}
        with self.begin() as conn:
            conn.execute(text(_PUT if replace else _ADD), params)
            if replace:
                return True
            stored = conn.execute(text(_GET), params).scalar()
        return stored == value

    def delete(self, run_id: str, kind: str, key: Key) -> None:
        with self.begin() as conn:
            conn.execute(
                text(
                    "DELETE FROM mergegate_run_state "
                    "WHERE run_id = :run AND kind = :kind AND key = :key"
                ),
                {"run": run_id, "kind": kind, "key": encode_key(key)},
            )

    def get(self, run_id: str, kind: str, key: Key) -> str | None:
        with self.begin() as conn:
            found = conn.execute(
                text(_GET), {"run": run_id, "kind": kind, "key": encode_key(key)}
            ).scalar()
        return None if found is None else str(found)

    def items(self, run_id: str, kind: str, prefix: Key = ()) -> list[tuple[Key, str]]:
        """Every value of a kind whose key starts with `prefix`, in key order."""
        with self.begin() as conn:
            rows = conn.execute(text(_ITEMS), {"run": run_id, "kind": kind}).all()
        found = [(_decode_key(str(r[0])), str(r[1])) for r in rows]
        return [(k, v) for k, v in found if k[: len(prefix)] == prefix]

    def values_where_executor_runs(
        self, executor_id: str, kind: str, key: Key
    ) -> list[tuple[str, str]]:
        """(run id, value) of `kind` and `key` in every run where `executor_id` has a process
        recorded (one query, however many runs the database holds)."""
        params = {"executor": executor_id, "kind": kind, "key": encode_key(key)}
        with self.begin() as conn:
            rows = conn.execute(text(_VALUES_WHERE_EXECUTOR_RUNS), params).all()
        return [(str(r[0]), str(r[1])) for r in rows]

    # ------------------------------------------------------------ usage

    def add_usage(self, run_id: str, tokens: int, cost_usd: float) -> None:
        with self.begin() as conn:
            conn.execute(
                text("INSERT INTO mergegate_usage (run_id, tokens, cost_usd) VALUES (:r, :t, :c)"),
                {"r": run_id, "t": tokens, "c": cost_usd},
            )

    def usage(self, run_id: str) -> tuple[int, float]:
        with self.begin() as conn:
            row = conn.execute(
                text(
                    "SELECT coalesce(sum(tokens), 0), coalesce(sum(cost_usd), 0) "
                    "FROM mergegate_usage WHERE run_id = :r"
                ),
                {"r": run_id},
            ).one()
        return int(row[0]), float(row[1])

    # ------------------------------------------------------------ events

    def append_event(self, run_id: str, event_id: str, kind: str, at: str, line: str) -> bool:
        """Append one event's line to the run's stream unless the run has an event with this
        id already (a step replayed, here or on another worker). True when appended."""
        with self.begin() as conn:
            done = conn.execute(
                text(_APPEND_EVENT),
                {"r": run_id, "e": event_id, "k": kind, "a": at, "l": line},
            )
        return bool(done.rowcount == 1)

    def event_lines(self, run_id: str, after: int = 0) -> list[tuple[int, str]]:
        """The run's event lines after position `after`, in the order they were appended:
        (position, line); a reader polls from the last position it saw."""
        with self.begin() as conn:
            rows = conn.execute(text(_EVENT_LINES), {"r": run_id, "after": after}).all()
        return [(int(r[0]), str(r[1])) for r in rows]

    def event_count(self, run_id: str, upto: int) -> int:
        """How many of the run's event lines are at positions up to `upto` (a reader that
        read them before checks that none committed later below its last position)."""
        with self.begin() as conn:
            found = conn.execute(text(_EVENT_COUNT), {"r": run_id, "upto": upto}).scalar()
        return int(found or 0)

    def put_attempt(self, run_id: str, attempt: str, record: str) -> None:
        """An attempt's record; an attempt run again at the same place (after a crash)
        replaces it."""
        with self.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mergegate_attempts (run_id, attempt, record) "
                    "VALUES (:r, :a, :rec) "
                    "ON CONFLICT (run_id, attempt) DO UPDATE SET record = excluded.record"
                ),
                {"r": run_id, "a": attempt, "rec": record},
            )

    def attempts(self, run_id: str) -> list[str]:
        """The run's attempt records, by attempt (its folder's path under the run's)."""
        with self.begin() as conn:
            rows = conn.execute(
                text("SELECT record FROM mergegate_attempts WHERE run_id = :r ORDER BY attempt"),
                {"r": run_id},
            ).all()
        return [str(r[0]) for r in rows]

    def put_record(self, run_id: str, kind: str, key: Key, record: str, markdown: str) -> None:
        """A record for people (its value's JSON and its markdown); writing it again (the
        record rewritten as the run goes on, a step replayed) replaces it."""
        params = {"r": run_id, "k": kind, "key": encode_key(key), "rec": record, "md": markdown}
        with self.begin() as conn:
            conn.execute(text(_PUT_RECORD), params)

    def put_with_record(
        self, run_id: str, state: tuple[str, str], key: Key, value: str, markdown: str
    ) -> None:
        """A value (`state` = (state kind, record kind)) and the record people read of it,
        both under `key`, in one transaction: the record never tells of another value than
        the one stored, and the run's writers take the database's write lock once for both
        (a unit's outcome is written four times a unit, beside the other units' writers)."""
        state_kind, record_kind = state
        encoded = encode_key(key)
        put = {"run": run_id, "kind": state_kind, "key": encoded, "value": value}
        put_record = {"r": run_id, "k": record_kind, "key": encoded, "rec": value, "md": markdown}
        with self.begin() as conn:
            conn.execute(text(_PUT), put)
            conn.execute(text(_PUT_RECORD), put_record)

    def records(self, run_id: str) -> list[tuple[str, Key, str, str]]:
        """The run's records for people: (kind, key, record, markdown), by kind then key."""
        with self.begin() as conn:
            rows = conn.execute(
                text(
                    "SELECT kind, key, record, markdown FROM mergegate_records "
                    "WHERE run_id = :r ORDER BY kind, key"
                ),
                {"r": run_id},
            ).all()
        return [(str(r[0]), _decode_key(str(r[1])), str(r[2]), str(r[3])) for r in rows]

    def run_ids(self) -> list[str]:
        """Every run this database holds a card for (a fleet's runs, made on any host)."""
        with self.begin() as conn:
            rows = conn.execute(text("SELECT run_id FROM mergegate_runs ORDER BY run_id")).all()
        return [str(r[0]) for r in rows]

    # ------------------------------------------------------------ blobs

    def put_blob(self, sha256: str, size: int, location: str, data: bytes | None) -> None:
        """A content's copy (`data`, or where `location` names it); a copy already stored
        under this hash is kept (the same content, shipped again or by another run)."""
        with self.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mergegate_blobs (sha256, size, location, data) "
                    "VALUES (:h, :n, :loc, :d) ON CONFLICT (sha256) DO NOTHING"
                ),
                {"h": sha256, "n": size, "loc": location, "d": data},
            )

    def blob(self, sha256: str) -> tuple[int, str, bytes | None] | None:
        """(size, location, data) of the copy stored under `sha256`, or None."""
        with self.begin() as conn:
            row = conn.execute(
                text("SELECT size, location, data FROM mergegate_blobs WHERE sha256 = :h"),
                {"h": sha256},
            ).first()
        if row is None:
            return None
        return int(row[0]), str(row[1]), None if row[2] is None else bytes(row[2])

    def has_blob(self, sha256: str) -> bool:
        with self.begin() as conn:
            found = conn.execute(
                text("SELECT 1 FROM mergegate_blobs WHERE sha256 = :h"), {"h": sha256}
            ).first()
        return found is not None

    def sole_blobs(
        self, run_id: str, hashes: Sequence[str], collected_kind: str, also: Sequence[str] = ()
    ) -> list[tuple[str, int, str]]:
        """(sha256, size, location) of the stored copies among `hashes` that no attempt of
        another run still names: runs whose state holds a `collected_kind` row (their logs
        collected already) and the runs of `also` (collected along with this one) do not
        count."""
        if not hashes:
            return []
        with self.begin() as conn:
            rows = [
                conn.execute(
                    text(_SOLE_BLOB).bindparams(bindparam("runs", expanding=True)),
                    _sole_params(run_id, sha, collected_kind, also),
                ).first()
                for sha in sorted(set(hashes))
            ]
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows if r is not None]

    def drop_sole_blob(self, run_id: str, sha256: str, collected_kind: str) -> str | None:
        """Delete the stored copy of `sha256` if no attempt of a run whose logs are not
        collected, other than `run_id`, names it — checked in the same statement, so an
        attempt row another run committed first keeps it. Its location ("" in the row), or
        None when nothing was deleted."""
        with self.begin() as conn:
            row = conn.execute(
                text(_DROP_SOLE_BLOB).bindparams(bindparam("runs", expanding=True)),
                _sole_params(run_id, sha256, collected_kind, ()),
            ).first()
        return None if row is None else str(row[0])

    # ------------------------------------------------------------ processes

    def record_process(
        self, run_id: str, executor_id: str, record: ProcessRecord, attempt_dir: Path | None
    ) -> None:
        with self.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mergegate_processes (run_id, executor_id, attempt_dir, record) "
                    "VALUES (:r, :e, :a, :rec)"
                ),
                {
                    "r": run_id,
                    "e": executor_id,
                    "a": "" if attempt_dir is None else str(attempt_dir),
                    "rec": record.model_dump_json(),
                },
            )

    def processes(
        self, *, run_id: str | None = None, executor_id: str | None = None
    ) -> list[tuple[str, Path | None, ProcessRecord]]:
        """The recorded processes of a run, or of an executor (across runs): (run id,
        attempt folder, record)."""
        rows = self._rows_of(_PROCESS_ROWS, run_id=run_id, executor_id=executor_id)
        return [
            (
                str(r[0]),
                Path(str(r[1])) if r[1] else None,
                ProcessRecord.model_validate_json(str(r[2])),
            )
            for r in rows
        ]

    def forget_processes(self, run_id: str, records: Sequence[ProcessRecord]) -> None:
        """These records of a run are done with (their processes ended, or were killed)."""
        if not records:
            return
        with self.begin() as conn:
            for record in records:
                conn.execute(
                    text("DELETE FROM mergegate_processes WHERE run_id = :r AND record = :rec"),
                    {"r": run_id, "rec": record.model_dump_json()},
                )

    def record_supervisor(
        self, run_id: str, executor_id: str, supervisor: SupervisorRecord
    ) -> None:
        """A process about to start the run's children (once per run and process)."""
        with self.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mergegate_supervisors (run_id, executor_id, token, record) "
                    "VALUES (:r, :e, :t, :rec) ON CONFLICT (run_id, token) DO NOTHING"
                ),
                {
                    "r": run_id,
                    "e": executor_id,
                    "t": supervisor.token,
                    "rec": supervisor.model_dump_json(),
                },
            )

    def supervisors(
        self, *, run_id: str | None = None, executor_id: str | None = None
    ) -> list[tuple[str, SupervisorRecord]]:
        """The recorded supervisors of a run, or of an executor (across runs): (run id,
        record). A row this mergegate cannot read is left out (and kept)."""
        rows = self._rows_of(_SUPERVISOR_ROWS, run_id=run_id, executor_id=executor_id)
        found = []
        for run, raw in rows:
            with contextlib.suppress(ValueError):
                found.append((str(run), SupervisorRecord.model_validate_json(str(raw))))
        return found

    def _rows_of(
        self, select: str, *, run_id: str | None, executor_id: str | None
    ) -> list[tuple[object, ...]]:
        """`select`'s rows of one run, or of one executor across runs."""
        if run_id is not None:
            column, key = "run_id", run_id
        elif executor_id is not None:
            column, key = "executor_id", executor_id
        else:
            raise ValueError("a run id or an executor id is needed")
        with self.begin() as conn:
            rows = conn.execute(text(f"{select} WHERE {column} = :key"), {"key": key}).all()
        return [tuple(row) for row in rows]

    def forget_supervisors(self, run_id: str, tokens: Sequence[str]) -> None:
        """These supervisors of a run are gone and what they left is killed."""
        if not tokens:
            return
        with self.begin() as conn:
            for token in tokens:
                conn.execute(
                    text("DELETE FROM mergegate_supervisors WHERE run_id = :r AND token = :t"),
                    {"r": run_id, "t": token},
                )

    # ------------------------------------------------------------ leases

    def lease(self, name: str) -> str | None:
        """The holder of a lease, or None."""
        with self.begin() as conn:
            found = conn.execute(
                text("SELECT holder FROM mergegate_leases WHERE name = :n"), {"n": name}
            ).scalar()
        return None if found is None else str(found)

    def take_lease(self, name: str, holder: str, replacing: str | None) -> bool:
        """Hold a lease: made when there is none (`replacing` None), or taken from the holder
        `replacing` (compare and swap). True when `holder` holds it now."""
        params = {"n": name, "h": holder, "old": replacing}
        with self.begin() as conn:
            if replacing is None:
                conn.execute(
                    text(
                        "INSERT INTO mergegate_leases (name, holder) VALUES (:n, :h) "
                        "ON CONFLICT (name) DO NOTHING"
                    ),
                    params,
                )
            else:
                conn.execute(
                    text(
                        "UPDATE mergegate_leases SET holder = :h WHERE name = :n AND holder = :old"
                    ),
                    params,
                )
            found = conn.execute(
                text("SELECT holder FROM mergegate_leases WHERE name = :n"), params
            ).scalar()
        return found == holder

    def drop_lease(self, name: str, holder: str) -> None:
        """Let a lease go, if `holder` still holds it."""
        with self.begin() as conn:
            conn.execute(
                text("DELETE FROM mergegate_leases WHERE name = :n AND holder = :h"),
                {"n": name, "h": holder},
            )

    # ------------------------------------------------------------ queue limits

    def claim_queue_limit(self, queue: str, global_concurrency: int) -> int:
        """Store `global_concurrency` for `queue` unless a value is stored already (insert if
        absent, in one transaction: of two writers at once, exactly one value is stored);
        returns the value stored now, this one or the earlier one."""
        params = {"q": queue, "g": global_concurrency}
        with self.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mergegate_queue_limits (queue, global_concurrency) "
                    "VALUES (:q, :g) ON CONFLICT (queue) DO NOTHING"
                ),
                params,
            )
            found = conn.execute(text(_QUEUE_LIMIT), params).scalar_one()
        return int(found)

    def queue_limit(self, queue: str) -> int | None:
        """The `global_concurrency` stored for `queue`, or None when none was."""
        with self.begin() as conn:
            found = conn.execute(text(_QUEUE_LIMIT), {"q": queue}).scalar()
        return None if found is None else int(found)


_open: dict[str, Tables] = {}
_open_lock = threading.Lock()
_kept: OrderedDict[Tables, None] = OrderedDict()
"""The SQLite databases that may hold kept connections, least recently used first."""


def _used(db: Tables) -> None:
    """`db` used now: the least recently used SQLite database beyond `KEEP_OPEN` lets its
    connections go (as `Tables.dispose`: one another thread uses is let go when given back)."""
    with _open_lock:
        _kept[db] = None
        _kept.move_to_end(db)
        evicted = _kept.popitem(last=False)[0] if len(_kept) > KEEP_OPEN else None
    if evicted is not None:
        evicted._engine.dispose()


def tables(database_url: str) -> Tables:
    """The tables of a database, one object per database URL in this process (its
    connections, and the check that its tables are up to date, are shared)."""
    with _open_lock:
        found = _open.get(database_url)
        if found is None:
            found = _open[database_url] = Tables(database_url)
        return found
