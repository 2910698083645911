"""Retry prompts: the exact error fed back, shorter on every later attempt.

Levels (seed 002, "progressive prompt reduction"):

* `full` (first retry) — what was wrong, every detail, and the complete template.
* `minimal` (second retry) — the first lines of the error and the required fields only.
* `bare` (later retries) — "output only this JSON" with the required fields, one error line.

A `semantic` failure gets a targeted correction ("change exactly these points") instead of a
generic "invalid JSON" message; a `truncated` one asks for the whole object again, shorter —
never for a continuation, which would have to be glued to the fragment.
"""

from __future__ import annotations

from typing import Literal

from mergegate.handoff._failures import ErrorKind, HandoffFailure
from mergegate.handoff._registry import Schema
from mergegate.untrusted import bounded

__all__ = ["RetryLevel", "level_for_retry", "retry_prompt"]

RetryLevel = Literal["full", "minimal", "bare"]

MAX_DETAIL_CHARS = 2000
MINIMAL_DETAIL_CHARS = 300
BARE_DETAIL_CHARS = 160

_WHAT_WENT_WRONG = {
    ErrorKind.EMPTY: "Your previous reply was empty.",
    ErrorKind.NO_JSON: "Your previous reply did not contain a JSON object.",
    ErrorKind.JSON_SYNTAX: "Your previous reply contained invalid JSON.",
    ErrorKind.TRUNCATED: (
        "Your previous reply was cut off before the JSON object was closed. Do not continue "
        "the fragment: write the whole JSON object again from the beginning, shorter if needed."
    ),
    ErrorKind.DUPLICATE_KEY: "Your previous reply's JSON repeats a key.",
    ErrorKind.SCHEMA: "Your previous reply's JSON does not match the required schema.",
    ErrorKind.SEMANTIC: (
        "Your previous reply's JSON matches the schema but is inconsistent. Correct exactly "
        "the points below and keep every other value as it was."
    ),
    ErrorKind.EXTRA_TEXT: (
        "Your previous reply had text (or a code fence, or a second object) beside the JSON "
        "object. Answer with the JSON object alone: nothing before it, nothing after it."
    ),
}


def level_for_retry(retry: int, *, reduce: bool = True) -> RetryLevel:
    """The prompt level of the `retry`-th retry (1-based): full, then minimal, then bare."""
    if not reduce or retry <= 1:
        return "full"
    return "minimal" if retry == 2 else "bare"


def retry_prompt(
    failure: HandoffFailure, schema: Schema, *, level: str, attempt: int, max_attempts: int
) -> str:
    """The prompt for `attempt` (2-based: attempt 2 is the first retry) after `failure`."""
    if level == "full":
        return _full(failure, schema, attempt, max_attempts)
    if level == "minimal":
        return _minimal(failure, schema, attempt, max_attempts)
    return _bare(failure, schema)


def _full(failure: HandoffFailure, schema: Schema, attempt: int, max_attempts: int) -> str:
    return "\n\n".join(
        [
            f"{_WHAT_WENT_WRONG[failure.type]} (attempt {attempt} of {max_attempts}; "
            f"error type: {failure.type.value})",
            "Error details:\n" + bounded(failure.details, MAX_DETAIL_CHARS),
            f"Reply with ONLY one JSON object for schema {schema.name}, with no other text "
            "and no code fences. Placeholders in <angle brackets> stand for values of that "
            "type. Format (optional fields may be left out):\n" + schema.template(),
        ]
    )


def _minimal(failure: HandoffFailure, schema: Schema, attempt: int, max_attempts: int) -> str:
    first_lines = "\n".join(failure.details.splitlines()[:3])
    still = "INCONSISTENT" if failure.type is ErrorKind.SEMANTIC else "INVALID"
    return "\n".join(
        [
            f"JSON STILL {still} (attempt {attempt} of {max_attempts}, {failure.type.value}): "
            + bounded(first_lines, MINIMAL_DETAIL_CHARS),
            "Output ONLY a valid JSON object with these fields:",
            schema.template(required_only=True),
        ]
    )


def _bare(failure: HandoffFailure, schema: Schema) -> str:
    lines = failure.details.splitlines() or [failure.type.value]
    # For schema and semantic errors the first "- " line is the first concrete problem.
    first = next((line[2:] for line in lines if line.startswith("- ")), lines[0])
    return "\n".join(
        [
            "OUTPUT ONLY THIS JSON OBJECT - NO OTHER TEXT:",
            schema.template(required_only=True),
            "Last error: " + bounded(first, BARE_DETAIL_CHARS),
        ]
    )
