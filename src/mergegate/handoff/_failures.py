"""The error taxonomy of a handoff: what can be wrong with an agent's JSON, precisely."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

__all__ = ["OUTPUT_SAMPLE_CHARS", "ErrorKind", "HandoffFailure", "output_sample"]

OUTPUT_SAMPLE_CHARS = 500


class ErrorKind(StrEnum):
    """Why an output is not a valid handoff. Each kind gets its own retry wording."""

    EMPTY = "empty"
    """No output at all, or only whitespace."""
    NO_JSON = "no_json"
    """Text without any JSON object in it."""
    JSON_SYNTAX = "json_syntax"
    """An object that is not valid JSON (trailing comma, single quotes, comments, NaN, ...)."""
    TRUNCATED = "truncated"
    """The output ends inside an unclosed object. Reported, never completed."""
    DUPLICATE_KEY = "duplicate_key"
    """An object repeats a key: which value was meant is ambiguous, so neither is taken."""
    SCHEMA = "schema"
    """Valid JSON that does not match the schema (missing field, wrong type, unknown field)."""
    SEMANTIC = "semantic"
    """Matches the schema but is inconsistent (`success: true`, `completed_normally: false`)."""
    EXTRA_TEXT = "extra_text"
    """Text, a fence or a second object beside the object, where the answer must be the object
    alone (`extract(..., alone=True)`: a typed answer)."""


class HandoffFailure(BaseModel):
    """One invalid output: the kind, details precise enough to paste into a retry prompt,
    the first 500 characters of the output, and where in the output the fault is (1-based)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: ErrorKind
    details: str
    output_sample: str
    line: int | None = None
    column: int | None = None


def output_sample(text: str) -> str:
    """The first `OUTPUT_SAMPLE_CHARS` characters of an output (seed 002's `output_sample`)."""
    return text[:OUTPUT_SAMPLE_CHARS]
