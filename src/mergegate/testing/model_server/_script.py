"""The script a model server replays: turns of assistant text, tool calls and faults.

A script is plain data (pydantic models), loadable from a JSON or TOML file. It says *what* the
fake model answers; the wire modules say *how* each API encodes it.
"""

from __future__ import annotations

import json
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mergegate.errors import UsageError

__all__ = [
    "MAX_ECHO_ENTRIES",
    "MAX_ECHO_MARKER_CHARS",
    "MAX_ECHO_TOKEN_CHARS",
    "Fault",
    "FaultKind",
    "Script",
    "ToolCall",
    "Turn",
    "TurnUsage",
    "load_script",
]

MAX_SCRIPT_BYTES = 8 * 1024 * 1024
MAX_ECHO_ENTRIES = 16
MAX_ECHO_MARKER_CHARS = 200
"""Longest placeholder or marker of an `echo` entry."""
MAX_ECHO_TOKEN_CHARS = 256
"""Longest token an `echo` copies from the prompt (a longer run is cut here)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Model):
    """One tool call the fake model makes.

    `arguments` as an object is a normal tool call everywhere: an Anthropic `tool_use` block
    (`input`), a Chat Completions `tool_calls[].function` or a Responses `function_call` (JSON
    string `arguments`). As a string it is a *free-form* tool input: a Responses
    `custom_tool_call` (Codex's grammar-based `apply_patch`), or the raw `arguments` string in
    Chat Completions; Anthropic accepts it only if it parses as a JSON object.
    """

    name: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = Field(default=None, max_length=200)
    """The call id; a deterministic one is made from the request number if unset."""


class FaultKind(StrEnum):
    """What can go wrong with a response."""

    HTTP_ERROR = "http_error"
    """Answer with `status` (default 500) and an error body in the API's own shape."""
    RATE_LIMIT = "rate_limit"
    """Answer 429 with a `retry-after` header of `retry_after_s` seconds."""
    TRUNCATE = "truncate"
    """Start the response, send `after_events` stream events (or half the body), then close."""
    HANG = "hang"
    """Read the request and never answer (until `duration_s` passes or the server stops)."""
    STALL = "stall"
    """Send `after_events` stream events, then go silent (until `duration_s` or stop)."""


class Fault(_Model):
    """A fault injected instead of (or before) a turn's normal answer."""

    kind: FaultKind
    status: int = Field(default=500, ge=400, le=599)
    """HTTP status for `http_error` (429 is forced for `rate_limit`)."""
    message: str = Field(default="scripted fault", max_length=10_000)
    retry_after_s: float = Field(default=1.0, ge=0)
    after_events: int = Field(default=2, ge=0)
    duration_s: float | None = Field(default=None, gt=0)
    """How long `hang`/`stall` last before the connection is closed; None = until stop."""
    count: int | None = Field(default=None, ge=1)
    """Inject the fault on this many requests for the turn, then answer normally; None =
    always (the turn is never answered, so a sequential script does not move past it)."""


class TurnUsage(_Model):
    """Token counts to report instead of the computed ones (characters / 4)."""

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)


class Turn(_Model):
    """One assistant turn: text and/or tool calls, optionally a fault, latency and usage."""

    text: str = Field(default="", max_length=10_000_000)
    tool_calls: tuple[ToolCall, ...] = ()
    match: str | None = Field(default=None, min_length=1, max_length=10_000)
    """Serve this turn when the latest user prompt contains this marker (see `Script`)."""
    latency_s: float = Field(default=0.0, ge=0)
    """Delay before the response starts."""
    event_delay_s: float = Field(default=0.0, ge=0)
    """Delay between stream events."""
    fault: Fault | None = None
    usage: TurnUsage | None = None
    echo: dict[str, str] = Field(default_factory=dict, max_length=MAX_ECHO_ENTRIES)
    """Placeholder in `text` (or in a tool call's string arguments) -> marker in the latest
    user prompt. Each placeholder is replaced
    by the token right after the marker's last occurrence (a run of `[A-Za-z0-9._-]`, at most
    `MAX_ECHO_TOKEN_CHARS`): how a scripted reviewer answers with the `review_id` nonce of the
    prompt it was given. A marker that is not in the prompt (or has no token after it) makes
    the request fail with HTTP 500 naming it."""

    @model_validator(mode="after")
    def _says_something(self) -> Turn:
        if not self.text and not self.tool_calls and self.fault is None:
            raise ValueError("a turn needs text, tool_calls or a fault")
        return self

    @model_validator(mode="after")
    def _echo_placeholders_are_used(self) -> Turn:
        for placeholder, marker in self.echo.items():
            for what, value in (("placeholder", placeholder), ("marker", marker)):
                if not 0 < len(value) <= MAX_ECHO_MARKER_CHARS:
                    raise ValueError(
                        f"echo {what} {value[:40]!r} must have 1 to {MAX_ECHO_MARKER_CHARS} "
                        "characters"
                    )
            arguments = (c.arguments for c in self.tool_calls if isinstance(c.arguments, str))
            if placeholder not in self.text and not any(placeholder in a for a in arguments):
                raise ValueError(
                    f"echo placeholder {placeholder!r} does not occur in the text or in a tool "
                    "call's string arguments"
                )
        return self


class Script(_Model):
    """The turns a model server replays.

    Turn selection, per request:

    1. **Matched**: the turns with a `match` marker found in the latest user *prompt* (the
       last user message that is not only tool results) form a group. The group's k-th turn is
       served, where k is the number of assistant turns after that prompt in the request's own
       history (so a prompt -> tool call -> tool result -> final text flow is two matched turns
       with the same marker). Past the group's end its last turn repeats. This is stateless:
       a retried request gets the same turn, and side requests do not disturb it.
    2. **Sequential** otherwise: the unmatched turns are served in order, one per request,
       whatever the request says. When they run out, `when_exhausted` decides: `error`
       (HTTP 500 naming the problem) or `repeat_last`.
    """

    turns: tuple[Turn, ...] = Field(min_length=1)
    model: str = Field(default="mock-model", min_length=1, max_length=200)
    """Listed by `/v1/models`; responses echo the model the request asked for."""
    when_exhausted: Literal["error", "repeat_last"] = "error"
    chunk_chars: int = Field(default=16, ge=1, le=1_000_000)
    """Stream text and tool arguments in deltas of this many characters."""
    check_structured: bool = False
    """When a request asks for structured output (a JSON schema in the wire's field), refuse
    (HTTP 500, naming why) a scripted reply the schema does not allow, as a real API never
    sends one. Off: the script is replayed as written (a server that ignores the field)."""


def load_script(path: Path) -> Script:
    """Read a script from a `.json` or `.toml` file.

    Raises `UsageError` (exit 2) for an unreadable, oversized or invalid file, naming it.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read script {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_SCRIPT_BYTES:
        raise UsageError(f"script {path} is larger than {MAX_SCRIPT_BYTES} bytes")
    try:
        data = _decode(raw, path)
        return Script.model_validate(data)
    except (ValueError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise UsageError(f"invalid script {path}: {exc}") from exc


def _decode(raw: bytes, path: Path) -> Any:
    text = raw.decode("utf-8")
    if path.suffix.lower() == ".toml":
        return tomllib.loads(text)
    if path.suffix.lower() == ".json":
        return json.loads(text)
    raise ValueError("the file name must end in .json or .toml")
