"""mergegate's own tables keep their SQLite connections between uses (issue 26, item 7: a
connection per use cost about 37 connects per task), without what a connection per use gave
for free: every use reaches the file now at the path (not one moved or deleted since), a
process that read many runs' files keeps only a few open, and a run killed mid-write leaves
nothing a kept connection of another process trips on."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import event, text

from mergegate.store import sqlite_url
from mergegate.store._tables import KEEP_OPEN, Tables, tables


def _connects(db: Tables) -> list[object]:
    made: list[object] = []
    event.listen(db._engine, "connect", lambda conn, _record: made.append(conn))
    return made


def _values(path: Path, run_id: str) -> list[str]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT value FROM mergegate_run_state WHERE run_id = ? ORDER BY value", (run_id,)
        ).fetchall()
    return [str(r[0]) for r in rows]


def test_uses_of_a_database_share_one_connection(tmp_path: Path) -> None:
    db = Tables(sqlite_url(tmp_path / "run.sqlite"))
    try:
        made = _connects(db)
        for i in range(20):
            db.put("r", "k", (str(i),), "v", replace=True)
            assert db.get("r", "k", (str(i),)) == "v"
        assert len(made) <= 1  # one per use (40) before
    finally:
        db.dispose()


def test_a_kept_connection_follows_its_file_when_it_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    first = Tables(sqlite_url(path))
    second: Tables | None = None
    try:
        first.put("r", "k", ("a",), "before", replace=True)  # a connection kept to this file
        for suffix in ("", "-wal", "-shm"):  # the file moved away, another made in its place
            moved = Path(f"{path}{suffix}")
            if moved.exists():
                moved.rename(Path(f"{path}.old{suffix}"))
        second = Tables(sqlite_url(path))
        second.put("r", "k", ("b",), "new file", replace=True)
        first.put("r", "k", ("c",), "after", replace=True)
        assert _values(path, "r") == ["after", "new file"]  # not into the moved file
        assert _values(Path(f"{path}.old"), "r") == ["before"]
    finally:
        first.dispose()
        if second is not None:
            second.dispose()


def test_a_connection_opened_for_a_use_is_taken_though_a_checkpoint_wrote_the_file(
    tmp_path: Path,
) -> None:
    """A checkpoint (DBOS's connections, another thread) may write the file between the open
    of a connection and its checkout. The pool opened one again and checked again; a second
    change there made it give up ('This connection is closed'), which failed a run."""
    path = tmp_path / "run.sqlite"
    db = Tables(sqlite_url(path))
    stamp = [1_000_000_000]

    def checkpoint(*_: object) -> None:  # the file written: a new modification time
        stamp[0] += 1_000_000_000
        os.utime(path, ns=(stamp[0], stamp[0]))

    try:
        db.put("r", "k", ("a",), "before", replace=True)  # a connection kept to this file
        checkpoint()  # the kept connection's view of the file is now stale
        event.listen(db._engine, "connect", checkpoint)  # and each open is followed by one
        db.put("r", "k", ("b",), "after", replace=True)
        assert db.get("r", "k", ("b",)) == "after"
        assert _values(path, "r") == ["after", "before"]
    finally:
        db.dispose()


def _open_databases(under: Path) -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(under)) and target.endswith(".sqlite"):
            found.add(target)
    return found


def test_a_process_that_read_many_databases_keeps_few_open(tmp_path: Path) -> None:
    urls = [sqlite_url(tmp_path / f"run{i}.sqlite") for i in range(KEEP_OPEN * 3)]
    for url in urls:
        tables(url).put("r", "k", ("a",), "v", replace=True)
        assert tables(url).get("r", "k", ("a",)) == "v"
    try:
        assert 1 <= len(_open_databases(tmp_path)) <= KEEP_OPEN
    finally:
        for url in urls:
            tables(url).dispose()
    assert _open_databases(tmp_path) == set()


_KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from sqlalchemy import text
    from mergegate.store._tables import Tables
    db = Tables(sys.argv[1])
    db.put("r", "k", ("committed",), "by the killed run", replace=True)
    with db.begin() as conn:  # killed holding the write lock, its row never committed
        conn.execute(
            text("INSERT INTO mergegate_run_state (run_id, kind, key, value) "
                 "VALUES ('r', 'k', '[\\"lost\\"]', 'never')")
        )
        os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_kept_connection_resumes_after_a_run_killed_mid_write(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    db = Tables(sqlite_url(path))
    try:
        db.put("r", "k", ("here",), "before the run", replace=True)  # kept across the crash
        done = subprocess.run(
            [sys.executable, "-c", _KILLED_WRITER, sqlite_url(path)], check=False, timeout=60
        )
        assert done.returncode == -9
        # the resuming process sees what the killed one committed, not what it did not, and
        # writes at once (the kill released the lock)
        assert db.get("r", "k", ("committed",)) == "by the killed run"
        assert db.get("r", "k", ("lost",)) is None
        db.put("r", "k", ("resumed",), "after", replace=True)
        with db.begin() as conn:
            count = conn.execute(text("SELECT count(*) FROM mergegate_run_state")).scalar()
        assert count == 3
    finally:
        db.dispose()
