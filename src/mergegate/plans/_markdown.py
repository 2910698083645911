"""Line-level Markdown structure the plan formats use: headings, bold labels, list items.

Every helper skips fenced lines (see `_document`), so text inside code blocks never becomes
structure. Patterns are anchored and free of nested repetition: each line is matched in time
linear in its length.

Why not a CommonMark parser (markdown-it-py, STYLE rule 19): GSD plans indent their XML-ish
blocks and the Markdown inside them by 2-4 spaces, which CommonMark reads as indented code;
and authors nest same-length code fences, which CommonMark pairs so that the steps after an
example block vanish into code (measured with markdown-it-py's CommonMark preset on 21 real
superpowers plans: 20 steps in 7 plans, the same the old line mask lost; `_document` pairs
fences as they are nested and keeps all of them). The formats' own tools read plans line by
line, and so do we, over the fence mask.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mergegate.plans._document import Document
from mergegate.plans._model import FileChange

__all__ = [
    "Heading",
    "Item",
    "Label",
    "clean_path",
    "consulted",
    "file_block",
    "headings",
    "label_at",
    "list_items",
    "split_paths",
    "touched",
]

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
# `**Goal**: x`, `**Goal:** x`, `**Success Criteria** (what must be TRUE):`, `- **Files**:`
_LABEL = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?\*\*(?P<label>[^*\n]{1,80}?)"
    r"(?::\*\*|\*\*[ \t]*(?:\([^)\n]{0,200}\))?[ \t]*:)[ \t]*(?P<value>.*)$"
)
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])[ \t]+"
    r"(?:\[(?P<box>[ xX])\][ \t]*)?(?P<text>.*)$"
)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_LOCATOR = re.compile(r":(\d[\d,\-\s]*)$")
_PARENTHESES = re.compile(r"[ \t]*\([^()\n]*\)")


@dataclass(frozen=True)
class Heading:
    index: int
    level: int
    text: str


@dataclass(frozen=True)
class Label:
    index: int
    name: str
    """The label without markup, stripped, e.g. `Success Criteria`."""
    value: str
    """The text after the colon on the same line."""


@dataclass(frozen=True)
class Item:
    index: int
    indent: int
    text: str
    """The item's text, continuation lines joined with a space."""
    box: str | None
    """`" "` or `"x"` for checkbox items, None otherwise (recorded, never trusted)."""


def headings(doc: Document, start: int = 0, end: int | None = None) -> list[Heading]:
    """The Markdown headings of lines `start`..`end`, fenced lines skipped."""
    found = []
    for i in range(start, len(doc.lines) if end is None else end):
        line = doc.lines[i]
        if not line.startswith("#") or doc.fenced[i]:
            continue
        match = _HEADING.match(line)
        if match:
            found.append(Heading(i, len(match.group(1)), match.group(2).strip()))
    return found


def label_at(doc: Document, index: int) -> Label | None:
    """The bold label (`**Name**:` or `**Name:**`) starting line `index`, if any."""
    if doc.fenced[index] or "**" not in doc.lines[index]:
        return None
    match = _LABEL.match(doc.lines[index])
    if match is None:
        return None
    return Label(index, match.group("label").strip().rstrip(":").strip(), match["value"].strip())


def list_items(doc: Document, start: int, end: int) -> list[Item]:
    """List items in `start`..`end`, each with its indented continuation lines joined.

    Items stop at a blank line followed by a non-indented line, at headings and at labels;
    fenced lines inside an item are skipped (they are the item's code, not its text).
    """
    items: list[Item] = []
    current: list[str] | None = None
    head: re.Match[str] | None = None
    head_index = 0

    def flush() -> None:
        if current is not None and head is not None:
            items.append(_item(head_index, head, " ".join(current)))

    for i in range(start, end):
        if doc.fenced[i]:
            continue
        line = doc.lines[i]
        match = _ITEM.match(line)
        if match:
            flush()
            head, head_index, current = match, i, [match.group("text").strip()]
        elif not line.strip() or line.lstrip().startswith("#") or label_at(doc, i):
            flush()
            head, current = None, None
        elif current is not None and line[:1] in (" ", "\t"):
            current.append(line.strip())
    flush()
    return items


def _item(index: int, match: re.Match[str], text: str) -> Item:
    box = match.group("box")
    return Item(
        index=index,
        indent=len(match.group("indent").expandtabs(4)),
        text=text.strip(),
        box=None if box is None else box.lower(),
    )


def clean_path(text: str) -> tuple[str, str | None]:
    """A file reference as a plain path plus its line locator (`a.py:12-40` → `a.py`, `12-40`).

    Backticks and trailing commentary (` — why`, ` (new)`, ` - note`) are dropped.
    """
    value = text.strip()
    quoted = _BACKTICKED.search(value)
    if quoted and value.startswith("`"):
        value = quoted.group(1)
    else:
        for sep in (" — ", " – ", " -- ", " - ", " (", "\t"):
            value = value.split(sep, 1)[0]
        value = value.strip().strip("`").strip()
    value = value.rstrip(",;").strip()
    locator = _LOCATOR.search(value)
    if locator and "/" not in locator.group(1):
        return value[: locator.start()], locator.group(1).strip()
    return value, None


def split_paths(text: str) -> Iterator[str]:
    """Paths from a files block: one per line or bullet, or comma-separated on one line."""
    for raw in text.splitlines():
        line = raw.strip()
        match = _ITEM.match(line)
        if match:
            # One path per bullet; whatever follows it is commentary.
            path, _ = clean_path(match.group("text"))
            if path:
                yield path
            continue
        if not line or line.startswith("#"):
            continue
        line = _PARENTHESES.sub("", line)
        for sep in (" — ", " – ", " -- "):
            line = line.split(sep, 1)[0]
        for part in line.split(","):
            path, _ = clean_path(part)
            if path:
                yield path


_VERB = re.compile(
    r"^(?P<verb>[A-Z][A-Za-z]{1,15}(?:[ \t][A-Za-z]{1,15})?)[ \t]*:[ \t]+(?P<rest>.+)$"
)
_ARROW = re.compile(r"[ \t]*(?:→|->|=>)[ \t]*")
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+(?!\[[ xX]\])(?P<text>.*)$")


def file_block(doc: Document, label: Label, end: int) -> list[FileChange]:
    """The files a `**Files:**` label lists: inline after the colon and/or in the bullets below.

    Bullets may carry a verb (`- Modify: a.py:12-40`, `- Move: a → b`); a blank line after
    the first bullet, a checkbox item or any other line ends the block.
    """
    changes = [c for part in _inline_parts(label.value) for c in _file_changes(part)]
    seen_item = False
    for i in range(label.index + 1, end):
        line = doc.lines[i]
        if not line.strip():
            if seen_item:
                break
            continue
        bullet = None if doc.fenced[i] else _BULLET.match(line)
        if bullet is None:
            break
        seen_item = True
        changes.extend(_file_changes(bullet.group("text")))
    return [change for change in changes if change.path]


def _inline_parts(value: str) -> list[str]:
    """Entries written after the label itself (`**Files:** a.py, b.py`)."""
    return [part for part in value.split(",") if part.strip()] if value.strip() else []


def _file_changes(text: str) -> list[FileChange]:
    """One bullet: usually one path, sometimes several (`- Verify: a.py, b.py` backticked)."""
    verb = _VERB.match(text.strip())
    action, rest = (verb.group("verb").lower(), verb.group("rest")) if verb else ("", text)
    quoted = _BACKTICKED.findall(_PARENTHESES.sub("", rest))  # not "(or `b` instead)"
    if len(quoted) > 1 and not _ARROW.search(rest):
        return [_file_change(f"`{path}`", action) for path in quoted]
    return [_file_change(rest, action)]


def _file_change(rest: str, action: str) -> FileChange:
    parts = _ARROW.split(rest, maxsplit=1)
    path, lines = clean_path(parts[0])
    target = clean_path(parts[1])[0] if len(parts) > 1 else None
    return FileChange(path=path, action=action, lines=lines, to=target or None)


_READ_VERBS = frozenset({"reference", "ref", "read", "see", "context", "consult"})
_WRITE_VERBS = frozenset(
    {"", "create", "new", "modify", "update", "edit", "change", "add", "test", "tests",
     "move", "rename", "delete", "remove"}
)  # fmt: skip


def touched(changes: list[FileChange]) -> tuple[str, ...]:
    """The paths a file list says will be written (`Reference:`/`Check:` entries are not)."""
    paths = (p for c in changes if c.action in _WRITE_VERBS for p in (c.path, c.to) if p)
    return tuple(dict.fromkeys(paths))


def consulted(changes: list[FileChange]) -> tuple[str, ...]:
    """The paths a file list names only to be read (`- Reference: a.py (lines 1-9)`)."""
    return tuple(dict.fromkeys(c.path for c in changes if c.action in _READ_VERBS))
