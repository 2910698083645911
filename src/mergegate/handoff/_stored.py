"""Handoff records as they are stored: every one in the common envelope (seed 002, "Common
JSON Envelope Structure": component, session_id, timestamp, status, data, and metadata with
`retry_count` and `previous_errors`).

The implementer's collected `agent-result`, an advisor consultation's outcome, a reviewer's
verdict and a failed handoff's file are each written by `store_record` and read back by
`read_record`, which validates the envelope and then its `data` against the record's own
model: one shape on disk for every handoff, the record's fields inside `data`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from mergegate.atomic_files import read_json_validated, write_json_atomic
from mergegate.errors import UsageError
from mergegate.handoff._envelope import Envelope, component_name, make_envelope
from mergegate.handoff._records import HandoffRecord, retry_metadata

__all__ = ["read_record", "retry_metadata", "store_record"]

M = TypeVar("M", bound=BaseModel)
Status = Literal["success", "failure", "partial"]


def store_record(
    path: Path,
    *,
    component: str,
    session_id: str | None,
    data: BaseModel | Mapping[str, Any],
    status: Status,
    record: HandoffRecord | None = None,
    retry_count: int | None = None,
    previous_errors: Iterable[str] | None = None,
    overwrite: bool = False,
) -> Envelope:
    """Write `data` in an envelope at `path` (atomically; `overwrite=False` refuses an
    existing file). The retry metadata comes from `record` unless given."""
    counted, errors = retry_metadata(record)
    payload = data.model_dump(mode="json") if isinstance(data, BaseModel) else dict(data)
    envelope = make_envelope(
        component_name(component),
        session_id or "",
        payload,
        status=status,
        retry_count=counted if retry_count is None else retry_count,
        previous_errors=errors if previous_errors is None else previous_errors,
    )
    write_json_atomic(path, envelope, overwrite=overwrite)
    return envelope


def read_record(path: Path, model: type[M]) -> tuple[Envelope, M]:
    """The envelope at `path` and its `data` validated as `model`; `UsageError` (exit 2)
    naming the file when either does not validate (or the file cannot be read)."""
    envelope = read_json_validated(path, Envelope)
    try:
        return envelope, model.model_validate(envelope.data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise UsageError(
            f"{path}: its data does not match {model.__name__}: {where}: {first['msg']}"
        ) from exc
