"""YAML frontmatter of plan files, read with `yaml.safe_load` rules and the raw text kept.

The block between a first line `---` and the next `---` is composed by PyYAML's safe loader
into nodes, and every value comes back as a `Node` carrying its 1-based line and, for
scalars, the text as written: YAML turns `plan: 01` into the integer 1 while `plan: "01"`
stays a string, and a plan id must not lose its zero.

Real GSD frontmatter is written by models and read by GSD with its own lenient reader, so it
is not always valid YAML (`- Windowing (planner: 10 msgs)` is a mapping error). When YAML
refuses, the block is read again by `_loose`, an indentation-based reader of the subset GSD
writes (keys, inline and block lists, lists of small mappings, block scalars), and the
importer warns that it did so. Input neither can read is an error with the line.

Bounded: the block is capped in size, the node walk in count (aliases cannot inflate it)
and in depth (`MAX_DEPTH`; both readers recurse, and a 100 000-deep `[[[…]]]` must be a plan
error with its line, not a RecursionError).

Not the verdicts' reader (`mergegate.verdicts._frontmatter.VerdictFrontmatter`), on purpose:
a plan's frontmatter is the whole of its metadata, so it is read as the YAML it claims to be,
every value with its line; a review report's frontmatter is untrusted agent output from which
only a few verdict keys matter, so that reader scans lines and never runs a YAML loader. One
reader cannot serve both without giving up one of the two.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from mergegate.plans._document import Document
from mergegate.plans._errors import Notes, PlanError

__all__ = [
    "MAX_DEPTH",
    "MAX_FRONTMATTER_CHARS",
    "Node",
    "PlanFrontmatter",
    "read_plan_frontmatter",
    "to_json",
]

MAX_FRONTMATTER_CHARS = 256 * 1024
MAX_DEPTH = 64
"""Nesting levels frontmatter may have (GSD's deepest, must_haves.artifacts[].x, is 4)."""
_MAX_NODES = 50_000
_DELIMITER = re.compile(r"^---[ \t]*$")
_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$")


@dataclass(frozen=True)
class Node:
    """A frontmatter value: a scalar (`raw` is its text), a list or a mapping of `Node`s."""

    value: Any
    line: int
    raw: str | None = None

    def get(self, key: str) -> Node | None:
        if isinstance(self.value, dict):
            found: Node | None = self.value.get(key)
            return found
        return None

    def items(self) -> list[Node]:
        """The list's items; a scalar counts as a one-item list, null as empty."""
        if isinstance(self.value, list):
            return list(self.value)
        if self.value is None or isinstance(self.value, dict):
            return []
        return [self]

    def text(self) -> str:
        """A scalar as text, as written (`01` stays `01`); containers as compact JSON-ish."""
        if self.raw is not None:
            return self.raw
        if self.value is None:
            return ""
        return str(to_json(self))


@dataclass(frozen=True)
class PlanFrontmatter:
    """A plan file's frontmatter as YAML nodes with their lines (see the module docstring)."""

    root: Node
    body_start: int
    """0-based index of the first body line (after the closing delimiter)."""
    loose: bool
    """True when YAML refused the block and the lenient reader was used."""


def read_plan_frontmatter(doc: Document, notes: Notes) -> PlanFrontmatter | None:
    """The frontmatter of `doc`, or None when the file has none. Raises `PlanError`."""
    if not doc.lines or not _DELIMITER.match(doc.lines[0]):
        return None
    end = next((i for i in range(1, len(doc.lines)) if _END.match(doc.lines[i])), None)
    if end is None:
        raise PlanError("frontmatter opened here is never closed with '---'", file=doc.rel)
    text = "\n".join(doc.lines[1:end])
    if len(text) > MAX_FRONTMATTER_CHARS:
        raise PlanError(f"frontmatter longer than {MAX_FRONTMATTER_CHARS} characters", file=doc.rel)
    if not text.strip():
        return PlanFrontmatter(Node({}, 1), end + 1, loose=False)
    try:
        root = _from_yaml(text, first_line=2)
        loose = False
    except _TooManyValues as exc:
        raise PlanError(f"frontmatter has more than {_MAX_NODES} values", file=doc.rel) from exc
    except _TooDeep as exc:
        raise PlanError(
            f"frontmatter nested deeper than {MAX_DEPTH} levels", file=doc.rel, line=exc.line
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)
        try:
            root = _Loose(doc.lines[1:end], first_line=2, rel=doc.rel).parse()
        except PlanError as loose_error:
            # The lenient reader knows the exact line; YAML often notices a line or two later.
            message = f"frontmatter is not YAML ({_reason(exc)}): {loose_error.reason}"
            raise PlanError(message, file=doc.rel, line=loose_error.line) from loose_error
        notes.warn(
            "frontmatter-not-yaml",
            f"frontmatter is not valid YAML ({_reason(exc)}); read with the lenient GSD reader",
            doc.ref(line - 1),
        )
        loose = True
    if not isinstance(root.value, dict):
        raise PlanError("frontmatter is not a mapping of keys to values", file=doc.rel, line=2)
    return PlanFrontmatter(root, end + 1, loose)


def _reason(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    return str(problem) if problem else type(exc).__name__


def to_json(node: Node) -> Any:
    """A node as a JSON value (dates as ISO text, non-finite floats as their text)."""
    if isinstance(node.value, dict):
        return {key: to_json(child) for key, child in node.value.items()}
    if isinstance(node.value, list):
        return [to_json(child) for child in node.value]
    return node.value


# ---------------------------------------------------------------- YAML


# libyaml's parser when PyYAML was built with it (the wheels are): same safe constructors, ~10x
# faster scanning, which is most of importing a large planning tree.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _from_yaml(text: str, *, first_line: int) -> Node:
    loader = _SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return Node({}, first_line)
        budget = [_MAX_NODES]
        return _convert(loader, root, first_line, budget)
    finally:
        loader.dispose()


class _TooManyValues(Exception):
    """More nodes than `_MAX_NODES` (aliases can make a small block huge)."""


class _TooDeep(Exception):
    """Nesting deeper than `MAX_DEPTH`, found at 1-based `line` of the file."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _convert(loader: Any, node: yaml.Node, first: int, budget: list[int], depth: int = 0) -> Node:
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyValues
    line = first + node.start_mark.line
    if depth > MAX_DEPTH:
        raise _TooDeep(line)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, Node] = {}
        for key_node, value_node in node.value:
            key = _convert(loader, key_node, first, budget, depth + 1)
            mapping[key.text()] = _convert(loader, value_node, first, budget, depth + 1)
        return Node(mapping, line)
    if isinstance(node, yaml.SequenceNode):
        return Node(
            [_convert(loader, child, first, budget, depth + 1) for child in node.value], line
        )
    value = loader.construct_object(node, deep=True)
    return Node(_scalar_json(value, node.value), line, raw=str(node.value))


def _scalar_json(value: Any, raw: str) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else raw
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return raw


# ---------------------------------------------------------------- lenient reader


_KEY = re.compile(r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_ .-]{0,80}?)[ \t]*:(?:[ \t]+(?P<rest>.*)|)$")


class _Loose:
    """An indentation reader for the YAML subset GSD writes; strings stay strings."""

    def __init__(self, lines: tuple[str, ...], *, first_line: int, rel: str) -> None:
        self.rows = [
            (first_line + i, len(line) - len(line.lstrip(" ")), line.strip())
            for i, line in enumerate(lines)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        self.pos = 0
        self.rel = rel
        self.depth = 0

    def fail(self, line: int, what: str) -> PlanError:
        return PlanError(what, file=self.rel, line=line)

    def parse(self) -> Node:
        if not self.rows:
            return Node({}, 1)
        node = self.block(self.rows[0][1])
        if self.pos < len(self.rows):
            raise self.fail(self.rows[self.pos][0], "unexpected indentation")
        return node

    def deeper(self, line: int) -> None:
        """One level in; a `PlanError` at `line` past `MAX_DEPTH` (the reader recurses)."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(line, f"nested deeper than {MAX_DEPTH} levels")

    def block(self, indent: int) -> Node:
        line, _, text = self.rows[self.pos]
        self.deeper(line)
        try:
            if text == "-" or text.startswith("- "):
                return self.sequence(indent)
            return self.mapping(indent)
        finally:
            self.depth -= 1

    def mapping(self, indent: int, first: str | None = None) -> Node:
        values: dict[str, Node] = {}
        start = self.rows[self.pos][0]
        while self.pos < len(self.rows):
            line, col, text = self.rows[self.pos]
            if first is not None:
                text, first = first, None
            elif col != indent:
                if col > indent:
                    raise self.fail(line, "unexpected indentation")
                break
            match = _KEY.match(text)
            if match is None:
                raise self.fail(line, f"expected 'key: value', got {text[:40]!r}")
            self.pos += 1
            values[match.group("key").strip()] = self.value(line, indent, match.group("rest"))
        return Node(values, start)

    def sequence(self, indent: int) -> Node:
        items: list[Node] = []
        start = self.rows[self.pos][0]
        while self.pos < len(self.rows):
            line, col, text = self.rows[self.pos]
            if col != indent or not (text == "-" or text.startswith("- ")):
                break
            rest = text[1:].strip()
            if _KEY.match(rest) and not rest.startswith(("'", '"')):
                # `- key: value` starts a mapping whose keys sit two columns in.
                self.deeper(line)
                try:
                    items.append(self.mapping(indent + 2, first=rest))
                finally:
                    self.depth -= 1
                continue
            self.pos += 1
            items.append(self.value(line, indent, rest or None))
        return Node(items, start)

    def scalar(self, text: str, line: int, depth: int = 0) -> Node:
        """A one-line value as text; only unbalanced brackets and quotes are refused.

        Models write values YAML refuses (`` `code` first``, `@path`, `a: b` in a list item);
        as text they mean what their author meant, which is what GSD's own reader does.
        """
        text = text.strip()
        if text.startswith("[") and not text.endswith("]") and "]" in text:
            text = text[: text.rindex("]") + 1]  # `["a"] (updated)`: the list, not the remark
        if text.startswith("[") != text.endswith("]"):
            raise self.fail(line, f"unbalanced brackets in {text[:40]!r}")
        quote = text[:1]
        if quote in ("'", '"') and (len(text) < 2 or text[-1] != quote):
            if depth and text.count(quote) % 2 == 0:
                return Node(text, line, raw=text)  # `"0" keyboard shortcut`: a list item's text
            raise self.fail(line, f"unterminated quote in {text[:40]!r}")
        if text.startswith("["):
            if self.depth + depth >= MAX_DEPTH:
                raise self.fail(line, f"nested deeper than {MAX_DEPTH} levels")
            parts = _split_inline(text[1:-1])
            return Node([self.scalar(part, line, depth + 1) for part in parts], line)
        return _loose_scalar(text, line)

    def continued(self, node: Node, indent: int) -> Node:
        """A plain scalar folded over more-indented lines that start no structure."""
        if not isinstance(node.value, str) or node.raw is None:
            return node
        parts = [node.value]
        while self.pos < len(self.rows):
            _, col, text = self.rows[self.pos]
            if col <= indent or text.startswith("- ") or text == "-" or _KEY.match(text):
                break
            parts.append(text)
            self.pos += 1
        if len(parts) == 1:
            return node
        joined = " ".join(parts)
        return Node(joined, node.line, raw=joined)

    def value(self, line: int, indent: int, rest: str | None) -> Node:
        if rest is not None and rest not in ("|", ">", "|-", ">-"):
            return self.continued(self.scalar(rest, line), indent)
        child = self.rows[self.pos] if self.pos < len(self.rows) else None
        if rest is not None:  # a block scalar: every more-indented line
            taken = []
            while self.pos < len(self.rows) and self.rows[self.pos][1] > indent:
                taken.append(self.rows[self.pos][2])
                self.pos += 1
            joined = ("\n" if rest.startswith("|") else " ").join(taken)
            return Node(joined, line, raw=joined)
        if child is None:
            return Node(None, line)
        _, col, text = child
        if col > indent or (col == indent and (text == "-" or text.startswith("- "))):
            return self.block(col)
        return Node(None, line)


def _loose_scalar(text: str, line: int) -> Node:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return Node(inner, line, raw=inner)
    if " #" in text:
        text = text.split(" #", 1)[0].rstrip()
    lowered = text.lower()
    if lowered in ("true", "false"):
        return Node(lowered == "true", line, raw=text)
    if lowered in ("null", "~", ""):
        return Node(None, line, raw=text)
    if re.fullmatch(r"[1-9][0-9]{0,17}|0", text):
        return Node(int(text), line, raw=text)
    return Node(text, line, raw=text)


def _split_inline(text: str) -> Iterator[str]:
    """Items of an inline list, commas inside quotes kept."""
    part: list[str] = []
    quote = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            yield "".join(part)
            part = []
            continue
        part.append(char)
    if "".join(part).strip():
        yield "".join(part)
