"""Typed JSON handoffs between components, with bounded, corrective retries.

* `extract(text, schema)` finds the last JSON object in an agent's output and validates it
  strictly, or returns one precise `HandoffFailure` (`ErrorKind`: empty, no_json, json_syntax,
  truncated, duplicate_key, schema, semantic). Truncated output is reported, never completed.
* `request_handoff(ask, prompt, schema)` asks, extracts, and asks again with the exact error —
  shorter prompts each time, backoff with jitter, at most 5 retries — and returns a
  `HandoffOutcome` carrying seed 002's debug record. `backoff_delay` is that backoff, the one
  formula every retry of mergegate waits by.
* Schemas: built-in `agent-result`, `advice`, `supervisor-decision`, `code-review-result`,
  `review-verdict`, `verifier-verdict` and `envelope`; register pydantic models or JSON
  Schema files by name.

Layer L1: pure validation, plus the records a handoff leaves under the state directory.
See `docs/handoffs.md`.
"""

from __future__ import annotations

from mergegate.handoff._envelope import ENVELOPE_VERSION, Envelope, EnvelopeMetadata, make_envelope
from mergegate.handoff._extract import Extraction, extract
from mergegate.handoff._failures import OUTPUT_SAMPLE_CHARS, ErrorKind, HandoffFailure
from mergegate.handoff._payloads import (
    AdvicePayload,
    AgentResultPayload,
    CodeReviewIssue,
    CodeReviewResultPayload,
    ReviewFinding,
    ReviewVerdictPayload,
    ScratchpadPayload,
    SupervisorComplete,
    SupervisorDecision,
    SupervisorError,
    SupervisorExecute,
    SupervisorReview,
    SupervisorSkip,
    VerifierJudgement,
    VerifierVerdictPayload,
    check_judged_criteria,
)
from mergegate.handoff._prompt_files import PromptFile, RenderedPrompt
from mergegate.handoff._prompts import level_for_retry, retry_prompt
from mergegate.handoff._records import (
    AttemptRecord,
    ErrorInfo,
    EventSink,
    HandoffRecord,
    HandoffRecorder,
    JsonlEventSink,
    MemoryEventSink,
)
from mergegate.handoff._registry import (
    Check,
    JsonSchemaFile,
    ModelSchema,
    Schema,
    SchemaRegistry,
    UnknownSchemaError,
    Validation,
    default_registry,
    registry_for,
)
from mergegate.handoff._retry import (
    Ask,
    AskFailedError,
    HandoffOutcome,
    InvalidHandoffError,
    RetryPolicy,
    StuckRunError,
    backoff_delay,
    request_handoff,
)
from mergegate.handoff._stored import read_record, retry_metadata, store_record
from mergegate.handoff._template import render_template

__all__ = [
    "ENVELOPE_VERSION",
    "OUTPUT_SAMPLE_CHARS",
    "AdvicePayload",
    "AgentResultPayload",
    "Ask",
    "AskFailedError",
    "AttemptRecord",
    "Check",
    "CodeReviewIssue",
    "CodeReviewResultPayload",
    "Envelope",
    "EnvelopeMetadata",
    "ErrorInfo",
    "ErrorKind",
    "EventSink",
    "Extraction",
    "HandoffFailure",
    "HandoffOutcome",
    "HandoffRecord",
    "HandoffRecorder",
    "InvalidHandoffError",
    "JsonSchemaFile",
    "JsonlEventSink",
    "MemoryEventSink",
    "ModelSchema",
    "PromptFile",
    "RenderedPrompt",
    "RetryPolicy",
    "ReviewFinding",
    "ReviewVerdictPayload",
    "Schema",
    "SchemaRegistry",
    "ScratchpadPayload",
    "StuckRunError",
    "SupervisorComplete",
    "SupervisorDecision",
    "SupervisorError",
    "SupervisorExecute",
    "SupervisorReview",
    "SupervisorSkip",
    "UnknownSchemaError",
    "Validation",
    "VerifierJudgement",
    "VerifierVerdictPayload",
    "backoff_delay",
    "check_judged_criteria",
    "default_registry",
    "extract",
    "level_for_retry",
    "make_envelope",
    "read_record",
    "register_schema",
    "registry_for",
    "render_template",
    "request_handoff",
    "retry_metadata",
    "retry_prompt",
    "store_record",
]


def register_schema(name: str, model: object, *, check: Check | None = None) -> Schema:
    """Register a pydantic model (or annotated type) by name on the default registry."""
    return default_registry().register_model(name, model, check=check)
