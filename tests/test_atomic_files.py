"""Durable files: atomic replacement, refusal to overwrite, validated reads, JSON lines."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel

from mergegate.agents._sessions import SessionStore
from mergegate.atomic_files import (
    OverwriteRefusedError,
    append_jsonl,
    read_json_validated,
    write_atomic,
    write_json_atomic,
)
from mergegate.errors import UsageError


class Report(BaseModel):
    name: str
    count: int


def test_write_atomic_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.txt"
    write_atomic(target, "first")
    assert target.read_text() == "first"
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_crash_between_write_and_rename_leaves_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "state.json"
    target.write_text("old and intact")

    def crash(src: str, dst: str) -> None:
        raise OSError("simulated crash before rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        write_atomic(target, "new content that must not appear")
    assert target.read_text() == "old and intact"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temp file left behind


def test_crash_during_write_leaves_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")

    def crash(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_no_overwrite_when_refused(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_json_atomic(target, {"v": 1}, overwrite=False)
    with pytest.raises(OverwriteRefusedError) as raised:
        write_json_atomic(target, {"v": 2}, overwrite=False)
    assert isinstance(raised.value, UsageError)
    assert isinstance(raised.value, FileExistsError)
    assert int(raised.value.exit_code) == 2
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_racing_no_overwrite_writers_have_one_winner(tmp_path: Path) -> None:
    target = tmp_path / "once.txt"
    outcomes: list[str] = []

    def writer(n: int) -> None:
        try:
            write_atomic(target, f"writer {n}", overwrite=False)
            outcomes.append("won")
        except OverwriteRefusedError:
            outcomes.append("refused")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("won") == 1
    assert outcomes.count("refused") == 7
    assert target.read_text().startswith("writer ")


def test_write_json_atomic_accepts_models(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_json_atomic(target, Report(name="x", count=2))
    assert read_json_validated(target, Report) == Report(name="x", count=2)


def test_write_json_refuses_nan(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Out of range float"):
        write_json_atomic(tmp_path / "n.json", {"x": float("nan")})
    assert not (tmp_path / "n.json").exists()


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "invalid JSON"),
        ('{"name": "x"}', "count"),
        ('{"name": "x", "count": "many"}', "count"),
    ],
)
def test_read_json_validated_rejects_invalid(tmp_path: Path, content: str, fragment: str) -> None:
    target = tmp_path / "bad.json"
    target.write_text(content)
    with pytest.raises(UsageError) as raised:
        read_json_validated(target, Report)
    assert str(target) in str(raised.value)
    assert fragment in str(raised.value)
    assert int(raised.value.exit_code) == 2


def test_read_json_validated_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        read_json_validated(tmp_path / "absent.json", Report)


def test_append_jsonl_writes_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "deep" / "events.jsonl"
    for n in range(3):
        append_jsonl(log, {"n": n, "text": "line\nbreak"})
    append_jsonl(log, Report(name="m", count=1))
    lines = log.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"n": 0, "text": "line\nbreak"},
        {"n": 1, "text": "line\nbreak"},
        {"n": 2, "text": "line\nbreak"},
        {"name": "m", "count": 1},
    ]


def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"

    def writer(n: int) -> None:
        for i in range(50):
            append_jsonl(log, {"writer": n, "i": i, "pad": "x" * 500})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 200
    assert {(r["writer"], r["i"]) for r in records} == {(n, i) for n in range(4) for i in range(50)}


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_a_durable_write_fsyncs_the_file_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_fsyncs(monkeypatch)
    write_atomic(tmp_path / "f.txt", "x")
    assert len(calls) == 2


def test_a_projection_is_atomic_tolerant_and_not_fsynced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_fsyncs(monkeypatch)
    write_atomic(tmp_path / "p.md", "lone \ud800 surrogate", durable=False)
    write_json_atomic(tmp_path / "p.json", {"where": tmp_path}, durable=False)
    assert calls == []
    assert (tmp_path / "p.md").read_bytes() == b"lone ? surrogate"
    assert json.loads((tmp_path / "p.json").read_text()) == {"where": str(tmp_path)}
    with pytest.raises(UnicodeEncodeError):
        write_atomic(tmp_path / "d.md", "lone \ud800 surrogate")
    with pytest.raises(TypeError):
        write_json_atomic(tmp_path / "d.json", {"where": tmp_path})


def test_a_saved_chat_session_stays_private(tmp_path: Path) -> None:
    """The HTTP backends' histories go through `write_atomic` and keep mode 0600."""
    store = SessionStore(tmp_path, "openai")
    path = store.save("0123abcd", [{"role": "user", "content": "hi"}], {})
    assert path.parent == tmp_path / "sessions" / "openai"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["messages"] == [{"role": "user", "content": "hi"}]


class _Projected(BaseModel):
    text: str
    numbers: list[float]
    nested: dict[str, list[int]]
    nothing: None = None
    report: Report


@pytest.mark.parametrize(
    "text",
    ["plain", "é 😀 \u2028", 'quotes " and \\ slashes /', "\x00\x01\x1f\x7f\n\t\r", ""],
)
def test_a_projected_model_is_written_as_json_dumps_wrote_it(tmp_path: Path, text: str) -> None:
    """A model in a projection goes through pydantic's serializer (issue 26, item 7: the
    pure-Python indenting encoder was milliseconds per unit.json): the same bytes as
    `json.dumps(model_dump(mode="json"), indent=2, ensure_ascii=False)` wrote."""
    model = _Projected(
        text=text,
        numbers=[0.5, 1.0, -0.0, 123456789.123, 1e22, 1.2345678901234568e16],
        nested={"a": [1, 2], "": []},
        report=Report(name=text, count=3),
    )
    write_json_atomic(tmp_path / "m.json", model, durable=False)
    old = json.dumps(model.model_dump(mode="json"), indent=2, ensure_ascii=False, default=str)
    assert (tmp_path / "m.json").read_text("utf-8") == old + "\n"


def test_a_projected_model_pydantic_cannot_write_still_is_written(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "m.json", Report(name="lone \ud800", count=1), durable=False)
    assert json.loads((tmp_path / "m.json").read_text("utf-8"))["name"] == "lone ?"
