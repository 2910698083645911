"""A plan file as lines, with the code-fence mask every scanner in this package relies on.

Plans are untrusted text: files are read with a size cap, must be UTF-8 without NUL bytes
or bidirectional overrides (`refuse_controls`), and are split into lines once.
`Document.fenced[i]` is true for a line inside a fenced code block (or a fence delimiter), so
a `# Phase 1:` shell comment or a `<task>` in an example never counts as structure;
`Document.fences` lists the blocks with their info strings. Fences may open inside list
items (`   - ```bash`).

Fences are paired the way plan authors nest them, not only the way CommonMark pairs them.
Agents write a Markdown example that holds its own code blocks with the same three
backticks (```` ```markdown ```` … ```` ```bash ```` … ```` ``` ```` … ```` ``` ````):
CommonMark closes the outer block at the inner closer, and the outer closer then opens a
block that swallows the steps after it (measured: 9 of 31 steps of a real superpowers plan).
So inside an open fence, a delimiter line of the same character, at least as long as the
outer one, *with* an info string opens a nested block (a closing delimiter never carries an
info string), and a bare one closes the innermost open block. Shorter runs are content, as
in CommonMark, so a four-backtick outer block keeps its three-backtick examples as text.

A fence that is never closed is treated as text rather than swallowing the rest of the file
(the importer warns), because an unclosed fence in a plan is a typo far more often than
intent. A fence opened with indentation also ends with its container: at the first non-blank
line indented less than its opener — unless that line is itself a bare delimiter of the
fence, which is then its (mis-indented) closer rather than the opener of a new block.

Pairing is one pass over the candidate delimiter lines with a stack of open fences; a
monotonic stack gives every line's next less-indented line, and the mask is set from the
outermost blocks only (disjoint), so no input makes it worse than sorting the blocks found.
"""

from __future__ import annotations

import os
import re
import stat
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from mergegate.plans._errors import PlanError
from mergegate.plans._model import SourceRef

__all__ = [
    "MAX_FILE_BYTES",
    "Document",
    "Fence",
    "fence_mask",
    "is_fence_delimiter",
    "read_document",
    "refuse_controls",
]

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest plan file read (the largest real plan seen is ~100 KB)."""

_FENCE = re.compile(r"^([ \t]*)(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$")
# NUL (C strings, argv and git end at it: text after it is shown but never used) and the
# bidirectional embeddings, overrides and isolates (text displayed in another order than it
# is read, CVE-2021-42574; they survive HTML escaping and reach prompts and commits). Other
# control characters occur in pasted terminal output and are removed wherever text is shown.
CONTROLS = re.compile("[\x00\u202a-\u202e\u2066-\u2069]")
"""Characters no plan text may hold (see `refuse_controls`)."""


class Fence(NamedTuple):
    """One fenced code block: its delimiter lines and its info string (`bash`, `markdown`)."""

    start: int
    """0-based line of the opening delimiter."""
    end: int
    """0-based last line of the block: the closing delimiter, or its last line when the
    block ended with its container."""
    info: str
    closed: bool
    """True when a closing delimiter ends the block (`end` is that delimiter)."""

    @property
    def body(self) -> range:
        """The 0-based lines between the delimiters."""
        return range(self.start + 1, self.end if self.closed else self.end + 1)

    @property
    def language(self) -> str:
        """The first word of the info string, lower case (`bash` for ```` ```bash title ````)."""
        return self.info.split(maxsplit=1)[0].lower() if self.info.strip() else ""


@dataclass(frozen=True)
class Document:
    """One plan file: its lines (no newlines), the fence mask and where it was read from."""

    rel: str
    """The path relative to the imported PATH, as shown in messages and `SourceRef.file`."""
    lines: tuple[str, ...]
    fenced: tuple[bool, ...]
    unclosed_fences: tuple[int, ...] = field(default=())
    """0-based lines of fence openers that never close (read as text)."""
    fences: tuple[Fence, ...] = field(default=())
    """The outermost fenced blocks, in file order."""
    fence_starts: tuple[int, ...] = field(default=())
    """`fences[k].start` for every k, for `fence_at`."""

    @classmethod
    def from_text(cls, rel: str, text: str) -> Document:
        lines = tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        fenced, unclosed, fences = _pair_fences(lines)
        starts = tuple(fence.start for fence in fences)
        return cls(rel, lines, fenced, unclosed, fences, starts)

    def ref(self, index: int) -> SourceRef:
        """The source reference of the 0-based line `index`."""
        # Built without re-validation: the fields are a str and a positive int by construction,
        # and a large plan makes one of these per element.
        return SourceRef.model_construct(file=self.rel, line=max(index, 0) + 1)

    def text(self, start: int, end: int) -> str:
        """Lines `start` to `end` (exclusive) joined, without surrounding blank lines."""
        return "\n".join(self.lines[start:end]).strip("\n")

    def fence_at(self, index: int) -> Fence | None:
        """The outermost fenced block whose opening delimiter is line `index`, if any."""
        k = bisect_left(self.fence_starts, index)
        if k < len(self.fences) and self.fence_starts[k] == index:
            return self.fences[k]
        return None


def refuse_controls(text: str, rel: str, *, first_line: int = 1) -> None:
    """Raise `PlanError` at the line of the first character no plan may hold.

    NUL has no business in a plan: whatever follows it is shown to a person but cut off where
    a command, a path or a commit reads it. Bidirectional overrides and isolates make text
    display in an order other than the one it is read in. Refused, never stripped: a plan
    that holds them is not a plan this tool can show a person faithfully.
    """
    found = CONTROLS.search(text)
    if found is None:
        return
    line = first_line + text.count("\n", 0, found.start())
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    code = f"U+{ord(found.group()):04X}"
    what = "a NUL byte" if found.group() == "\x00" else f"the bidirectional control {code}"
    raise PlanError(
        f"{what} at column {column}: not read as a plan (it would show other text than runs)",
        file=rel,
        line=line,
    )


def read_document(
    path: Path, rel: str, *, root: Path | None = None, max_bytes: int = MAX_FILE_BYTES
) -> Document:
    """Read `path` as a `Document` or raise `PlanError`.

    Refused: a path that is not a regular file (a FIFO would block, a device never ends), one
    that resolves outside `root` (a symlink out of the repository), more than `max_bytes`,
    text that is not UTF-8, NUL bytes and bidirectional overrides (`refuse_controls`).
    """
    data = _read_bytes(path, rel, root, max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PlanError(f"not UTF-8 text (byte {exc.start})", file=rel, line=line) from exc
    text = text.removeprefix("\ufeff")
    refuse_controls(text, rel)
    return Document.from_text(rel, text)


def _read_bytes(path: Path, rel: str, root: Path | None, max_bytes: int) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise PlanError(f"cannot read: {exc.strerror or exc}", file=rel) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PlanError("not a regular file; not read as a plan", file=rel)
        if root is not None:
            _check_inside(path, fd, info, root, rel)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise PlanError(f"cannot read: {exc.strerror or exc}", file=rel) from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise PlanError(f"larger than {max_bytes} bytes; not read as a plan", file=rel)
    return data


def _check_inside(path: Path, fd: int, info: os.stat_result, root: Path, rel: str) -> None:
    """Refuse the open file `fd` unless it really lies under `root` (symlinks resolved).

    Decided on the file that was opened, not on the name: the kernel's own record of an open
    descriptor where there is one (`/proc/self/fd`), else the resolved name proven to be the
    same file (a name swapped for a symlink between the two looks fails that proof).
    """
    where = _opened_path(fd)
    if where is None:
        where = Path(os.path.realpath(path))
        try:
            same = os.stat(where)
        except OSError:
            same = None
        if same is None or (same.st_dev, same.st_ino) != (info.st_dev, info.st_ino):
            raise PlanError("changed while it was being read; not read", file=rel)
    real_root = Path(os.path.realpath(root))
    if where != real_root and real_root not in where.parents:
        raise PlanError(
            f"resolves to {where}, outside the repository ({real_root}): a plan never follows "
            "a symlink out of it (name the target itself to read it)",
            file=rel,
        )


def _opened_path(fd: int) -> Path | None:
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return Path(target) if target.startswith("/") and not target.endswith(" (deleted)") else None


def is_fence_delimiter(line: str) -> bool:
    """True for a line that opens or closes a code fence (list-marker prefix allowed)."""
    return _candidate(line) is not None


def fence_mask(lines: tuple[str, ...]) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Which lines are inside fenced code, and which fence openers never close."""
    fenced, unclosed, _ = _pair_fences(lines)
    return fenced, unclosed


class _Candidate(NamedTuple):
    line: int
    char: str
    length: int
    info: str
    """The info string; empty on a bare delimiter, the only kind that can close a block."""


def _candidate(line: str, index: int = 0) -> _Candidate | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    run, rest = match.group(2), match.group(3)
    if run[0] == "`" and "`" in rest:
        return None  # ```inline``` code on one line, not a fence
    return _Candidate(index, run[0], len(run), rest.strip())


def _pair_fences(
    lines: tuple[str, ...],
) -> tuple[tuple[bool, ...], tuple[int, ...], tuple[Fence, ...]]:
    """One pass over the delimiter lines with a stack of open fences (see the module doc).

    Returns the mask, the openers never closed, and the outermost blocks.
    """
    n = len(lines)
    dedent = _next_dedent(lines)
    stack: list[_Candidate] = []
    blocks: list[tuple[int, int, str, bool]] = []  # (start, end, info, closed by a delimiter)
    limit = n  # where the outermost open fence's container ends
    for i, line in enumerate(lines):
        if "`" not in line and "~" not in line:
            continue
        cand = _candidate(line, i)
        if cand is None:
            continue
        if stack and i >= limit:
            outer = stack[0]
            if i == limit and len(stack) == 1 and _closes(cand, outer):
                blocks.append((outer.line, i, outer.info, True))  # closer less indented
                stack.clear()
                continue
            blocks.append((outer.line, limit - 1, outer.info, False))  # ended with its container
            stack.clear()
        if not stack:
            stack.append(cand)
            limit = dedent[i]
            continue
        outer = stack[0]
        if cand.char != outer.char or cand.length < outer.length:
            continue  # content, as in CommonMark
        if cand.info:
            stack.append(cand)  # a nested opener: closing delimiters carry no info string
        elif cand.length >= stack[-1].length:
            # Every closed pair is recorded; one inside an outer block that closes too is
            # masked by it anyway, and one inside an outer block that never closes stays a
            # block of its own when the outer opener is read as text.
            opener = stack.pop()
            blocks.append((opener.line, i, opener.info, True))
    if stack and limit < n:
        blocks.append((stack[0].line, limit - 1, stack[0].info, False))
        stack.clear()
    # Fences still open at the end were never closed: text.
    unclosed = tuple(c.line for c in stack)
    fences = _outermost(blocks)
    return _mask(n, fences), unclosed, fences


def _closes(cand: _Candidate, opener: _Candidate) -> bool:
    return not cand.info and cand.char == opener.char and cand.length >= opener.length


def _mask(n: int, fences: tuple[Fence, ...]) -> tuple[bool, ...]:
    mask = [False] * n
    for fence in fences:  # outermost blocks only: disjoint, so every line is set once
        mask[fence.start : fence.end + 1] = [True] * (fence.end + 1 - fence.start)
    return tuple(mask)


def _outermost(blocks: list[tuple[int, int, str, bool]]) -> tuple[Fence, ...]:
    fences: list[Fence] = []
    reach = -1
    for start, end, info, closed in sorted(blocks):
        if start > reach:  # nested blocks lie inside the previous outermost one
            fences.append(Fence(start, end, info, closed))
        reach = max(reach, end)
    return tuple(fences)


def _next_dedent(lines: tuple[str, ...]) -> list[int]:
    """For each indented line, the index of the next non-blank line indented less (or n)."""
    n = len(lines)
    widths = [len(line) - len(line.lstrip(" \t")) if line.strip() else -1 for line in lines]
    found = [n] * n
    stack: list[int] = []  # indices of later non-blank lines, widths increasing towards the top
    for i in range(n - 1, -1, -1):
        width = widths[i]
        if width < 0:
            continue
        while stack and widths[stack[-1]] >= width:
            stack.pop()
        found[i] = stack[-1] if stack and width > 0 else n
        stack.append(i)
    return found
