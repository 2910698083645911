"""The fleet's roll call: each worker's last sign of life, in the fleet's database.

DBOS 3.4 keeps which executor holds which workflow, but not whether that executor is alive
(DBOS Conductor, a commercial service, does that). So each `mergegate worker` writes a row
of its own into `mergegate_workers` every few seconds (`Roll.beat`): its id, host, pid,
when it started, when it last beat, and whether it stopped cleanly. `mergegate workers list`
reads it, and a worker started with `--recover-silent-after` recovers the work of a worker
silent for longer than that (`silent_workers`).

The table is mergegate's own, beside DBOS's schema in the same database, made on first use.
Times are the database's clock (`now()` in SQL), never a worker's own: hosts whose clocks
disagree still agree on who is silent.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import IntegrityError

from mergegate.store._dbos import driver_url, reachable

__all__ = ["Roll", "WorkerBeat"]

# The table name is fixed text in each statement (no SQL is ever built from values).
_CREATE = """
CREATE TABLE IF NOT EXISTS mergegate_workers (
    executor_id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    beat_at TIMESTAMPTZ NOT NULL,
    state TEXT NOT NULL
)
"""
_BEAT = """
INSERT INTO mergegate_workers AS w (executor_id, host, pid, started_at, beat_at, state)
VALUES (:id, :host, :pid, now(), now(), :state)
ON CONFLICT (executor_id) DO UPDATE SET
    host = excluded.host,
    pid = excluded.pid,
    beat_at = now(),
    state = excluded.state,
    started_at = CASE WHEN w.pid = excluded.pid AND w.host = excluded.host
        THEN w.started_at ELSE now() END
"""
_LIST = """
SELECT executor_id, host, pid, extract(epoch FROM started_at), extract(epoch FROM beat_at),
    state, extract(epoch FROM now() - beat_at)
FROM mergegate_workers ORDER BY executor_id
"""


@dataclass(frozen=True)
class WorkerBeat:
    """One worker's row: its last sign of life, as the database saw it."""

    executor_id: str
    host: str
    pid: int
    started_at: float
    """Epoch seconds."""
    beat_at: float
    state: str
    """`running`, or `stopped` (it stopped cleanly: SIGTERM or Ctrl-C)."""
    silent_s: float
    """Seconds since its last beat, by the database's clock."""


class Roll:
    """The roll call of one fleet database (a small connection pool; `close()` it)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._engine: Engine = create_engine(
            driver_url(database_url), pool_size=1, max_overflow=1, pool_pre_ping=True
        )
        self._made = False

    def _ensure(self) -> None:
        if not self._made:
            try:
                with self._engine.begin() as conn:
                    conn.execute(text(_CREATE))
            except IntegrityError:  # another worker made it at the same moment
                pass
            self._made = True

    def beat(self, executor_id: str, host: str, pid: int, *, state: str = "running") -> None:
        """This worker is alive (or, with `state="stopped"`, stopped cleanly). A new pid
        under the same id starts its `started_at` again."""
        with reachable(self.database_url):
            self._ensure()
            with self._engine.begin() as conn:
                conn.execute(
                    text(_BEAT), {"id": executor_id, "host": host, "pid": pid, "state": state}
                )

    def workers(self) -> list[WorkerBeat]:
        """Every worker that ever beat in this database, by id."""
        with reachable(self.database_url):
            self._ensure()
            with self._engine.connect() as conn:
                rows = conn.execute(text(_LIST)).all()
        return [
            WorkerBeat(r[0], r[1], int(r[2]), float(r[3]), float(r[4]), r[5], float(r[6]))
            for r in rows
        ]

    def silent_workers(self, after_s: float, *, but: str) -> list[WorkerBeat]:
        """Workers (other than `but`) whose last beat is older than `after_s` seconds, running
        or stopped: candidates for recovery if they hold work."""
        return [w for w in self.workers() if w.executor_id != but and w.silent_s > after_s]

    def close(self) -> None:
        self._engine.dispose()
