"""A plan file as lines, with the code-fence mask every scanner in this package relies on.

Plans are untrusted text: files are read with a size cap, must be UTF-8, and are split into
lines once. `Document.fenced[i]` is true for a line inside a fenced code block (or a fence
delimiter), so a `# Phase 1:` shell comment or a `<task>` in an example never counts as
structure. Fences may open inside list items (`   - ```bash`). A fence that is never closed is
treated as text rather than swallowing the rest of the file (the importer warns), because an
unclosed fence in a plan is a typo far more often than intent.

A fence opened with indentation also ends at the first non-blank line indented less than its
opener (its container ended), which keeps a mis-nested fence inside an `<action>` block.

Pairing fences is linear: one pass collects candidate delimiter lines, a suffix maximum of
delimiter lengths answers "is there any closer left?" in O(1), and a monotonic stack gives
every line's next less-indented line, so a file of unclosed openers cannot make the scan
quadratic.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path

from mergegate.plans._errors import PlanError
from mergegate.plans._model import SourceRef

__all__ = ["MAX_FILE_BYTES", "Document", "fence_mask", "is_fence_delimiter", "read_document"]

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest plan file read (the largest real plan seen is ~100 KB)."""

_FENCE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Document:
    """One plan file: its lines (no newlines), the fence mask and where it was read from."""

    rel: str
    """The path relative to the imported PATH, as shown in messages and `SourceRef.file`."""
    lines: tuple[str, ...]
    fenced: tuple[bool, ...]
    unclosed_fences: tuple[int, ...] = field(default=())
    """0-based lines of fence openers that never close (read as text)."""

    @classmethod
    def from_text(cls, rel: str, text: str) -> Document:
        lines = tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        fenced, unclosed = fence_mask(lines)
        return cls(rel=rel, lines=lines, fenced=fenced, unclosed_fences=unclosed)

    def ref(self, index: int) -> SourceRef:
        """The source reference of the 0-based line `index`."""
        # Built without re-validation: the fields are a str and a positive int by construction,
        # and a large plan makes one of these per element.
        return SourceRef.model_construct(file=self.rel, line=max(index, 0) + 1)

    def text(self, start: int, end: int) -> str:
        """Lines `start` to `end` (exclusive) joined, without surrounding blank lines."""
        return "\n".join(self.lines[start:end]).strip("\n")


def read_document(path: Path, rel: str, *, max_bytes: int = MAX_FILE_BYTES) -> Document:
    """Read `path` as a `Document` or raise `PlanError` (unreadable, too large, not UTF-8)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise PlanError(f"cannot read: {exc.strerror or exc}", file=rel) from exc
    if len(data) > max_bytes:
        raise PlanError(f"larger than {max_bytes} bytes; not read as a plan", file=rel)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PlanError(f"not UTF-8 text (byte {exc.start})", file=rel, line=line) from exc
    return Document.from_text(rel, text.removeprefix("\ufeff"))


def is_fence_delimiter(line: str) -> bool:
    """True for a line that opens or closes a code fence (list-marker prefix allowed)."""
    return _FENCE.match(line) is not None


def fence_mask(lines: tuple[str, ...]) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Which lines are inside fenced code, and which fence openers never close."""
    # Candidates: (line, fence char, run length, bare) — bare lines can close a fence.
    cands: list[tuple[int, str, int, bool]] = []
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if match is None:
            continue
        run, rest = match.group(1), match.group(2)
        if run[0] == "`" and "`" in rest:
            continue  # ```inline``` code on one line, not a fence
        cands.append((i, run[0], len(run), not rest.strip()))
    # suffix_max[k]: the longest bare run of each char among candidates k.. (for O(1) "none").
    suffix: list[dict[str, int]] = [{} for _ in range(len(cands) + 1)]
    suffix[len(cands)] = {"`": 0, "~": 0}
    for k in range(len(cands) - 1, -1, -1):
        _, char, length, bare = cands[k]
        best = dict(suffix[k + 1])
        if bare and length > best[char]:
            best[char] = length
        suffix[k] = best
    mask = [False] * len(lines)
    unclosed: list[int] = []
    starts = [c[0] for c in cands]
    dedent = _next_dedent(lines)
    k = 0
    while k < len(cands):
        start, char, length, _ = cands[k]
        limit = dedent[start]
        closer = _find_closer(cands, suffix, k, char=char, length=length, limit=limit)
        if closer is not None:
            end = cands[closer][0]
            k = closer + 1
        elif limit < len(lines):
            # An indented fence ends with its container: the first less-indented line. Real
            # plans nest fences the way no renderer pairs them; this keeps the damage inside
            # the block (an <action>) instead of swallowing the rest of the file.
            end = limit - 1
            k = bisect_left(starts, limit)
        else:
            unclosed.append(start)
            k += 1
            continue
        for i in range(start, end + 1):
            mask[i] = True
    return tuple(mask), tuple(unclosed)


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


def _find_closer(
    cands: list[tuple[int, str, int, bool]],
    suffix: list[dict[str, int]],
    k: int,
    *,
    char: str,
    length: int,
    limit: int,
) -> int | None:
    if suffix[k + 1][char] < length:
        return None
    # Every candidate passed over here lies inside the fence and is never looked at again.
    for j in range(k + 1, len(cands)):
        line, other, other_length, bare = cands[j]
        if line >= limit:
            return None
        if bare and other == char and other_length >= length:
            return j
    return None
