"""Format templates for retry prompts, rendered from a JSON Schema.

A template shows the shape of the expected object with typed placeholders, e.g.
`{"task_id": "<string>", "success": <true|false>}`. It is deliberately *not* valid JSON where a
placeholder stands for a non-string value, so an agent that echoes it verbatim produces a syntax
error instead of a handoff that validates with made-up values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["render_template"]

_MAX_DEPTH = 6
_SCALARS = {
    "string": '"<string>"',
    "integer": "<integer>",
    "number": "<number>",
    "boolean": "<true|false>",
    "null": "null",
}


def render_template(schema: Mapping[str, Any], *, required_only: bool = False) -> str:
    """Render a one-line-per-variant template of `schema` (a JSON Schema object).

    With `required_only`, optional properties are left out (the "minimal" template). A union
    of object variants (e.g. a discriminated union) renders one line per variant.
    """
    root = dict(schema)
    variants = _variants(root, root)
    if len(variants) > 1:
        return "\n".join(
            _render(variant, root, required_only=required_only, depth=0) for variant in variants
        )
    return _render(root, root, required_only=required_only, depth=0)


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(target, Mapping) or part not in target:
            return node
        target = target[part]
    return target if isinstance(target, Mapping) else node


def _variants(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    node = _resolve(node, root)
    for key in ("oneOf", "anyOf"):
        options = node.get(key)
        if isinstance(options, list) and options:
            resolved = [_resolve(option, root) for option in options if isinstance(option, Mapping)]
            if all(option.get("type") == "object" for option in resolved):
                return resolved
    return [node]


def _render(
    node: Mapping[str, Any], root: Mapping[str, Any], *, required_only: bool, depth: int
) -> str:
    node = _resolve(node, root)
    if depth > _MAX_DEPTH:
        return "..."
    fixed = _render_fixed(node)
    if fixed is not None:
        return fixed
    options = node.get("anyOf") or node.get("oneOf")
    if isinstance(options, list) and options:
        parts = [
            _render(option, root, required_only=required_only, depth=depth + 1)
            for option in options
            if isinstance(option, Mapping)
        ]
        return " or ".join(dict.fromkeys(parts))
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        return _render_object(node, root, required_only=required_only, depth=depth)
    items = node.get("items")
    if kind == "array" and isinstance(items, Mapping):
        return "[" + _render(items, root, required_only=required_only, depth=depth + 1) + "]"
    return _render_scalar(node, kind)


def _render_fixed(node: Mapping[str, Any]) -> str | None:
    """A `const` or an `enum` renders as its value(s); None for anything else."""
    if "const" in node:
        return json.dumps(node["const"])
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        return '"' + "|".join(str(value) for value in enum) + '"'
    return None


def _render_scalar(node: Mapping[str, Any], kind: Any) -> str:
    if kind == "array":
        return "[...]"
    if isinstance(kind, list):
        return " or ".join(_SCALARS.get(str(k), f"<{k}>") for k in kind)
    if kind == "string" and isinstance(node.get("format"), str):
        return f'"<{node["format"]}>"'
    if isinstance(kind, str):
        return _SCALARS.get(kind, f"<{kind}>")
    return "<any>"


def _render_object(
    node: Mapping[str, Any], root: Mapping[str, Any], *, required_only: bool, depth: int
) -> str:
    properties = node.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return "{}" if node.get("additionalProperties") is False else "{...}"
    required = set(node.get("required", ()))
    members = []
    # Constant members (a union's tag, e.g. "action": "execute") first: they say which shape.
    ordered = sorted(properties.items(), key=lambda item: not _is_const(item[1], root))
    for name, sub in ordered:
        if required_only and name not in required:
            continue
        value = (
            _render(sub, root, required_only=required_only, depth=depth + 1)
            if isinstance(sub, Mapping)
            else "<any>"
        )
        members.append(f"{json.dumps(name)}: {value}")
    return "{" + ", ".join(members) + "}"


def _is_const(node: Any, root: Mapping[str, Any]) -> bool:
    return isinstance(node, Mapping) and "const" in _resolve(node, root)
