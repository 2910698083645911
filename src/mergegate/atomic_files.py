"""Durable files: every file mergegate writes is written atomically and read back validated.

The seeds retry a failed `open(...).write(...)` in a loop; that cannot fix a half-written file
left by a crash. Here a write either replaces the whole file or leaves the old one untouched:

* `write_atomic` writes a temporary file in the target's directory, fsyncs it, renames it over
  the target (or links it into place when `overwrite=False`), then fsyncs the directory so the
  rename itself survives a power cut.
* `durable=False` writes a *projection*: a file the run engine rebuilds from its durable state
  whenever a run is replayed (a unit's `SUMMARY.md`, `unit.json`, a task report). It is still
  atomic but not fsynced, because a power cut costs nothing `resume` does not write again and an
  fsync per file would cost more than the rest of a task's orchestration; and it is tolerant,
  because a projection must never fail a run over one character: text UTF-8 cannot encode
  becomes `?` and a value JSON cannot hold is written as its `str()`. Records that are the only
  copy of something (review reports, the plan snapshot, the run's card) keep the default.
* `append_jsonl` appends one whole line per call (`O_APPEND`, a single `write`, fsync), so
  concurrent writers of an event log never interleave inside a line.
* `read_json_validated` reads a JSON file into a pydantic model or raises `UsageError` (exit 2)
  with a message that names the file and what is wrong.

Layer L0: imports only `mergegate.errors` and pydantic.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from mergegate.errors import UsageError

__all__ = [
    "OverwriteRefusedError",
    "append_jsonl",
    "read_json_validated",
    "sync_directory",
    "write_atomic",
    "write_json_atomic",
]

M = TypeVar("M", bound=BaseModel)

_MAX_ERRORS_SHOWN = 10


class OverwriteRefusedError(UsageError, FileExistsError):
    """A write with `overwrite=False` found the target already there (reports are immutable)."""


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    overwrite: bool = True,
    mode: int = 0o644,
    sync_dir: bool = True,
    durable: bool = True,
) -> None:
    """Write `data` to `path` so that readers see either the old file or the whole new one.

    Strings are encoded as UTF-8 (strictly; with `durable=False`, see the module docstring,
    what UTF-8 cannot encode becomes `?` and nothing is fsynced). The file gets permission bits
    `mode` (pass an edited file's own mode to keep a private file private). With
    `overwrite=False` an existing target raises `OverwriteRefusedError` and is left untouched;
    the check and the write are one atomic `link(2)`, so two writers racing for the same name
    cannot both win. On any failure the temporary file is removed and the target is unchanged.
    `sync_dir=False` leaves the directory's fsync to the caller (`sync_directory`), who writes
    several files into one directory and syncs it once after the last.
    """
    target = Path(path)
    if isinstance(data, str):
        payload = data.encode("utf-8", "strict" if durable else "replace")
    else:
        payload = data
    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            # mkstemp creates 0600; mergegate's own files are ordinary readable project files.
            os.fchmod(handle.fileno(), mode)
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, target)
        else:
            _link_no_overwrite(tmp, target)
        if sync_dir and durable:
            _fsync_dir(directory)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _link_no_overwrite(tmp: Path, target: Path) -> None:
    """Put `tmp` at `target` only if nothing is there yet (the temp file is removed later)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise OverwriteRefusedError(f"refusing to overwrite existing file {target}") from None


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """Make the names written into `directory` durable (after `write_atomic(sync_dir=False)`)."""
    _fsync_dir(Path(directory))


def _fsync_dir(directory: Path) -> None:
    # Persist the directory entry created by the rename; not every platform can open a
    # directory for fsync, and the data itself is already durable, so failures are ignored.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platform dependent
        return
    try:
        os.fsync(dir_fd)
    except OSError:  # pragma: no cover - platform dependent
        pass
    finally:
        os.close(dir_fd)


def _to_jsonable(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    return obj


def write_json_atomic(
    path: str | os.PathLike[str], obj: Any, *, overwrite: bool = True, durable: bool = True
) -> None:
    """Write `obj` (a pydantic model or JSON-able value) as indented UTF-8 JSON, atomically.

    A durable record refuses a value JSON cannot hold (`TypeError`, `ValueError` for NaN); a
    projection (`durable=False`) writes its `str()` instead, as the module docstring says why.
    """
    text = _indented_json(_to_jsonable(obj), allow_nan=False) if durable else _projection_json(obj)
    write_atomic(path, text + "\n", overwrite=overwrite, durable=durable)


def _projection_json(obj: Any) -> str:
    """A projection's indented JSON. A model is written by pydantic's own serializer: the
    same text as `json.dumps(..., indent=2)` but for the exponent of a small float (`1e-7`,
    not `1e-07`), and ten times faster — a unit's `unit.json`, rewritten after each of its
    tasks with all of them, cost milliseconds per task in `json`'s pure-Python indenting
    encoder (issue 26, item 7). Text pydantic will not write (a lone surrogate) takes the
    `json` path, which writes it (`write_atomic` then makes it `?`)."""
    if isinstance(obj, BaseModel):
        with contextlib.suppress(ValueError):  # PydanticSerializationError is a ValueError
            return obj.model_dump_json(indent=2)
    return _indented_json(_to_jsonable(obj), default=str)


def _indented_json(
    obj: Any, *, allow_nan: bool = True, default: Callable[[Any], Any] | None = None
) -> str:
    """`json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=..., default=...)`, about
    2.5 times faster: `json` indents in pure Python (its C encoder writes compact text
    only), about 1 ms for a task's 9 KB record, and a unit writes dozens of them (issue 26,
    item 7). The C encoder writes the compact text (so its errors, `allow_nan` and `default`
    are json's own), which is read back into plain JSON values and indented by pydantic's
    serializer: the same text but for the exponent of a small float (`1e-7`, not `1e-07`)
    and, in a dict holding two keys json writes alike (`1` and `"1"`), the first of them.
    Text pydantic will not write (a lone surrogate) is indented by `json` itself."""
    compact = json.dumps(obj, ensure_ascii=False, allow_nan=allow_nan, default=default)
    with contextlib.suppress(ValueError):  # PydanticSerializationError is a ValueError
        return to_json(json.loads(compact), indent=2).decode("utf-8")
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=allow_nan, default=default)


def append_jsonl(path: str | os.PathLike[str], obj: Any) -> None:
    """Append `obj` as one compact JSON line; the line is written by a single `write`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(_to_jsonable(obj), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    data = (line + "\n").encode("utf-8")
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        if written != len(data):  # pragma: no cover - only on a full disk
            raise OSError(f"short write to {target}: {written} of {len(data)} bytes")
        os.fsync(fd)
    finally:
        os.close(fd)


def read_json_validated(path: str | os.PathLike[str], model: type[M]) -> M:
    """Read `path` as JSON into `model`; raise `UsageError` (exit 2) naming the file and the fault.

    Unreadable files, invalid JSON and values that do not match the model all raise; nothing
    is returned half-validated.
    """
    target = Path(path)
    try:
        raw = target.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {target}: {exc.strerror or exc}") from exc
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise UsageError(_describe_invalid(target, model, exc)) from exc


def _describe_invalid(target: Path, model: type[BaseModel], exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    if any(err["type"] == "json_invalid" for err in errors):
        return f"{target}: invalid JSON: {errors[0]['msg']}"
    lines = [f"{target}: does not match {model.__name__}:"]
    for err in errors[:_MAX_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in err["loc"]) or "(root)"
        lines.append(f"  {where}: {err['msg']}")
    if len(errors) > _MAX_ERRORS_SHOWN:
        lines.append(f"  ... and {len(errors) - _MAX_ERRORS_SHOWN} more")
    return "\n".join(lines)
