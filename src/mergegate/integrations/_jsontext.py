"""Edit a JSON document as text, so that every byte outside the edit stays as it was.

`json.loads` + `json.dumps` would rewrite a whole settings file: its indentation, its key
order quirks, its escapes. A settings file is someone else's file, so edits here are
surgical: `parse_spans` records where each value, member and item starts and ends, and
`insert_member`, `append_item` and `remove_entry` splice the text around those spans.

`remove_entry` undoes `insert_member` / `append_item` exactly: an entry appended after the
last one is `,` + whitespace + entry, and removing an entry that is not the first deletes the
text from the end of the previous entry to its own end, which is that same text.

Linear in the text, recursion bounded by `MAX_DEPTH`; the parser accepts exactly RFC 8259
JSON (a caller checks `json.loads` agrees) and refuses duplicate keys.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "JsonTextError",
    "Node",
    "append_item",
    "insert_member",
    "parse_spans",
    "remove_entry",
]

MAX_DEPTH = 64
_WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING_BODY = re.compile(r'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')


class JsonTextError(ValueError):
    """The text is not a JSON document this module can edit (with the offset of the fault)."""


@dataclass
class Node:
    """One JSON value and where it sits: `text[start:end]`.

    An object's entries are its members: `keys[i]` starts at `entry_starts[i]` (its key's
    opening quote) and `children[i]` is its value. An array's entries are its items
    (`entry_starts[i] == children[i].start`).
    """

    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int
    depth: int
    keys: list[str] = field(default_factory=list)
    entry_starts: list[int] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        """The value of member `key` of an object, or None."""
        for name, child in zip(self.keys, self.children, strict=True):
            if name == key:
                return child
        return None


def parse_spans(text: str) -> Node:
    """Parse a whole JSON document into nodes with spans; raise `JsonTextError` if invalid."""
    parser = _Parser(text)
    pos = parser.skip_ws(_bom_end(text))
    node = parser.value(pos, 0)
    if parser.skip_ws(node.end) != len(text):
        raise JsonTextError(f"unexpected text after the JSON document at offset {node.end}")
    return node


def _bom_end(text: str) -> int:
    return 1 if text.startswith("\ufeff") else 0


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip_ws(self, pos: int) -> int:
        text = self.text
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        return pos

    def fail(self, pos: int, what: str) -> JsonTextError:
        return JsonTextError(f"{what} at offset {pos}")

    def value(self, pos: int, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(pos, f"nesting deeper than {MAX_DEPTH}")
        if pos >= len(self.text):
            raise self.fail(pos, "unexpected end of text")
        char = self.text[pos]
        if char == "{":
            return self.container(pos, depth, "object", "}")
        if char == "[":
            return self.container(pos, depth, "array", "]")
        if char == '"':
            return Node("scalar", pos, self.string_end(pos), depth)
        for literal in ("true", "false", "null"):
            if self.text.startswith(literal, pos):
                return Node("scalar", pos, pos + len(literal), depth)
        match = _NUMBER.match(self.text, pos)
        if match is None or match.end() == pos:
            raise self.fail(pos, "expected a JSON value")
        return Node("scalar", pos, match.end(), depth)

    def string_end(self, pos: int) -> int:
        match = _STRING_BODY.match(self.text, pos + 1)
        end = match.end() if match else pos + 1
        if end >= len(self.text) or self.text[end] != '"':
            raise self.fail(pos, "unterminated or invalid string")
        return end + 1

    def container(self, pos: int, depth: int, kind: str, close: str) -> Node:
        node = Node(kind, pos, pos, depth)
        cursor = self.skip_ws(pos + 1)
        if cursor < len(self.text) and self.text[cursor] == close:
            node.end = cursor + 1
            return node
        while True:
            cursor = self.entry(node, cursor, depth)
            cursor = self.skip_ws(cursor)
            if cursor >= len(self.text):
                raise self.fail(cursor, "unexpected end of text")
            if self.text[cursor] == close:
                node.end = cursor + 1
                return node
            if self.text[cursor] != ",":
                raise self.fail(cursor, f"expected ',' or '{close}'")
            cursor = self.skip_ws(cursor + 1)

    def entry(self, node: Node, cursor: int, depth: int) -> int:
        node.entry_starts.append(cursor)
        if node.kind == "object":
            if cursor >= len(self.text) or self.text[cursor] != '"':
                raise self.fail(cursor, "expected a member name")
            key_end = self.string_end(cursor)
            key = json.loads(self.text[cursor:key_end])
            if key in node.keys:
                raise self.fail(cursor, f"duplicate key {key!r}")
            node.keys.append(key)
            cursor = self.skip_ws(key_end)
            if cursor >= len(self.text) or self.text[cursor] != ":":
                raise self.fail(cursor, "expected ':'")
            cursor = self.skip_ws(cursor + 1)
        child = self.value(cursor, depth + 1)
        node.children.append(child)
        return child.end


# ---------------------------------------------------------------- layout
def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _own_line_indent(text: str, pos: int) -> str | None:
    """The whitespace before `pos` on its line, or None when other text precedes it there."""
    prefix = text[_line_start(text, pos) : pos]
    return prefix if prefix.strip(" \t") == "" else None


def _unit(text: str) -> str:
    """The document's indentation step: the indent of the first indented line, else 2 spaces."""
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _render(value: Any, indent: str | None, unit: str) -> str:
    """`value` as JSON text; multi-line, each continuation line prefixed with `indent`."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False)
    rendered = json.dumps(value, indent=unit, ensure_ascii=False)
    return rendered.replace("\n", "\n" + indent)


def _entry_text(key: str | None, value: Any, indent: str | None, unit: str) -> str:
    body = _render(value, indent, unit)
    return body if key is None else f"{json.dumps(key, ensure_ascii=False)}: {body}"


def _add_entry(text: str, node: Node, key: str | None, value: Any) -> str:
    unit = _unit(text)
    if node.children:
        last_start = node.entry_starts[-1]
        indent = _own_line_indent(text, last_start)
        entry = _entry_text(key, value, indent, unit)
        glue = "," + ("\n" + indent if indent is not None else " ")
        at = node.children[-1].end
        return text[:at] + glue + entry + text[at:]
    inner = text[node.start + 1 : node.end - 1]
    compact = "\n" not in text.strip()
    if compact:
        return text[: node.start + 1] + _entry_text(key, value, None, unit) + text[node.end - 1 :]
    outer = _own_line_indent(text, node.start)
    if outer is None:  # the container shares its line with its key: use that line's indent
        line = text[_line_start(text, node.start) : node.start]
        outer = line[: len(line) - len(line.lstrip(" \t"))]
    indent = outer + unit
    entry = _entry_text(key, value, indent, unit)
    del inner  # whatever whitespace was inside an empty container is replaced
    return text[: node.start + 1] + "\n" + indent + entry + "\n" + outer + text[node.end - 1 :]


def insert_member(text: str, obj: Node, key: str, value: Any) -> str:
    """`text` with member `key: value` added at the end of object `obj` (key must be new)."""
    if obj.kind != "object":
        raise JsonTextError(f"not an object at offset {obj.start}")
    if key in obj.keys:
        raise JsonTextError(f"key {key!r} already present at offset {obj.start}")
    return _add_entry(text, obj, key, value)


def append_item(text: str, array: Node, value: Any) -> str:
    """`text` with `value` appended to `array`."""
    if array.kind != "array":
        raise JsonTextError(f"not an array at offset {array.start}")
    return _add_entry(text, array, None, value)


def remove_entry(text: str, node: Node, index: int) -> str:
    """`text` without entry `index` (a member or an item) of container `node`.

    Entry 0 of several takes the separator after it; a later entry takes the separator before
    it; the only entry leaves an empty container (`{}` / `[]`).
    """
    count = len(node.children)
    if not 0 <= index < count:
        raise JsonTextError(f"no entry {index} in the container at offset {node.start}")
    if count == 1:
        return text[: node.start + 1] + text[node.end - 1 :]
    if index > 0:
        return text[: node.children[index - 1].end] + text[node.children[index].end :]
    return text[: node.entry_starts[0]] + text[node.entry_starts[1] :]
