"""Agent logs shipped off the host that ran them (`mergegate.store.LogCopies`, issue 28): one
compressed copy per content, in the database or in a `file://` object store; read back only
when its content is the one recorded; bounded both ways; and `report` on a host with only the
database URL writes the copy beside its page, or says why there is none."""

from __future__ import annotations

import hashlib
import socket
import zlib
from pathlib import Path

import pytest
from sqlalchemy import text

from mergegate.config import load_config, object_store_dir
from mergegate.engine._context.attempt_rows import report_logs, ship_log
from mergegate.errors import ConfigError
from mergegate.store import SHIP_MAX_BYTES, AttemptRecord, LogCopies, RunRows, tables


def _log(tmp_path: Path, data: bytes) -> tuple[Path, str]:
    path = tmp_path / "worker" / "agent.stdout.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def test_a_log_is_stored_once_and_read_back_checked(database_url: str, tmp_path: Path) -> None:
    data = b"line\n" * 10_000 + b"\x00\xff not utf-8 <script>\n"
    path, sha = _log(tmp_path, data)
    copies = LogCopies(tables(database_url))
    assert copies.ship(path, sha, len(data))
    assert copies.ship(path, sha, len(data))  # again (a replayed step): the same one row
    with tables(database_url).begin() as conn:
        rows = conn.execute(text("SELECT count(*), max(length(data)) FROM mergegate_blobs")).one()
    assert rows[0] == 1
    assert rows[1] < len(data) // 20  # compressed
    path.unlink()  # the worker's disk is gone: the copy is what is left
    assert copies.fetch(sha, len(data)).data == data
    assert copies.fetch("0" * 64, 3).problem == "not shipped"
    assert copies.fetch("../../etc/passwd", 3).problem == "not shipped"


def test_a_log_that_changed_or_is_too_large_is_not_shipped(
    database_url: str, tmp_path: Path
) -> None:
    path, sha = _log(tmp_path, b"what the row recorded")
    copies = LogCopies(tables(database_url))
    path.write_bytes(b"what an agent wrote since")  # not the attempt's log any more
    assert not copies.ship(path, sha, len(b"what the row recorded"))
    assert not copies.ship(path, sha, SHIP_MAX_BYTES + 1)
    assert not copies.ship(tmp_path / "missing.log", sha, 3)
    assert copies.fetch(sha, 21).problem == "not shipped"


def test_a_copy_altered_in_the_database_is_refused(database_url: str, tmp_path: Path) -> None:
    data = b"the real log\n" * 100
    path, sha = _log(tmp_path, data)
    db = tables(database_url)
    copies = LogCopies(db)
    assert copies.ship(path, sha, len(data))
    forged = b"a forged log!\n" * 100
    forged = forged[: len(data)]
    with db.begin() as conn:
        conn.execute(
            text("UPDATE mergegate_blobs SET data = :d WHERE sha256 = :h"),
            {"d": zlib.compress(forged), "h": sha},
        )
    assert copies.fetch(sha, len(data)).problem == "its copy does not match the SHA-256 recorded"
    # a bomb: a small copy that inflates far past the size recorded is cut at it
    with db.begin() as conn:
        conn.execute(
            text("UPDATE mergegate_blobs SET data = :d WHERE sha256 = :h"),
            {"d": zlib.compress(b"\0" * (64 << 20)), "h": sha},
        )
    assert copies.fetch(sha, len(data)).problem == "its copy is not of the size recorded"
    with db.begin() as conn:
        conn.execute(
            text("UPDATE mergegate_blobs SET data = :d WHERE sha256 = :h"),
            {"d": b"not zlib", "h": sha},
        )
    assert copies.fetch(sha, len(data)).problem == "its copy is corrupt"


def test_an_object_store_keeps_the_bytes_and_the_row_its_url(
    database_url: str, tmp_path: Path
) -> None:
    data = b"an agent's session\n" * 1000
    path, sha = _log(tmp_path, data)
    store = tmp_path / "bucket"
    copies = LogCopies(tables(database_url), store.as_uri())
    assert copies.ship(path, sha, len(data))
    (kept,) = store.rglob("*.zz")
    assert kept.name == f"{sha}.zz"
    size, location, in_row = tables(database_url).blob(sha) or (0, "", b"")
    assert (size, location, in_row) == (len(data), kept.as_uri(), None)
    # any host reads it through the URL in the row (no store configured there)
    reader = LogCopies(tables(database_url))
    assert reader.fetch(sha, len(data)).data == data
    kept.write_bytes(zlib.compress(b"x" * len(data)))  # altered in the store
    assert reader.fetch(sha, len(data)).problem == "its copy does not match the SHA-256 recorded"
    kept.unlink()
    assert "cannot be read here" in reader.fetch(sha, len(data)).problem


def test_only_a_file_url_is_an_object_store(tmp_path: Path) -> None:
    assert object_store_dir("file:///srv/logs") == Path("/srv/logs")
    for url in (
        "s3://bucket/logs",
        "file://host/srv",
        "file:relative",
        "/srv/logs",
        "file:///a/../b",
    ):
        with pytest.raises(ValueError, match="log_store"):
            object_store_dir(url)
    with pytest.raises(ConfigError, match="log_store"):
        load_config(tmp_path, env={"MERGEGATE_ENGINE__LOG_STORE": "s3://bucket/logs"})
    config = load_config(tmp_path, env={"MERGEGATE_ENGINE__LOG_STORE": "file:///srv/logs"})
    assert config.engine.log_store == "file:///srv/logs"


def _attempt(tmp_path: Path, rows: RunRows, name: str, data: bytes, host: str) -> AttemptRecord:
    path, sha = _log(tmp_path / name, data)
    record = AttemptRecord(
        attempt=f"P1/A/T1/attempts/{name}",
        role="implementer",
        backend="command",
        status="ok",
        host=host,
        log_path=str(path),
        log_bytes=len(data),
        log_sha256=sha,
        log_excerpt=data.decode()[-100:],
    )
    rows.record_attempt(record)
    return record


def test_report_copies_a_shipped_log_here_or_says_why_not(
    database_url: str, tmp_path: Path
) -> None:
    rows = RunRows(tables(database_url), "r1")
    shipped = _attempt(tmp_path, rows, "01-implementer", b"shipped <b>log</b>\n", "worker-1")
    assert ship_log(rows, shipped, None)
    kept = _attempt(tmp_path, rows, "02-implementer", b"never shipped\n", "worker-2")
    here = _attempt(tmp_path, rows, "03-implementer", b"written here\n", socket.gethostname())
    assert ship_log(rows, here, None)
    copies = tmp_path / "observer" / "shipped-logs"
    logs = {log.attempt.rsplit("/", 1)[1]: log for log in report_logs(rows, copies)}
    one = logs["01-implementer"]
    assert (one.here, one.copy_of, one.path) == (
        True,
        "worker-1",
        str(copies / f"{shipped.log_sha256}.log"),
    )
    assert Path(one.path).read_bytes() == b"shipped <b>log</b>\n"
    two = logs["02-implementer"]
    assert (two.here, two.problem, two.path) == (False, "not shipped", kept.log_path)
    three = logs["03-implementer"]  # on this host: the original, no copy made
    assert (three.here, three.copy_of, three.path) == (True, "", here.log_path)
    assert sorted(p.name for p in copies.iterdir()) == [f"{shipped.log_sha256}.log"]
    # a second report reuses the checked copy
    again = report_logs(rows, copies)
    assert again[0] == one
