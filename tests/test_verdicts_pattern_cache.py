"""`verdicts._pattern_cache`: a pattern built from opcodes an earlier process kept is the
pattern `re.compile` builds, and a cache file that is damaged, foreign or tampered with changes
nothing but the time it takes."""

from __future__ import annotations

import gc
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mergegate.verdicts
from mergegate.verdicts import _pattern_cache as cache
from mergegate.verdicts._patterns import _LazyPattern

# Lines that exercise vocabularies, anchors, look-arounds, case and scripts.
SAMPLES = [
    "**Ready to merge?** Yes",
    "Ready to merge: No — fix the migration first.",
    "## Verdict\n\nAPPROVED WITH REQUIRED FIXES",
    "- [x] Tests pass ✅\n- [ ] DBA sign-off pending",
    "Status: passed\nupdated: 2026-01-02",
    "結論：承認（差し戻しなし）",
    "总体 verdict：Spec PASS；Quality APPROVED；可集成。",
    "| Verdict | CHANGES_REQUESTED |",
    "I'm withdrawing the approval above; `test_verdict_reject_all` still fails.",
    "LGTM 👍 ship it",
    "",
]


def _library_patterns() -> list[tuple[str, int]]:
    """Every lazy pattern of the verdict library (all its modules imported)."""
    for module in pkgutil.walk_packages(mergegate.verdicts.__path__, "mergegate.verdicts."):
        importlib.import_module(module.name)
    found = {(p.pattern, p.flags) for p in gc.get_objects() if isinstance(p, _LazyPattern)}
    return sorted(found)


def _answers(compiled: re.Pattern[str]) -> list[object]:
    out: list[object] = []
    for text in SAMPLES:
        match = compiled.search(text)
        out.append(None if match is None else (match.span(), match.groups()))
        out.append(compiled.sub("·", text))
    return out


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module's cache pointed at a file under `tmp_path`, nothing loaded yet."""
    path = tmp_path / "__pycache__" / "verdict-patterns.test.bin"
    monkeypatch.setattr(cache, "cache_path", lambda: str(path))
    monkeypatch.setattr(cache, "_cache", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(cache.atexit, "register", lambda _fn: None)  # written by the test
    return path


def _reload() -> None:
    cache._cache = None  # the next compile reads the file, as a new process does


def test_every_library_pattern_built_from_the_file_is_re_compiles(fresh_cache: Path) -> None:
    patterns = _library_patterns()
    assert len(patterns) > 200
    for pattern, flags in patterns:
        cache.compile_cached(pattern, flags)
    cache._write_at_exit()
    assert fresh_cache.is_file()
    _reload()
    loaded = cache._the_cache().loaded
    assert set(loaded) == set(patterns)
    for pattern, flags in patterns:
        built = cache.compile_cached(pattern, flags)
        expected = re.compile(pattern, flags)
        assert built is not expected  # not re's own cache: built from the file
        assert (built.pattern, built.flags, built.groups, built.groupindex) == (
            expected.pattern,
            expected.flags,
            expected.groups,
            expected.groupindex,
        )
        assert _answers(built) == _answers(expected), pattern[:80]
    assert cache._the_cache().fresh == {}  # nothing needed compiling again


def _written_file(path: Path) -> bytes:
    cache.compile_cached(r"(?P<word>approved?)\b", re.IGNORECASE)
    cache.compile_cached(r"^ready to merge\?\s*(yes|no)$", re.MULTILINE)
    cache._write_at_exit()
    _reload()
    return path.read_bytes()


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[: len(d) // 2], id="truncated"),
        pytest.param(lambda d: b"", id="empty"),
        pytest.param(lambda d: b"\xff" * 64, id="noise"),
        pytest.param(lambda d: _flip(d, len(d) - 3), id="opcode bit flipped"),
        pytest.param(lambda d: d.replace(b'"format": 1', b'"format": 9'), id="other format"),
        pytest.param(lambda d: d.replace(b'"magic": ', b'"magic": 1'), id="other sre magic"),
    ],
)
def test_a_damaged_or_foreign_file_is_ignored(fresh_cache: Path, damage: object) -> None:
    data = _written_file(fresh_cache)
    fresh_cache.write_bytes(damage(data))  # type: ignore[operator]
    assert cache._the_cache().loaded == {}
    built = cache.compile_cached(r"(?P<word>approved?)\b", re.IGNORECASE)
    assert built.search("Approve this").group("word") == "Approve"  # type: ignore[union-attr]
    assert cache._the_cache().fresh  # compiled afresh, and written back at exit


def test_an_entry_whose_opcodes_sre_refuses_is_compiled_afresh(fresh_cache: Path) -> None:
    """Opcodes that pass the CRC (rewritten with it) but not `_sre`'s validation."""
    _written_file(fresh_cache)
    loaded = cache._the_cache().loaded
    key = (r"(?P<word>approved?)\b", re.IGNORECASE)
    entry = loaded[key]
    bad = cache.array("I", [0xFFFF] * len(entry.code))
    loaded[key] = cache._Entry(entry.flags, bad, entry.groups, entry.groupindex, entry.indexgroup)
    cache._write_at_exit()  # nothing fresh: nothing written
    fresh_cache.write_bytes(cache._serialised(loaded))
    _reload()
    assert cache._the_cache().loaded[key].code == bad
    built = cache.compile_cached(*key)
    assert built.search("approved").span() == (0, 8)  # type: ignore[union-attr]
    assert key in cache._the_cache().fresh


def _with_index(data: bytes, edit: object) -> bytes:
    """The file with its JSON index edited by `edit` (the opcodes and their CRC unchanged)."""
    (length,) = cache._HEADER.unpack_from(data)
    index = json.loads(data[cache._HEADER.size : cache._HEADER.size + length])
    edit(index)  # type: ignore[operator]
    encoded = json.dumps(index).encode()
    return cache._HEADER.pack(len(encoded)) + encoded + data[cache._HEADER.size + length :]


def _last_row_past_the_end(index: dict[str, list[list[object]]]) -> None:
    index["entries"][-1][6] = 10**6


def _last_row_of_wrong_shape(index: dict[str, list[list[object]]]) -> None:
    index["entries"][-1][4] = "not a dict"


@pytest.mark.parametrize("edit", [_last_row_past_the_end, _last_row_of_wrong_shape])
def test_an_index_row_out_of_shape_voids_the_file(fresh_cache: Path, edit: object) -> None:
    data = _written_file(fresh_cache)
    assert len(cache._read(fresh_cache)) == 2
    fresh_cache.write_bytes(_with_index(data, edit))
    assert cache._read(str(fresh_cache)) == {}


def test_nothing_is_written_when_bytecode_is_not(fresh_cache: Path) -> None:
    sys.dont_write_bytecode = True
    cache.compile_cached(r"lgtm", re.IGNORECASE)
    cache._write_at_exit()
    assert not fresh_cache.exists()


def test_a_read_only_directory_is_no_error(fresh_cache: Path) -> None:
    fresh_cache.parent.mkdir()
    fresh_cache.parent.chmod(0o500)
    try:
        cache.compile_cached(r"ship it", re.IGNORECASE)
        cache._write_at_exit()  # no exception
        if not fresh_cache.exists():  # root may write anyway
            assert cache._read(str(fresh_cache)) == {}
    finally:
        fresh_cache.parent.chmod(0o700)


def test_another_interpreters_internals_fall_back_to_re_compile(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def internals_of_another_version(pattern: str, flags: int) -> None:
        raise AttributeError("module 're._compiler' has no attribute '_code'")

    monkeypatch.setattr(cache, "_opcodes", internals_of_another_version)
    built = cache.compile_cached(r"approve(d)?", 0)
    assert built.fullmatch("approved") is not None
    assert cache._the_cache().fresh == {}


def test_a_bad_pattern_raises_as_re_compile_does(fresh_cache: Path) -> None:
    with pytest.raises(re.error):
        cache.compile_cached(r"(unclosed", 0)


def test_a_second_process_builds_from_the_first_ones_file(tmp_path: Path) -> None:
    """End to end through `mergegate parse`: the first call writes the file beside the
    bytecode, the second compiles no library pattern afresh and decides the same."""
    review = tmp_path / "review.md"
    review.write_text("## Assessment\n\n**Ready to merge? Yes**\n\nAll criteria met.\n")
    probe = (
        "import sys, runpy\n"
        "from mergegate.verdicts import _pattern_cache as c\n"
        "target = sys.argv.pop(1)\n"
        "c.cache_path = lambda: target\n"
        "c._cache = None  # importing the library read the real file already\n"
        "sys.argv[0] = 'mergegate'\n"
        "try:\n"
        "    runpy.run_module('mergegate', run_name='__main__')\n"
        "finally:\n"
        "    print(len(c._cache.fresh) if c._cache else -1, file=sys.stderr)\n"
    )
    target = tmp_path / "cache.bin"
    env_args = [sys.executable, "-c", probe, str(target), "parse", str(review)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run(env_args, capture_output=True, text=True, env=env, check=False)
    assert target.is_file(), first.stderr
    second = subprocess.run(env_args, capture_output=True, text=True, env=env, check=False)
    assert int(first.stderr.strip().splitlines()[-1]) > 20
    assert int(second.stderr.strip().splitlines()[-1]) == 0
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


_PATTERN_TEXTS = """
import hashlib, gc, importlib, pkgutil
import mergegate.verdicts
from mergegate.verdicts._patterns import _LazyPattern
for m in pkgutil.walk_packages(mergegate.verdicts.__path__, "mergegate.verdicts."):
    importlib.import_module(m.name)
texts = sorted(repr((p.pattern, p.flags)) for p in gc.get_objects() if isinstance(p, _LazyPattern))
print(len(texts), hashlib.sha256("\\n".join(texts).encode()).hexdigest())
"""


def test_every_pattern_is_the_same_text_in_every_process() -> None:
    """A pattern built from a set in set order would differ between processes (hash
    randomisation) and miss the cache every time, growing the file."""
    seen = {
        subprocess.run(
            [sys.executable, "-c", _PATTERN_TEXTS],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(seen) == 1, seen
