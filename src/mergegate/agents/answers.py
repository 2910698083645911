"""Typed answers: one JSON Schema, and what each backend's mechanism takes from it.

A caller that needs a typed answer (a review's verdict object, an implementer's
`agent-result`, the verifier's judgements) puts an `AnswerSchema` on the request
(`answer_schema(name, Model, pins)`). Every backend then uses the strongest mechanism it has
(`AnswerMechanism`) and reports the raw answer in `AgentResult.answer`; the caller validates it
strictly whatever the mechanism promised. This module derives what the mechanisms need:

* `strict_schema` — the subset every structured-output API accepts (OpenAI `strict: true`,
  Codex `--output-schema`, Anthropic): every property required, `additionalProperties: false`
  everywhere, no length, pattern or range keywords, no free-form objects. Each object valid
  under it is valid under the full schema's structure; bounds are checked by the caller.
* `answer_grammar` — a llama.cpp GBNF grammar generated from the schema (the `local` backend),
  keys in the schema's order, compact separators, so a key cannot appear twice and no text can
  stand beside the object; strings and arrays are bounded so a small model cannot run away.
* `after_edit_blocks` — the answer of an edit-protocol reply (the text after its last block).
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from mergegate.agents.base import AnswerMechanism, AnswerSchema, StructuredAnswer
from mergegate.agents.edits import CLOSE_MARKER

__all__ = [
    "after_edit_blocks",
    "answer_grammar",
    "answer_schema",
    "final_message_answer",
    "strict_schema",
]

_KEPT = frozenset({"type", "items", "enum", "const", "anyOf", "$ref", "description"})
_BOUNDS = frozenset({"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"})
_MAX_NODES = 10_000


def answer_schema(
    name: str, model: type[BaseModel], pins: Mapping[str, str] | None = None
) -> AnswerSchema:
    """The `AnswerSchema` of `model`, with top-level string properties pinned to a value.

    A pin (`{"review_id": "mg-…"}`) becomes a one-value enum: a mechanism that enforces the
    schema makes the model copy it; the caller still checks it.
    """
    schema = json.loads(_json_schema(model))  # a fresh copy: the pins below change it
    properties = schema.get("properties", {})
    for key, value in (pins or {}).items():
        if key not in properties:
            raise ValueError(f"cannot pin {key!r}: {model.__name__} has no such property")
        described = properties[key].get("description")
        properties[key] = {"type": "string", "enum": [value]}
        if described:
            properties[key]["description"] = described
    return AnswerSchema(name=name, json_schema=json.dumps(schema, ensure_ascii=False))


@functools.cache
def _json_schema(model: type[BaseModel]) -> str:
    """`model`'s JSON schema, generated once: pydantic builds it anew on every call, which
    was a visible share of each reviewer attempt's CPU."""
    return json.dumps(model.model_json_schema())


def final_message_answer(text: str) -> StructuredAnswer:
    """The answer of a backend without a mechanism: its whole final message."""
    return StructuredAnswer(via=AnswerMechanism.FINAL_MESSAGE, text=text)


def after_edit_blocks(text: str) -> str:
    """The text after the last `>>>>>>> END` line of an edit-protocol reply (all of it when
    there is no block): where the reply's typed answer stands."""
    marker = "\n" + CLOSE_MARKER
    end = text.rfind(marker)
    while end >= 0:
        tail = text[end + len(marker) :]
        line_end = tail.find("\n")
        rest_of_line = tail if line_end < 0 else tail[:line_end]
        if not rest_of_line.strip(" \t\r"):
            return "" if line_end < 0 else tail[line_end + 1 :]
        end = text.rfind(marker, 0, end)
    return text


# ------------------------------------------------------------------ the strict subset


def strict_schema(schema: Mapping[str, Any], *, keep_bounds: bool = False) -> dict[str, Any]:
    """The structured-output subset of `schema` (see the module docstring).

    `keep_bounds` keeps `minLength`/`maxLength`/`minimum`/`maximum`/`minItems`/`maxItems`
    (the grammar generator uses them; the APIs refuse them). `$defs` and `$ref` are kept.
    """
    result = _strict(schema, keep_bounds)
    if "$defs" in schema:
        result["$defs"] = {k: _strict(v, keep_bounds) for k, v in schema["$defs"].items()}
    return result


def _strict(node: Mapping[str, Any], keep_bounds: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _KEPT or (keep_bounds and key in _BOUNDS):
            out[key] = value
    if "items" in node:
        out["items"] = _strict(node["items"], keep_bounds)
    if "anyOf" in node:
        options = [_strict(o, keep_bounds) for o in node["anyOf"] if not _free_form(o)]
        if len(options) == 1:
            out.pop("anyOf")
            out.update(options[0])
        else:
            out["anyOf"] = options
    if "properties" in node:
        props = node["properties"]
        kept = {k: _strict(v, keep_bounds) for k, v in props.items() if not _free_form(v)}
        out.update(type="object", properties=kept, required=list(kept))
        out["additionalProperties"] = False
    return out


def _free_form(node: Mapping[str, Any]) -> bool:
    """An object without declared properties (any keys), or a union of only such and null:
    no strict mechanism can express it, so it is left out (the model may not set it)."""
    if node.get("type") == "object" and "properties" not in node:
        return True
    options = node.get("anyOf")
    if isinstance(options, list) and options:
        solid = [o for o in options if o.get("type") != "null"]
        return bool(solid) and all(_free_form(o) for o in solid)
    return False


# ------------------------------------------------------------------ the grammar


_STRING_CHAR = r'char     ::= [^"\\\x00-\x1f\u2028\u2029] | "\\" ["\\/]' + "\n"


def answer_grammar(
    schema: Mapping[str, Any],
    *,
    root: str = "root",
    max_items: int = 3,
    max_string: int = 160,
) -> str:
    """GBNF rules whose rule `root` is exactly one JSON object of `schema` (and nothing else).

    Built from `strict_schema(schema, keep_bounds=True)`: every key in order, compact
    separators (`", "`, `": "`), strings without control characters or newline escapes,
    arrays of at most `max_items` items and strings of at most `max_string` characters (or the
    schema's smaller bounds). `ValueError` for a schema it cannot express.
    """
    variants = schema.get("anyOf")
    if isinstance(variants, list) and "properties" not in schema:
        # A root union of object variants (`AnswerSchema.grammar_schema`).
        strict: dict[str, Any] = {"anyOf": [strict_schema(v, keep_bounds=True) for v in variants]}
        strict["$defs"] = strict_schema(schema, keep_bounds=True).get("$defs", {})
    else:
        strict = strict_schema(schema, keep_bounds=True)
    builder = _Grammar(strict.get("$defs", {}), max_items=max_items, max_string=max_string)
    body = builder.value(strict, root)
    return f"{root} ::= {body}\n" + "".join(builder.rules) + _STRING_CHAR


class _Grammar:
    """Collects named rules while it walks the schema (one rule per `$ref` target)."""

    def __init__(self, defs: Mapping[str, Any], *, max_items: int, max_string: int) -> None:
        self.defs = defs
        self.max_items = max_items
        self.max_string = max_string
        self.rules: list[str] = []
        self.named: dict[str, str] = {}
        self.bodies: dict[str, str] = {}
        self.nodes = 0

    def value(self, node: Mapping[str, Any], hint: str) -> str:
        """A GBNF expression for one value of `node`."""
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise ValueError("the schema is too large for a grammar")
        if "$ref" in node:
            return self._ref(node["$ref"])
        if "enum" in node or "const" in node:
            values = node["enum"] if "enum" in node else [node["const"]]
            literals = (_literal(json.dumps(v, ensure_ascii=False)) for v in values)
            return "(" + " | ".join(literals) + ")"
        if "anyOf" in node:
            return "(" + " | ".join(self.value(o, hint) for o in node["anyOf"]) + ")"
        kind = node.get("type")
        if isinstance(kind, list):
            return "(" + " | ".join(self.value({**node, "type": k}, hint) for k in kind) + ")"
        return self._typed(str(kind), node, hint)

    def _typed(self, kind: str, node: Mapping[str, Any], hint: str) -> str:
        if kind == "object":
            return self._object(node, hint)
        if kind == "array":
            return self._array(node, hint)
        if kind == "string":
            return self._string(node)
        if kind in ("integer", "number"):
            return _number(kind, node)
        if kind in _SCALARS:
            return _SCALARS[kind]
        raise ValueError(f"a grammar cannot express the schema type {kind!r}")

    def _ref(self, ref: str) -> str:
        name = ref.rsplit("/", 1)[-1]
        if not ref.startswith("#/$defs/") or name not in self.defs:
            raise ValueError(f"unresolvable $ref {ref!r}")
        if name not in self.named:
            rule = "def-" + "".join(c if c.isalnum() else "-" for c in name).lower()
            self.named[name] = rule
            self.rules.append(f"{rule} ::= {self.value(self.defs[name], rule)}\n")
        return self.named[name]

    def _object(self, node: Mapping[str, Any], hint: str) -> str:
        parts = []
        for position, (key, sub) in enumerate(node.get("properties", {}).items()):
            lead = "{" if position == 0 else ", "
            key_text = lead + json.dumps(key, ensure_ascii=False) + ": "
            parts.append(f"{_literal(key_text)} {self.value(sub, f'{hint}-{key}')}")
        if not parts:
            return '"{}"'
        return " ".join(parts) + ' "}"'

    def _array(self, node: Mapping[str, Any], hint: str) -> str:
        item_rule = self._rule(_rule_name(f"{hint}-item"), node.get("items", {}))
        least = int(node.get("minItems", 0))
        # The default cap keeps a small model short; a schema that needs more items (one per
        # criterion) says so with minItems.
        most = min(int(node.get("maxItems", self.max_items)), max(self.max_items, least))
        if most < least:
            raise ValueError(f"{hint}: at least {least} items, but at most {most} allowed")
        if most == 0:
            return '"[]"'
        more = f' (", " {item_rule}){{{max(least - 1, 0)},{most - 1}}}'
        items = f"{item_rule}{more}"
        return f'"[" {items} "]"' if least else f'"[" ({items})? "]"'

    def _rule(self, name: str, node: Mapping[str, Any]) -> str:
        """A named rule for `node`: the same name and body once, another body a new name."""
        body = self.value(node, name)
        for n in itertools.count(1):
            candidate = name if n == 1 else f"{name}-{n}"
            known = self.bodies.get(candidate)
            if known is None:
                self.bodies[candidate] = body
                self.rules.append(f"{candidate} ::= {body}\n")
                return candidate
            if known == body:
                return candidate
        raise AssertionError("unreachable")  # pragma: no cover

    def _string(self, node: Mapping[str, Any]) -> str:
        most = min(int(node.get("maxLength", self.max_string)), self.max_string)
        least = min(int(node.get("minLength", 0)), most)
        return f'"\\"" char{{{least},{most}}} "\\""'


_SCALARS = {"boolean": '("true" | "false")', "null": '"null"'}
_INTEGER = '("-"? ("0" | [1-9] [0-9]{0,8}))'
_INTEGER_POSITIVE = "([1-9] [0-9]{0,5})"
_NUMBER = '("-"? ("0" | [1-9] [0-9]{0,8}) ("." [0-9]{1,6})?)'
_UNIT_NUMBER = '("0" ("." [0-9]{1,3})? | "1" (".0")?)'


def _number(kind: str, node: Mapping[str, Any]) -> str:
    if kind == "integer":
        return _INTEGER_POSITIVE if node.get("minimum", 0) >= 1 else _INTEGER
    if node.get("minimum") == 0 and node.get("maximum") == 1:
        return _UNIT_NUMBER
    return _NUMBER if node.get("minimum", -1) < 0 else _NUMBER.replace('"-"? ', "")


def _literal(text: str) -> str:
    """`text` as a GBNF string literal (JSON string escaping is a subset GBNF accepts)."""
    return json.dumps(text, ensure_ascii=False)


def _rule_name(hint: str) -> str:
    """A GBNF rule name (letters, digits and `-` only)."""
    return "".join(c if c.isalnum() else "-" for c in hint).lower()[:80]
