"""Assembling a pinned model from chunk packages: verified once, atomic, reused."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mergegate.agents._model_store import (
    MODELS,
    ModelMissingError,
    ModelSpec,
    ModelStoreError,
    assemble,
    model_cache_dir,
    model_path,
    part_paths,
)
from mergegate.errors import AgentError

CHUNKS = (b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5)


@pytest.fixture
def parts(tmp_path: Path) -> list[Path]:
    paths = []
    for number, data in enumerate(CHUNKS, start=1):
        path = tmp_path / "parts" / f"part{number:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    return paths


def spec_for(data: bytes, **overrides: object) -> ModelSpec:
    values: dict[str, object] = {
        "name": "tiny",
        "parts": (("tiny_part1", "data/part01.bin"),),
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "extra": "local",
    }
    values.update(overrides)
    return ModelSpec(**values)  # type: ignore[arg-type]


def test_assembles_in_order_and_verifies(tmp_path: Path, parts: list[Path]) -> None:
    whole = b"".join(CHUNKS)
    out = assemble(spec_for(whole), parts, tmp_path / "cache")
    assert out.read_bytes() == whole
    assert out.name == f"tiny-{hashlib.sha256(whole).hexdigest()[:12]}.gguf"
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no temp file left


def test_sha_mismatch_is_a_clear_error_and_leaves_nothing(
    tmp_path: Path, parts: list[Path]
) -> None:
    whole = b"".join(CHUNKS)
    spec = spec_for(whole, sha256="0" * 64)
    with pytest.raises(ModelStoreError, match="sha256") as info:
        assemble(spec, parts, tmp_path / "cache")
    assert "0" * 64 in str(info.value)
    assert hashlib.sha256(whole).hexdigest() in str(info.value)
    assert list((tmp_path / "cache").iterdir()) == []


def test_wrong_order_is_caught_by_the_hash(tmp_path: Path, parts: list[Path]) -> None:
    spec = spec_for(b"".join(CHUNKS))
    with pytest.raises(ModelStoreError, match="sha256"):
        assemble(spec, list(reversed(parts)), tmp_path / "cache")


def test_size_mismatch_names_the_sizes(tmp_path: Path, parts: list[Path]) -> None:
    spec = spec_for(b"".join(CHUNKS), size=42)
    with pytest.raises(ModelStoreError, match=r"assembled 1786 bytes, expected 42"):
        assemble(spec, parts, tmp_path / "cache")


def test_reuses_the_assembled_file(tmp_path: Path, parts: list[Path]) -> None:
    spec = spec_for(b"".join(CHUNKS))
    out = assemble(spec, parts, tmp_path / "cache")
    stamp = out.stat().st_mtime_ns
    for part in parts:
        part.unlink()  # a second call must not even read the parts
    assert assemble(spec, parts, tmp_path / "cache") == out
    assert out.stat().st_mtime_ns == stamp


def test_a_leftover_partial_file_is_ignored(tmp_path: Path, parts: list[Path]) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ".tiny-crashed.partial").write_bytes(b"half")
    spec = spec_for(b"".join(CHUNKS))
    (cache / spec.file_name).write_bytes(b"truncated")  # wrong size: not trusted
    out = assemble(spec, parts, cache)
    assert out.read_bytes() == b"".join(CHUNKS)


def test_unreadable_part_is_a_store_error(tmp_path: Path, parts: list[Path]) -> None:
    with pytest.raises(ModelStoreError, match="cannot read model part"):
        assemble(spec_for(b"x"), [tmp_path / "absent.bin"], tmp_path / "cache")


def test_missing_package_names_the_extra() -> None:
    spec = ModelSpec(
        name="ghost",
        parts=(("mergegate_no_such_package_xyz", "data/part01.bin"),),
        size=1,
        sha256="0" * 64,
        extra="local",
    )
    with pytest.raises(ModelMissingError, match=r"pip install 'mergegate\[local\]'"):
        part_paths(spec)


def test_part_paths_finds_resources_in_installed_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in (1, 2):
        package = tmp_path / "site" / f"fake_part{number}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{number:02d}.bin").write_bytes(b"x")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    spec = spec_for(
        b"xx", parts=(("fake_part1", "data/part01.bin"), ("fake_part2", "data/part02.bin"))
    )
    paths = part_paths(spec)
    assert [p.name for p in paths] == ["part01.bin", "part02.bin"]
    assert assemble(spec, paths, tmp_path / "cache").read_bytes() == b"xx"


def test_unknown_model_is_an_agent_error() -> None:
    with pytest.raises(AgentError, match="unknown local model"):
        model_path("gpt-17")


def test_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MERGEGATE_MODEL_CACHE", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("MERGEGATE_MODEL_CACHE")
    assert model_cache_dir() == tmp_path / "xdg" / "mergegate" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert model_cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "mergegate" / "models"


def test_pins_match_the_research_notes() -> None:
    small = MODELS["qwen2.5-coder-0.5b"]
    assert small.size == 491_400_064
    assert len(small.parts) == 6
    assert small.sha256.startswith("1d9614638d18")
    big = MODELS["qwen2.5-coder-1.5b"]
    assert big.size == 1_117_320_768
    assert len(big.parts) == 22
    assert big.sha256.startswith("cc324af070c2")
