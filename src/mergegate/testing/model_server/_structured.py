"""Structured outputs: each wire's field that asks for one JSON object of a schema.

The server reads the field the way the real API does, refuses a malformed one with HTTP 400
(as the API would: a client that sends it wrongly must fail in tests, not in production), and
records what was asked for:

* Anthropic Messages: `output_format` / `output_config.format` (`{"type": "json_schema",
  "schema": …}`), and Claude Code's `--json-schema`, which offers a `StructuredOutput` tool whose
  `input_schema` is the schema (the answer is that tool's input);
* Chat Completions: `response_format: {"type": "json_schema", "json_schema": {"name",
  "schema", "strict"}}` (or `{"type": "json_object"}`);
* Responses: `text.format: {"type": "json_schema", "name", "schema", "strict"}` (Codex's
  `--output-schema`).

A strict schema (`strict: true`, and Anthropic's output format) must be in the subset those
APIs accept: every object closed (`additionalProperties: false`) with every property required,
and none of the keywords they refuse. With `Script.check_structured`, a scripted reply that
does not match the requested schema is answered with HTTP 500 naming why (a real API would not
produce it); by default the script is replayed as written, which is how a test plays a server
that ignores the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators as jsonschema_validators
from pydantic import BaseModel, ConfigDict

from mergegate.testing.model_server._conversation import Api

__all__ = [
    "STRUCTURED_OUTPUT_TOOL",
    "StructuredField",
    "StructuredOutput",
    "StructuredOutputError",
    "reply_problem",
    "structured_output",
]

STRUCTURED_OUTPUT_TOOL = "StructuredOutput"
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_REFUSED_IN_STRICT = frozenset(
    {
        "minLength",
        "maxLength",
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
    }
)
_MAX_NODES = 10_000


class StructuredField(StrEnum):
    """Which field of which wire asked for structured output."""

    ANTHROPIC_OUTPUT_FORMAT = "anthropic_output_format"
    ANTHROPIC_TOOL = "anthropic_structured_output_tool"
    CHAT_RESPONSE_FORMAT = "chat_response_format"
    RESPONSES_TEXT_FORMAT = "responses_text_format"


class StructuredOutput(BaseModel):
    """What a request asked for: the field, the schema's name, whether it is strict, the
    schema (`None` for a plain JSON-object mode)."""

    model_config = ConfigDict(frozen=True)

    field: StructuredField
    name: str = ""
    strict: bool = False
    json_schema: dict[str, Any] | None = None


class StructuredOutputError(ValueError):
    """The request's structured-output field is malformed (answered with HTTP 400)."""


def structured_output(api: Api, body: Any) -> StructuredOutput | None:
    """The structured output `body` asks for on `api`, None when it asks for none.

    Raises `StructuredOutputError` for a malformed field or schema."""
    data = body if isinstance(body, Mapping) else {}
    if api is Api.CHAT_COMPLETIONS:
        return _chat(data.get("response_format"))
    if api is Api.RESPONSES:
        text = data.get("text")
        return _responses(text.get("format") if isinstance(text, Mapping) else None)
    if api is Api.ANTHROPIC_MESSAGES:
        return _anthropic(data)
    return None


def _chat(field: Any) -> StructuredOutput | None:
    if field is None:
        return None
    kind = _kind(field, "response_format")
    if kind == "text":
        return None
    where = StructuredField.CHAT_RESPONSE_FORMAT
    if kind == "json_object":
        return StructuredOutput(field=where)
    spec = field.get("json_schema")
    if not isinstance(spec, Mapping):
        raise StructuredOutputError("response_format.json_schema must be an object")
    return _checked(where, "response_format.json_schema", spec)


def _responses(field: Any) -> StructuredOutput | None:
    if field is None:
        return None
    kind = _kind(field, "text.format")
    if kind == "text":
        return None
    where = StructuredField.RESPONSES_TEXT_FORMAT
    if kind == "json_object":
        return StructuredOutput(field=where)
    return _checked(where, "text.format", field)


def _anthropic(data: Mapping[str, Any]) -> StructuredOutput | None:
    config = data.get("output_config")
    field = config.get("format") if isinstance(config, Mapping) else data.get("output_format")
    if field is not None:
        if _kind(field, "output_format") != "json_schema":
            raise StructuredOutputError("output_format.type must be 'json_schema'")
        schema = _schema(field.get("schema"), "output_format.schema", strict=True)
        return StructuredOutput(
            field=StructuredField.ANTHROPIC_OUTPUT_FORMAT, strict=True, json_schema=schema
        )
    for tool in data.get("tools") or ():
        if isinstance(tool, Mapping) and tool.get("name") == STRUCTURED_OUTPUT_TOOL:
            schema = _schema(tool.get("input_schema"), "StructuredOutput.input_schema")
            return StructuredOutput(
                field=StructuredField.ANTHROPIC_TOOL,
                name=STRUCTURED_OUTPUT_TOOL,
                json_schema=schema,
            )
    return None


def _kind(field: Any, where: str) -> str:
    kind = field.get("type") if isinstance(field, Mapping) else None
    if kind not in ("text", "json_object", "json_schema"):
        raise StructuredOutputError(f"{where}.type must be 'text', 'json_object' or 'json_schema'")
    return str(kind)


def _checked(where: StructuredField, path: str, spec: Mapping[str, Any]) -> StructuredOutput:
    name = spec.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise StructuredOutputError(f"{path}.name must be 1-64 characters of [A-Za-z0-9_-]")
    strict = spec.get("strict", False)
    if not isinstance(strict, bool):
        raise StructuredOutputError(f"{path}.strict must be a boolean")
    schema = _schema(spec.get("schema"), f"{path}.schema", strict=strict)
    return StructuredOutput(field=where, name=name, strict=strict, json_schema=schema)


def _schema(value: Any, path: str, *, strict: bool = False) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StructuredOutputError(f"{path} must be a JSON Schema object")
    try:
        jsonschema_validators.validator_for(value).check_schema(value)
    except jsonschema_exceptions.SchemaError as exc:
        raise StructuredOutputError(f"{path} is not a valid JSON Schema: {exc.message}") from None
    if value.get("type") != "object":
        raise StructuredOutputError(f"{path}: the root must be an object schema")
    if strict:
        for problem in _strict_problems(value):
            raise StructuredOutputError(f"{path} is not a strict schema: {problem}")
    return value


def _strict_problems(schema: Mapping[str, Any]) -> Iterator[str]:
    """What a strict structured-output API refuses in `schema` (first problems first)."""
    stack: list[tuple[str, Any]] = [("#", schema)]
    seen = 0
    while stack:
        where, node = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            yield f"more than {_MAX_NODES} schema nodes"
            return
        if not isinstance(node, Mapping):
            continue
        refused = sorted(_REFUSED_IN_STRICT & node.keys())
        if refused:
            yield f"{where} uses {', '.join(refused)}"
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            if node.get("additionalProperties") is not False:
                yield f"{where} must set additionalProperties to false"
            if set(node.get("required") or ()) != set(properties):
                yield f"{where} must list every property in required"
            stack.extend((f"{where}/properties/{k}", v) for k, v in properties.items())
        for keyword in ("items", "$defs", "anyOf"):
            child = node.get(keyword)
            if isinstance(child, Mapping) and keyword == "$defs":
                stack.extend((f"{where}/$defs/{k}", v) for k, v in child.items())
            elif isinstance(child, list):
                stack.extend((f"{where}/{keyword}/{i}", v) for i, v in enumerate(child))
            elif isinstance(child, Mapping):
                stack.append((f"{where}/{keyword}", child))


def reply_problem(structured: StructuredOutput, text: str, calls: Mapping[str, str]) -> str | None:
    """Why a scripted reply is not what the requested structured output allows, or None.

    `text` is the reply's text; `calls` maps tool names to their JSON arguments. For Claude
    Code's tool the answer is the `StructuredOutput` call's input; otherwise the text must be
    one JSON object (of the schema, when there is one)."""
    if structured.field is StructuredField.ANTHROPIC_TOOL:
        if STRUCTURED_OUTPUT_TOOL not in calls:
            return None  # a turn that works with other tools first
        answer = calls[STRUCTURED_OUTPUT_TOOL]
    else:
        if calls:
            return "a structured-output reply cannot also call tools"
        answer = text
    try:
        value = json.loads(answer)
    except ValueError as exc:
        return f"the reply is not one JSON value: {exc}"
    if not isinstance(value, dict):
        return "the reply is not a JSON object"
    return _schema_problem(structured.json_schema, value)


def _schema_problem(schema: dict[str, Any] | None, value: dict[str, Any]) -> str | None:
    if schema is None:
        return None
    validator = jsonschema_validators.validator_for(schema)(schema)
    error = jsonschema_exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"the reply does not match the requested schema at {where}: {error.message}"
