"""The versioned envelope every handoff travels in (seed 002, plus a `version`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

__all__ = ["ENVELOPE_VERSION", "Envelope", "EnvelopeMetadata", "component_name", "make_envelope"]

ENVELOPE_VERSION: Literal[1] = 1


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class EnvelopeMetadata(_Strict):
    retry_count: int = Field(0, ge=0)
    """Retries it took to obtain `data` (0: the first answer was valid)."""
    previous_errors: list[str] = Field(default_factory=list)
    """One line per failed attempt: `<error type>: <first line of details>`."""


class Envelope(_Strict):
    """A handoff between components: who sent it, about which session, when, and the payload.

    `data` is the payload object; validate it against its payload schema with
    `mergegate.handoff.extract` (or `Schema.validate_object`) before trusting it.
    """

    version: Literal[1] = ENVELOPE_VERSION
    component: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    """The sender, e.g. `agent`, `supervisor`, `code_review`, `reviewer`."""
    session_id: str
    timestamp: AwareDatetime
    status: Literal["success", "failure", "partial"]
    data: dict[str, Any]
    metadata: EnvelopeMetadata = Field(default_factory=EnvelopeMetadata)


def component_name(name: str) -> str:
    """`name` as an envelope's `component` (lower case, letters, digits, `_`, `-`; at most 64;
    `agent` when nothing is left)."""
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")[:64]
    return cleaned if cleaned[:1].isalpha() else "agent"


def make_envelope(
    component: str,
    session_id: str,
    data: dict[str, Any],
    *,
    status: Literal["success", "failure", "partial"] = "success",
    retry_count: int = 0,
    previous_errors: Iterable[str] = (),
    clock: Callable[[], datetime] | None = None,
) -> Envelope:
    """Wrap a payload in an envelope stamped with the current UTC time (or `clock()`)."""
    return Envelope(
        component=component,
        session_id=session_id,
        timestamp=(clock or _utcnow)(),
        status=status,
        data=data,
        metadata=EnvelopeMetadata(retry_count=retry_count, previous_errors=list(previous_errors)),
    )


def _utcnow() -> datetime:
    return datetime.now(UTC)
