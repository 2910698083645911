"""The hook's state records (`_latch`, `_state`: dataclasses read with strict checks, no
pydantic) read every session file as the strict pydantic models they replaced would: the same
documents accepted, the same values, the same documents refused. The reference models below
are those models, kept here as the specification."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mergegate.integrations import HookState, HookStateError, SessionMemory
from mergegate.integrations._latch import Hold, LatchEvent

_TEXT = 300


class _Ref(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class RefFinding(_Ref):
    id: str = Field(max_length=64)
    severity: str = Field(max_length=16)
    title: str = Field(max_length=_TEXT)
    file: str | None = Field(default=None, max_length=_TEXT)
    line: int | None = None


class RefHold(_Ref):
    reviewer: str = Field(max_length=100)
    decision: Literal["fixes", "reject", "malformed", "empty"]
    evidence: str = Field(default="", max_length=_TEXT + 40)
    findings: list[RefFinding] = Field(default_factory=list, max_length=50)
    at: float = 0.0
    cwd: str = Field(default="", max_length=4096)


class RefEvent(_Ref):
    at: float
    action: Literal["close", "open", "release"]
    reviewer: str | None = Field(default=None, max_length=100)
    decision: str | None = Field(default=None, max_length=16)
    who: str | None = Field(default=None, max_length=200)
    reason: str = Field(default="", max_length=600)


class RefLatch(_Ref):
    state: Literal["open", "closed"] = "open"
    holds: dict[str, RefHold] = Field(default_factory=dict)
    history: list[RefEvent] = Field(default_factory=list)


class RefReview(_Ref):
    malformed: int = Field(0, ge=0)
    excerpts: list[str] = Field(default_factory=list)
    updated: float = 0.0
    restate_id: str | None = Field(default=None, max_length=64)


class RefSession(_Ref):
    latch: RefLatch = Field(default_factory=RefLatch)
    reviews: dict[str, RefReview] = Field(default_factory=dict)


# ---------------------------------------------------------------- documents
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.just([]),
    st.just({}),
)


def texts(limit: int) -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=4), st.text(min_size=limit, max_size=limit + 1))


def objects(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with some of `fields` (each right or a wrong type) and maybe an unknown key."""
    entries = {key: st.one_of(value, value, junk) for key, value in fields.items()}
    return st.fixed_dictionaries({}, optional={**entries, "extra": junk})


numbers = st.one_of(st.integers(-(2**40), 2**40), st.floats(allow_nan=False))
findings = objects(
    {
        "id": texts(64),
        "severity": texts(16),
        "title": texts(_TEXT),
        "file": st.one_of(st.none(), texts(_TEXT)),
        "line": st.one_of(st.none(), st.integers(-5, 5)),
    }
)
holds = objects(
    {
        "reviewer": texts(100),
        "decision": st.sampled_from(["fixes", "reject", "malformed", "empty", "approve"]),
        "evidence": texts(_TEXT + 40),
        "findings": st.lists(findings, max_size=2) | st.just([{"id": "f"}] * 51),
        "at": numbers,
        "cwd": texts(4096),
    }
)
events = objects(
    {
        "at": numbers,
        "action": st.sampled_from(["close", "open", "release", "ajar"]),
        "reviewer": st.one_of(st.none(), texts(100)),
        "decision": st.one_of(st.none(), texts(16)),
        "who": st.one_of(st.none(), texts(200)),
        "reason": texts(600),
    }
)
latches = objects(
    {
        "state": st.sampled_from(["open", "closed", "shut"]),
        "holds": st.dictionaries(st.text(max_size=3), holds, max_size=2),
        "history": st.lists(events, max_size=2),
    }
)
reviews = objects(
    {
        "malformed": st.integers(-2, 100),
        "excerpts": st.lists(st.text(max_size=3), max_size=2),
        "updated": numbers,
        "restate_id": st.one_of(st.none(), texts(64)),
    }
)
sessions = objects(
    {"latch": latches, "reviews": st.dictionaries(st.text(max_size=3), reviews, max_size=2)}
)


def _reference(data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return RefSession.model_validate(data).model_dump(mode="python")
    except ValidationError:
        return None


def _records(data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return SessionMemory.from_json(data).to_json()
    except ValueError:
        return None


@settings(max_examples=300, deadline=None)
@given(sessions)
def test_the_records_read_every_session_as_the_strict_models_do(data: dict[str, Any]) -> None:
    assert _records(data) == _reference(data)


@settings(max_examples=200, deadline=None)
@given(sessions)
def test_what_is_written_reads_back_the_same(data: dict[str, Any]) -> None:
    read = _records(data)
    if read is not None:
        again = SessionMemory.from_json(json.loads(json.dumps(read)))
        assert again.to_json() == read


@pytest.mark.parametrize(
    "document",
    [
        b'{"latch": {"state": "closed", "holds": {"r": {"reviewer": "r", "decision": "fixes",'
        b' "at": "1.5"}}}}',  # a string is not a time
        b'{"latch": {"holds": {"r": {"reviewer": "r", "decision": "approve"}}}}',
        b'{"reviews": {"r": {"malformed": true}}}',  # a bool is not a count
        b'{"reviews": {"r": {"malformed": -1}}}',
        b'{"latch": {"history": [{"at": 1, "action": "close", "who": 5}]}}',
        b"[]",
    ],
)
def test_a_session_file_out_of_shape_is_refused(tmp_path: Path, document: bytes) -> None:
    state = HookState(tmp_path / "hooks")
    with state.session("s"):
        pass  # creates the directories
    (state.sessions_dir / "s.json").write_bytes(document)
    with pytest.raises(HookStateError):
        state.read_session("s")


def test_records_check_their_bounds_when_built() -> None:
    with pytest.raises(ValueError, match="decision"):
        Hold(reviewer="r", decision="approve")
    with pytest.raises(ValueError, match="reviewer"):
        Hold(reviewer="r" * 101, decision="fixes")
    with pytest.raises(ValueError, match="action"):
        LatchEvent(at=1.0, action="ajar")  # type: ignore[arg-type]
    assert Hold(reviewer="r", decision="fixes", at=3).at == 3.0
