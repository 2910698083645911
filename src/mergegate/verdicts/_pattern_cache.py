"""Compiled patterns kept across processes, beside the library's bytecode.

Compiling the ~140 patterns one review uses was half of the CPU of `mergegate parse` and of the
Claude Code hook (about 80 of 170 ms, `bench/bench_startup.py`), and both run once per call; the
compiled form of the same patterns loads in about 3 ms.

`re` compiles in two steps: it parses a pattern into SRE opcodes (`re._compiler._code`), then
`_sre.compile(pattern, flags, code, groups, groupindex, indexgroup)` validates the opcodes and
builds the `Pattern`. This module keeps the second step's arguments of every pattern it
compiled in `__pycache__/verdict-patterns.<cache tag>.bin` beside itself, and builds later
processes' patterns from them. The private interface is the one `re` itself calls; the file
names the exact interpreter it was written by, and any mismatch falls back to `re.compile`.

Trust: the file sits where Python keeps this package's bytecode and is trusted as much (whoever
can write it can write the `.pyc` files and the sources). It is read defensively all the same:
no pickle or marshal (a JSON index and an array of 32-bit opcodes), a header naming format,
interpreter version, `_sre.MAGIC`, code size and byte order, a CRC-32 of the opcodes (a flipped
bit on disk must not change what a pattern matches); `_sre.compile` validates every opcode list
and raises on an invalid one; a damaged file or entry is ignored and compiled afresh.

A process that compiled patterns the file lacked writes it back at exit, as Python writes
bytecode: not when `sys.dont_write_bytecode` is set, not where the directory is read-only,
atomically (a temporary file renamed over it) and without fsync (it is a cache: a torn file is
ignored and rebuilt). Not through `atomic_files`: that module loads pydantic, `tempfile` and
`pathlib`, which `parse` and the hook otherwise never import (`tests/test_startup_imports.py`).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's own engine: no stubs
import atexit
import contextlib
import json
import os
import re
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass, field
from typing import Any

__all__ = ["cache_path", "compile_cached"]

_FORMAT = 1
_HEADER = struct.Struct("<I")  # length of the JSON index that follows
_MOST_ENTRIES = 4_000  # past this the file keeps only what its last writer used


@dataclass(frozen=True, slots=True)
class _Entry:
    """`_sre.compile`'s arguments after the pattern: what `re._compiler.compile` passes."""

    flags: int
    code: array[int]
    groups: int
    groupindex: dict[str, int]
    indexgroup: tuple[str | None, ...]


@dataclass(slots=True)
class _Cache:
    path: str | None
    loaded: dict[tuple[str, int], _Entry]
    fresh: dict[tuple[str, int], _Entry] = field(default_factory=dict)


_cache: _Cache | None = None


def cache_path() -> str | None:
    """Where this interpreter's compiled patterns are kept (None: an interpreter without a
    bytecode cache tag, which keeps none)."""
    tag = sys.implementation.cache_tag  # None where bytecode caching is off (the docs' word)
    if not tag:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "__pycache__", f"verdict-patterns.{tag}.bin")


def compile_cached(pattern: str, flags: int) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, built from the cached opcodes when the file has them."""
    if flags & re.DEBUG:
        return re.compile(pattern, flags)
    cache = _the_cache()
    entry = cache.loaded.get((pattern, flags))
    if entry is not None:
        compiled = _built(pattern, entry)
        if compiled is not None:
            return compiled
    return _compile_and_keep(cache, pattern, flags)


def _the_cache() -> _Cache:
    global _cache  # noqa: PLW0603 - one cache per process, read on first use
    if _cache is None:
        path = cache_path()
        _cache = _Cache(path=path, loaded=_read(path) if path is not None else {})
    return _cache


def _built(pattern: str, entry: _Entry) -> re.Pattern[str] | None:
    try:
        return _sre.compile(  # type: ignore[no-any-return]
            pattern,
            entry.flags,
            entry.code.tolist(),
            entry.groups,
            entry.groupindex,
            entry.indexgroup,
        )
    except (RuntimeError, TypeError, ValueError, OverflowError):  # opcodes _sre refuses
        return None


def _compile_and_keep(cache: _Cache, pattern: str, flags: int) -> re.Pattern[str]:
    """Compile as `re._compiler.compile` does, keeping the opcodes; any other interpreter's
    internals (no `_code`, another signature) fall back to plain `re.compile`."""
    try:
        parsed, code = _opcodes(pattern, flags)
    except re.error:
        raise
    except (AttributeError, TypeError, ValueError, OverflowError):
        return re.compile(pattern, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    entry = _Entry(
        flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup)
    )
    compiled = _built(pattern, entry)
    if compiled is None:
        return re.compile(pattern, flags)
    if not cache.fresh:
        atexit.register(_write_at_exit)
    cache.fresh[(pattern, flags)] = entry
    return compiled


def _opcodes(pattern: str, flags: int) -> tuple[Any, array[int]]:
    """The parsed pattern and its opcodes, by the private functions `re.compile` calls."""
    from re import _compiler, _parser  # type: ignore[attr-defined]  # noqa: PLC0415 - on a miss only

    parsed = _parser.parse(pattern, flags)
    return parsed, array("I", (int(op) for op in _compiler._code(parsed, flags)))


# --------------------------------------------------------------------------- the file


def _identity() -> dict[str, object]:
    return {
        "format": _FORMAT,
        "python": sys.version,
        "magic": _sre.MAGIC,
        "codesize": _sre.CODESIZE,
        "byteorder": sys.byteorder,
    }


def _read(path: str) -> dict[tuple[str, int], _Entry]:
    """The entries of the file at `path`; nothing when it is absent, foreign or damaged."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        (length,) = _HEADER.unpack_from(data)
        index = json.loads(data[_HEADER.size : _HEADER.size + length])
        if not isinstance(index, dict) or index.get("identity") != _identity():
            return {}
        code = array("I")
        blob = data[_HEADER.size + length :]
        if code.itemsize != _sre.CODESIZE or zlib.crc32(blob) != index["crc32"]:
            return {}
        code.frombytes(blob)
        return {(row[0], row[1]): _entry_of(row, code) for row in index["entries"]}
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError, struct.error):
        return {}


def _entry_of(row: list[object], code: array[int]) -> _Entry:
    """One index row: pattern, flags, compiled flags, groups, groupindex, indexgroup, offset,
    count. Types are checked: a row of the wrong shape raises and the file is ignored."""
    pattern, flags, compiled_flags, groups, groupindex, indexgroup, offset, count = row
    numbers = (flags, compiled_flags, groups, offset, count)
    if not isinstance(pattern, str) or not all(isinstance(n, int) for n in numbers):
        raise TypeError("a pattern cache row of the wrong shape")
    if not isinstance(groupindex, dict) or not isinstance(indexgroup, list):
        raise TypeError("a pattern cache row of the wrong shape")
    start, size = int(offset), int(count)  # type: ignore[call-overload]
    if start < 0 or size <= 0 or start + size > len(code):
        raise ValueError("a pattern cache row outside the opcodes")
    return _Entry(
        int(compiled_flags),  # type: ignore[call-overload]
        code[start : start + size],
        int(groups),  # type: ignore[call-overload]
        {str(k): int(v) for k, v in groupindex.items()},
        tuple(None if name is None else str(name) for name in indexgroup),
    )


def _serialised(entries: dict[tuple[str, int], _Entry]) -> bytes:
    code = array("I")
    rows: list[list[object]] = []
    for (pattern, flags), entry in entries.items():
        rows.append(
            [
                pattern,
                flags,
                entry.flags,
                entry.groups,
                entry.groupindex,
                list(entry.indexgroup),
                len(code),
                len(entry.code),
            ]
        )
        code.extend(entry.code)
    blob = code.tobytes()
    index = {"identity": _identity(), "crc32": zlib.crc32(blob), "entries": rows}
    encoded = json.dumps(index).encode("utf-8")
    return _HEADER.pack(len(encoded)) + encoded + blob


def _write_at_exit() -> None:
    cache = _cache
    if cache is None or cache.path is None or not cache.fresh or sys.dont_write_bytecode:
        return
    entries = {**cache.loaded, **cache.fresh}
    if len(entries) > _MOST_ENTRIES:
        entries = dict(cache.fresh)
    # A read-only install or a vanished directory: the next process compiles as before.
    with contextlib.suppress(OSError):
        _replace(cache.path, _serialised(entries))


def _replace(path: str, data: bytes) -> None:
    """Write `data` to a temporary name beside `path`, then rename it over `path`: a reader
    sees the old file or the new one, never half of one (two writers: the last one wins)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
