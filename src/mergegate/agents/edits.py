"""The whole-file edit protocol: how a tool-less model (an OpenAI-compatible endpoint) edits code.

A model without tools cannot touch the work tree, so mergegate asks it to answer with whole new
file contents and writes them itself. The format (see `docs/local-model.md`) is, per file::

    FILE: relative/path.py
    <<<<<<< CONTENT
    ...every line of the new file...
    >>>>>>> END

Rules, all enforced by `parse_file_edits` (one pass over the lines, linear time):

- Text outside blocks is ignored (models like to explain themselves).
- A header is a line that is exactly `FILE: ` + path (trailing spaces and `\\r` dropped); it
  must be followed immediately by the line `<<<<<<< CONTENT`.
- Content runs to the first line that is exactly `>>>>>>> END`; every content line is kept
  verbatim and ends with `\\n` in the written file. An empty block writes an empty file.
- Fail closed: a header without the content marker, a block without its end marker (truncated
  output), a path named twice, or more than the caps (`MAX_FILES`, `MAX_FILE_BYTES`,
  `MAX_RESPONSE_CHARS`) raises `EditProtocolError` and nothing is written.

`apply_file_edits` then checks every path against the work tree *before* writing anything:
relative, no `..`, `.` or empty components, no backslash or control characters, no `.git`
component, and the resolved location (symlinks followed) must stay inside the tree. If any path
is refused, nothing is written. Each accepted file is written atomically (temp file + rename).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mergegate.atomic_files import write_atomic
from mergegate.errors import AgentError

__all__ = [
    "EDIT_PROTOCOL_INSTRUCTIONS",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_PATH_CHARS",
    "MAX_RESPONSE_CHARS",
    "EditOutcome",
    "EditProtocolError",
    "FileEdit",
    "apply_file_edits",
    "check_edit_path",
    "parse_file_edits",
    "parse_until_repeat",
]

HEADER_PREFIX = "FILE: "
OPEN_MARKER = "<<<<<<< CONTENT"
CLOSE_MARKER = ">>>>>>> END"

MAX_RESPONSE_CHARS = 4_000_000
MAX_FILES = 200
MAX_FILE_BYTES = 2_000_000
MAX_PATH_CHARS = 1024

EDIT_PROTOCOL_INSTRUCTIONS = f"""\
You cannot run tools. To create or change a file, answer with one block per file that gives
the COMPLETE new content of the file (not a diff, not an excerpt), exactly like this:

{HEADER_PREFIX}<path of the file, relative to the repository root>
{OPEN_MARKER}
<every line of the new file>
{CLOSE_MARKER}

Do not put the blocks inside code fences. Files you do not mention stay unchanged.
"""


class EditProtocolError(AgentError):
    """The model's answer breaks the edit protocol; nothing was written."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(f"edit protocol, line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class FileEdit:
    """One whole-file write requested by the model (path as the model wrote it)."""

    path: str
    content: str
    line: int
    """1-based line of the `FILE:` header in the answer."""


@dataclass(frozen=True)
class EditOutcome:
    """What `apply_file_edits` did: paths written, and refused paths with the reason."""

    written: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines without their terminator (`\\n` or `\\r\\n`), numbered from 1."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def parse_file_edits(text: str) -> list[FileEdit]:
    """Parse every block of `text` (strictly; see the module docstring). May return `[]`."""
    edits, _ = _parse(text, stop_at_repeat=False)
    return edits


def parse_until_repeat(text: str) -> tuple[list[FileEdit], int | None]:
    """Like `parse_file_edits`, but a header naming a file already given ends the answer.

    A small model under the edit grammar, asked for a summary it cannot write, starts its
    blocks over until its token budget runs out. The first occurrence of each file is its
    answer; everything from the repeated header on is ignored, even a truncated block.
    Returns the edits and the line number of the repeated header (None if nothing repeats).
    Every other rule stays strict.
    """
    return _parse(text, stop_at_repeat=True)


def _parse(text: str, *, stop_at_repeat: bool) -> tuple[list[FileEdit], int | None]:
    if len(text) > MAX_RESPONSE_CHARS:
        raise EditProtocolError(f"answer is longer than {MAX_RESPONSE_CHARS} characters")
    edits: list[FileEdit] = []
    seen: set[str] = set()
    lines = _lines(text)
    for number, line in lines:
        if not line.startswith(HEADER_PREFIX):
            continue
        path = line[len(HEADER_PREFIX) :].rstrip(" \t")
        if stop_at_repeat and path in seen:
            return edits, number
        _check_header(path, number, seen)
        _, marker = next(lines, (number + 1, ""))
        if marker.rstrip(" \t") != OPEN_MARKER:
            raise EditProtocolError(f"{OPEN_MARKER!r} must follow the FILE header", line=number)
        edits.append(FileEdit(path=path, content=_read_content(lines, number), line=number))
        seen.add(path)
        if len(edits) > MAX_FILES:
            raise EditProtocolError(f"more than {MAX_FILES} files", line=number)
    return edits, None


def _check_header(path: str, number: int, seen: set[str]) -> None:
    if not path:
        raise EditProtocolError("empty path after 'FILE:'", line=number)
    if path in seen:
        raise EditProtocolError(f"file {path!r} appears twice", line=number)


def _read_content(lines: Iterator[tuple[int, str]], header: int) -> str:
    body: list[str] = []
    size = 0
    for _, line in lines:
        if line.rstrip(" \t") == CLOSE_MARKER:
            return "".join(body)
        size += len(line) + 1
        if size > MAX_FILE_BYTES:
            raise EditProtocolError(f"file content exceeds {MAX_FILE_BYTES} bytes", line=header)
        body.append(line + "\n")
    raise EditProtocolError(f"block has no {CLOSE_MARKER!r} line (truncated answer?)", line=header)


def check_edit_path(root: Path, path: str) -> Path:
    """The absolute target for `path` inside `root`, or `ValueError` saying why it is refused.

    Lexical rules first (no filesystem access), then the resolved location: symlinks among
    the existing components are followed and the result must stay inside `root`, outside
    `.git`, and must not be a directory.
    """
    parts = _lexical_parts(path)
    real_root = Path(os.path.realpath(root))
    target = real_root.joinpath(*parts)
    resolved = Path(os.path.realpath(target))
    if resolved == real_root or not resolved.is_relative_to(real_root):
        raise ValueError("resolves outside the work tree (symlink)")
    inside = resolved.relative_to(real_root).parts
    if any(part.lower() == ".git" for part in inside):
        raise ValueError("resolves into .git (symlink)")
    if resolved.is_dir():
        raise ValueError("is a directory")
    for parent in resolved.parents:
        if parent == real_root:
            break
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"{parent.relative_to(real_root)} is not a directory")
    return resolved


def _lexical_parts(path: str) -> tuple[str, ...]:
    if len(path) > MAX_PATH_CHARS:
        raise ValueError(f"longer than {MAX_PATH_CHARS} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in path):
        raise ValueError("contains control characters")
    if "\\" in path:
        raise ValueError("contains a backslash")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise ValueError("is absolute")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError("has an empty, '.' or '..' component")
    if any(part.lower() == ".git" for part in parts):
        raise ValueError("is inside .git")
    return tuple(PurePosixPath(path).parts)


def apply_file_edits(root: Path, edits: Sequence[FileEdit]) -> EditOutcome:
    """Write `edits` under `root`: all of them, or none if any path is refused."""
    targets: list[tuple[FileEdit, Path]] = []
    refused: list[tuple[str, str]] = []
    for edit in edits:
        try:
            targets.append((edit, check_edit_path(root, edit.path)))
        except ValueError as exc:
            refused.append((edit.path, str(exc)))
    refused += _conflicts(targets)
    if refused:
        return EditOutcome(refused=tuple(refused))
    written: list[str] = []
    for edit, target in targets:
        _write_atomically(target, edit.content)
        written.append(edit.path)
    return EditOutcome(written=tuple(written))


def _conflicts(targets: Sequence[tuple[FileEdit, Path]]) -> list[tuple[str, str]]:
    """Edits whose target is another edit's directory (`a` and `a/b`): they cannot both hold."""
    files = {target: edit.path for edit, target in targets}
    refused: list[tuple[str, str]] = []
    for edit, target in targets:
        for parent in target.parents:
            if parent in files:
                refused.append((edit.path, f"needs {files[parent]!r} to be a directory"))
                break
    return refused


def _write_atomically(target: Path, content: str) -> None:
    # `target` is already resolved (symlinks followed and checked), so the rename lands exactly
    # where check_edit_path allowed. `sync_dir=False` keeps what this did before it used the
    # shared writer: the file's bytes are fsynced, the directory entry is not.
    write_atomic(target, content, mode=_existing_mode(target), sync_dir=False)


def _existing_mode(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return 0o644
