"""Writing the run's projections: atomic (a reader sees the old file or the new one) but not
fsynced. They are rebuilt from the durable state whenever a run is replayed, so a power cut
costs nothing that `resume` does not write again; an fsync per file would cost more than the
rest of a task's orchestration. Records that are the only copy of something (review reports,
the plan snapshot, the run's card) go through `mergegate.atomic_files`, which fsyncs.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["write_atomic", "write_json_atomic"]


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) by a rename; the folder is made if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
            os.fchmod(handle.fileno(), 0o644)
            handle.write(text)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_json_atomic(path: Path, value: Any) -> None:
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
