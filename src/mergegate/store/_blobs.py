"""Agent logs shipped off the host that ran them: a copy any host with the database URL reads.

An attempt's row (`AttemptRecord`) names its log's host, path, size and SHA-256 and keeps its
end; the whole log stays on that host's disk. `report` on another host (the run holder's,
after another worker ran the unit; a person's, with only the database URL) needs the whole
log, and the host that wrote it may be gone by then — a killed worker answers no request. So
the log is **pushed when its attempt ends**, not pulled when someone asks: the worker that ran
the attempt stores one compressed copy (zlib), content-addressed by the SHA-256 the row
already holds, in `mergegate_blobs` — or, when `[engine] log_store` names an object store, in
that store, the row keeping its URL. The same content is stored once, whichever attempt,
run or worker ships it again (a replayed step).

Bounded: a log larger than `SHIP_MAX_BYTES` is not shipped (its row's end is what other hosts
see); a copy is decompressed to at most its recorded size, and read back only when its
content's SHA-256 is the one recorded (a copy altered in the store, or in the database, is
refused, with why). The content is agent output: readers show it as plain text or escape it.

The object store is a `file://` directory every host mounts (an NFS export, a bucket mounted
with a FUSE client): mergegate adds no network client; a URL of another scheme is refused when
the configuration is read (`mergegate.config`), and a stored location of another scheme is
never opened.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mergegate.atomic_files import write_atomic
from mergegate.config import object_store_dir
from mergegate.store._tables import Tables

__all__ = ["SHIP_MAX_BYTES", "FetchedLog", "LogCopies", "StoredLog"]

SHIP_MAX_BYTES = 16 * 1024 * 1024
"""The largest log shipped (its size on disk): an agent's whole session is far less; a log
past it is an agent gone wrong, and its end (in the row) says how."""
_STORED_MAX = SHIP_MAX_BYTES + SHIP_MAX_BYTES // 1000 + 1024
"""The most a stored copy may take: zlib adds at most 0.03 % and a few bytes to what it cannot
compress; a larger copy is not one mergegate wrote."""
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class FetchedLog:
    """A shipped log read back: its content (checked against its SHA-256), or why not."""

    data: bytes | None
    problem: str = ""
    """Empty with `data`; else why there is none ("not shipped", or what was wrong)."""
    refused: bool = False
    """A copy is stored, and it is not the content recorded (altered, corrupt, of another
    size): refused, never shown. False when there is simply none to read here."""


@dataclass(frozen=True)
class StoredLog:
    """A shipped copy `gc` deleted (or, in a dry run, would delete)."""

    sha256: str
    size: int
    """The log's size (uncompressed)."""
    location: str
    """The object store's URL of the copy; empty: the copy is in the database row."""
    problem: str = ""
    """Empty, or why the store's file is still there although its row is deleted."""

    def as_dict(self) -> dict[str, object]:
        return {
            "sha256": self.sha256,
            "size": self.size,
            "location": self.location or None,
            "problem": self.problem or None,
        }


class LogCopies:
    """The shipped copies of agent logs in one database (and its object store, if any)."""

    def __init__(self, db: Tables, store_url: str | None = None) -> None:
        self.db = db
        self.store = None if store_url is None else object_store_dir(store_url)

    def ship(self, path: Path, sha256: str, size: int) -> bool:
        """Store a copy of the log at `path`, which the attempt's row records as `size` bytes
        with `sha256`; nothing when it is larger than `SHIP_MAX_BYTES`, is not that content
        any more, or is stored already. True when a copy is stored now (this call's or an
        earlier one's)."""
        if not _SHA256.match(sha256) or not 0 <= size <= SHIP_MAX_BYTES:
            return False
        if self.db.has_blob(sha256):
            return True
        data = _content(path, sha256, size)
        if data is None:
            return False
        packed = zlib.compress(data, 6)
        if self.store is None:
            self.db.put_blob(sha256, size, "", packed)
            return True
        target = self.store / sha256[:2] / f"{sha256}.zz"
        try:
            if not target.is_file():
                write_atomic(target, packed, mode=0o644)
        except OSError:
            return False  # the store unwritable now: the row's end is what others see
        self.db.put_blob(sha256, size, target.as_uri(), None)
        return True

    def fetch(self, sha256: str, size: int) -> FetchedLog:
        """The log of `size` bytes with `sha256`, from its shipped copy; its content only
        when it is exactly that (decompressed to at most `size` bytes, then hashed)."""
        if not _SHA256.match(sha256):
            return FetchedLog(None, "not shipped")
        found = self.db.blob(sha256)
        if found is None:
            return FetchedLog(None, "not shipped")
        stored_size, location, packed = found
        if stored_size != size:
            return FetchedLog(None, f"its copy is of {stored_size} bytes, not {size}", refused=True)
        if location:
            packed, problem = _read_stored(location)
            if packed is None:
                return FetchedLog(None, problem)
        if packed is None or len(packed) > _STORED_MAX:
            return FetchedLog(None, "its copy is not one mergegate stored", refused=True)
        return _unpacked(packed, sha256, size)

    def collect(
        self,
        run_id: str,
        hashes: Sequence[str],
        collected_kind: str,
        *,
        also: Sequence[str] = (),
        dry_run: bool = False,
    ) -> list[StoredLog]:
        """Delete the copies of `hashes` (the logs of `run_id`'s attempts) that no other run
        still names (`Tables.sole_blobs`: runs whose state holds a `collected_kind` row, and
        with `dry_run` those of `also`, do not count), their store files too; with `dry_run`
        list them. A copy another run names is kept: the same content shipped by two runs
        is stored once."""
        valid = [h for h in hashes if _SHA256.match(h)]
        found = [
            StoredLog(*row)
            for row in self.db.sole_blobs(run_id, valid, collected_kind, also if dry_run else ())
        ]
        if dry_run:
            return found
        dropped = []
        for log in found:
            location = self.db.drop_sole_blob(run_id, log.sha256, collected_kind)
            if location is None:
                continue  # named by another run's attempt since it was listed: kept
            dropped.append(replace(log, problem=_unlink_stored(location, log.sha256)))
        return dropped


def _unlink_stored(location: str, sha256: str) -> str:
    """Delete the object store's file of a copy whose row is gone; why not, or "". Only a
    `file:///` URL naming `<sha256>.zz` is ever deleted: a location mergegate did not write
    is left alone."""
    if not location:
        return ""
    try:
        path = object_store_dir(location)
    except ValueError:
        return "its location is not one mergegate writes: left alone"
    if path.name != f"{sha256}.zz":
        return "its location is not one mergegate writes: left alone"
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        return f"its file {path} cannot be deleted here: {exc.strerror or exc}"
    return ""


def _content(path: Path, sha256: str, size: int) -> bytes | None:
    """The file's bytes when they are still the content its row recorded, else None (it was
    rewritten or removed since: not the attempt's log)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(size + 1)
    except OSError:
        return None
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        return None
    return data


def _read_stored(location: str) -> tuple[bytes | None, str]:
    """The compressed copy an object store keeps at `location` (a `file:///` URL), bounded."""
    try:
        path = object_store_dir(location)
    except ValueError:
        return None, "its copy is at a location mergegate does not read"
    try:
        with path.open("rb") as handle:
            return handle.read(_STORED_MAX + 1), ""
    except OSError as exc:
        return None, f"its copy at {location} cannot be read here: {exc.strerror or exc}"


def _unpacked(packed: bytes, sha256: str, size: int) -> FetchedLog:
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(packed, size + 1)
    except zlib.error:
        return FetchedLog(None, "its copy is corrupt", refused=True)
    if len(data) != size or not inflate.eof:
        return FetchedLog(None, "its copy is not of the size recorded", refused=True)
    if hashlib.sha256(data).hexdigest() != sha256:
        return FetchedLog(None, "its copy does not match the SHA-256 recorded", refused=True)
    return FetchedLog(data)
