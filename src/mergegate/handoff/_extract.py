"""Extraction: from an agent's raw output to one validated payload, or one precise failure.

The rules, in order:

1. Only whitespace → `empty`.
2. The text ends inside an unclosed object → `truncated`, whatever came before it (an echoed
   example followed by a cut-off answer must not yield the example). Never completed.
3. No object at all → `no_json`.
4. The **last** non-empty object decides: valid → the payload; invalid → its failure
   (`json_syntax`, `duplicate_key`, `schema` or `semantic`). So an echoed example followed by the
   answer yields the answer, and an answer followed by another object is ambiguous and fails
   rather than silently picking the earlier one. Empty `{}` objects are skipped ("returns {}").

With `alone=True` (a typed answer, asked for through a structured-output mechanism) the output
must be exactly one object, whitespace aside: a valid object with text, a fence or another
object beside it is `extra_text`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mergegate.handoff._failures import ErrorKind, HandoffFailure, output_sample
from mergegate.handoff._registry import Schema, SchemaRegistry, default_registry
from mergegate.verdicts import DuplicateKeyError, ScanResult, Span, read_json, scan_objects

__all__ = ["Extraction", "extract"]

_SNIPPET_CHARS = 60


@dataclass(frozen=True, slots=True)
class Extraction:
    """The result of `extract`: a validated value, or a failure. Never both."""

    schema_name: str
    value: Any = None
    """The validated payload (a model instance for pydantic schemas, a dict for JSON Schema)."""
    data: dict[str, Any] | None = None
    """The JSON object as parsed (set whenever it parsed, valid or not)."""
    error: HandoffFailure | None = None
    span: tuple[int, int] | None = None
    """Offsets of the deciding object in the output."""
    candidates: int = 0
    """Top-level objects found in the output."""

    @property
    def ok(self) -> bool:
        return self.error is None


def extract(
    text: str,
    schema: str | Schema,
    *,
    context: Mapping[str, Any] | None = None,
    strict: bool = True,
    registry: SchemaRegistry | None = None,
    alone: bool = False,
) -> Extraction:
    """Find, parse and validate the handoff in `text` against `schema` (a name or a `Schema`).

    `context` is passed to the schema's consistency check (e.g. `{"review_id": ...}` so that a
    verdict trailer with another review id fails). `strict=False` ignores undeclared fields.
    `alone=True`: the output must be the object alone (see the module docstring).
    Never raises for bad output; unknown schema names raise `UnknownSchemaError`.
    """
    resolved = (registry or default_registry()).resolve(schema)
    found = _extract(text, resolved, context=context, strict=strict)
    if alone and found.ok and found.span != _stripped(text):
        detail = (
            "the output must be the JSON object alone, but it has text, a fence or another "
            "object beside it"
        )
        return _failed(resolved.name, text, ErrorKind.EXTRA_TEXT, detail, count=found.candidates)
    return found


def _stripped(text: str) -> tuple[int, int]:
    start = len(text) - len(text.lstrip())
    return start, len(text.rstrip())


def _extract(
    text: str,
    resolved: Schema,
    *,
    context: Mapping[str, Any] | None,
    strict: bool,
) -> Extraction:
    name = resolved.name
    if not text.strip():
        detail = "the output is empty" if not text else "the output is only whitespace"
        return _failed(name, text, ErrorKind.EMPTY, detail)
    whole = _whole_object(text)
    if whole is not None:
        return _validate(
            text, whole[0], whole[1], resolved, context=context, strict=strict, count=1
        )
    scan = scan_objects(text)
    if scan.unclosed_at is not None:
        return _truncated(name, text, scan)
    if not scan.candidates:
        return _failed(name, text, ErrorKind.NO_JSON, _no_json_detail(text, scan))
    count = len(scan.candidates) + scan.dropped
    for span in reversed(scan.candidates):
        result = _evaluate(text, span, resolved, context=context, strict=strict, count=count)
        if result is not None:
            return result
    # Every object was `{}`.
    last = scan.candidates[-1]
    return _evaluate(
        text, last, resolved, context=context, strict=strict, count=count, skip_empty=False
    ) or _failed(name, text, ErrorKind.SCHEMA, "the JSON object is empty")


def _evaluate(
    text: str,
    span: Span,
    schema: Schema,
    *,
    context: Mapping[str, Any] | None,
    strict: bool,
    count: int,
    skip_empty: bool = True,
) -> Extraction | None:
    raw = text[span.start : span.end]
    try:
        obj = read_json(raw)
    except DuplicateKeyError as exc:
        line, column = _line_col(text, span.start)
        detail = (
            f"the JSON object starting at line {line}, column {column} repeats the key "
            f'"{exc.key}"; give each key once'
        )
        return _failed(
            schema.name, text, ErrorKind.DUPLICATE_KEY, detail, offset=span.start, count=count
        )
    except (ValueError, RecursionError) as exc:
        return _syntax_failure(schema.name, text, span, exc, count)
    if skip_empty and obj == {}:
        return None
    return _validate(text, span, obj, schema, context=context, strict=strict, count=count)


def _whole_object(text: str) -> tuple[Span, dict[str, Any]] | None:
    """Fast path: the whole output (blanks aside) is one non-empty, valid JSON object.

    Then the scan would find exactly that one object and nothing else, so it is skipped. Any
    doubt (prose, fences, invalid JSON, `{}`) returns None and the full rules apply.
    """
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    if text[start : start + 1] != "{" or text[end - 1 : end] != "}":
        return None
    try:
        obj = read_json(text[start:end])
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not obj:
        return None
    return Span(start, end), obj


def _validate(
    text: str,
    span: Span,
    obj: dict[str, Any],
    schema: Schema,
    *,
    context: Mapping[str, Any] | None,
    strict: bool,
    count: int,
) -> Extraction:
    raw = text[span.start : span.end]
    bounds = (span.start, span.end)
    check = schema.validate(raw, obj, strict=strict, context=context)
    if check.ok:
        return Extraction(schema.name, check.value, obj, None, bounds, count)
    assert check.kind is not None
    line, column = _line_col(text, span.start)
    lead = (
        f"the JSON object at line {line}, column {column} does not match schema {schema.name}:"
        if check.kind is ErrorKind.SCHEMA
        else f"the JSON object at line {line}, column {column} is inconsistent:"
    )
    detail = "\n".join([lead, *(f"- {problem}" for problem in check.problems)])
    failure = HandoffFailure(
        type=check.kind, details=detail, output_sample=output_sample(text), line=line, column=column
    )
    return Extraction(schema.name, None, obj, failure, bounds, count)


def _syntax_failure(name: str, text: str, span: Span, exc: Exception, count: int) -> Extraction:
    if isinstance(exc, json.JSONDecodeError):
        offset = span.start + exc.pos
        line, column = _line_col(text, offset)
        hint = _syntax_hint(text, offset, exc.msg)
        detail = (
            f"invalid JSON at line {line}, column {column}: {exc.msg}{hint}\n"
            f"  near: {_snippet(text, offset)}"
        )
        return _failed(name, text, ErrorKind.JSON_SYNTAX, detail, offset=offset, count=count)
    if isinstance(exc, RecursionError):
        message = "the JSON object is nested too deeply"
    else:
        message = str(exc)
    line, column = _line_col(text, span.start)
    detail = f"invalid JSON in the object at line {line}, column {column}: {message}"
    return _failed(name, text, ErrorKind.JSON_SYNTAX, detail, offset=span.start, count=count)


def _syntax_hint(text: str, offset: int, message: str) -> str:
    before = text[max(0, offset - 200) : offset].rstrip()
    here = text[offset : offset + 2]
    if before.endswith(",") and text[offset : offset + 1] in "}]":
        return " (trailing comma before a closing bracket)"
    if here.startswith("'"):
        return " (JSON strings and keys use double quotes)"
    if here in ("//", "/*"):
        return " (JSON has no comments)"
    if "control character" in message:
        return " (write newlines and tabs inside strings as \\n and \\t)"
    if message.startswith("Expecting property name"):
        return " (keys must be double-quoted strings)"
    return ""


def _truncated(name: str, text: str, scan: ScanResult) -> Extraction:
    assert scan.unclosed_at is not None
    line, column = _line_col(text, scan.unclosed_at)
    end_line, end_column = _line_col(text, len(text))
    objects = scan.open_brackets.count("{")
    arrays = scan.open_brackets.count("[")
    still_open = f"{objects} object(s)" + (f" and {arrays} array(s)" if arrays else "")
    inside = " inside a string" if scan.in_string else ""
    detail = (
        f"the output ends{inside} at line {end_line}, column {end_column} before the JSON "
        f"object opened at line {line}, column {column} is closed ({still_open} still open); "
        "it was cut off and will not be completed"
    )
    count = len(scan.candidates) + scan.dropped
    return _failed(name, text, ErrorKind.TRUNCATED, detail, offset=scan.unclosed_at, count=count)


def _no_json_detail(text: str, scan: ScanResult) -> str:
    if scan.first_brace is None:
        return "no JSON object in the output (no '{' at all)"
    line, column = _line_col(text, scan.first_brace)
    return (
        f"no JSON object in the output: the first '{{' (line {line}, column {column}) does not "
        'start one — an object starts with {"key": ... and keys are double-quoted'
    )


def _failed(
    name: str,
    text: str,
    kind: ErrorKind,
    detail: str,
    *,
    offset: int | None = None,
    count: int = 0,
) -> Extraction:
    line, column = _line_col(text, offset) if offset is not None else (None, None)
    failure = HandoffFailure(
        type=kind, details=detail, output_sample=output_sample(text), line=line, column=column
    )
    return Extraction(name, error=failure, candidates=count)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _snippet(text: str, offset: int) -> str:
    start = max(0, offset - _SNIPPET_CHARS // 2)
    piece = text[start : offset + _SNIPPET_CHARS // 2]
    marked = piece[: offset - start] + "⟨HERE⟩" + piece[offset - start :]
    return json.dumps(marked, ensure_ascii=False)
