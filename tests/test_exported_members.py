"""The public API is what `__all__` lists; this pins it so changes are deliberate."""

from __future__ import annotations

import importlib

import pytest

import mergegate

EXPECTED_TOP_LEVEL = {
    "AgentError",
    "ConfigError",
    "Decision",
    "EscalationError",
    "ExitCode",
    "HandoffError",
    "MergegateError",
    "UndecidableError",
    "UsageError",
    "__version__",
    "worst_exit_code",
}


def test_top_level_exports_are_pinned() -> None:
    assert set(mergegate.__all__) == EXPECTED_TOP_LEVEL


EXPECTED_MODULES = {
    "mergegate.durable": {
        "OverwriteRefusedError",
        "append_jsonl",
        "read_json_validated",
        "write_atomic",
        "write_json_atomic",
    },
    "mergegate.config": {
        "ENV_PREFIX",
        "MAX_ATTEMPTS_CEILING",
        "MAX_JSON_RETRIES_CEILING",
        "STATE_DIR_ENV",
        "AgentsConfig",
        "Config",
        "HandoffValidationConfig",
        "RetryConfig",
        "ReviewConfig",
        "ReviewPolicyConfig",
        "find_config_file",
        "load_config",
        "state_dir",
    },
    "mergegate.handoff": {
        "ENVELOPE_VERSION",
        "OUTPUT_SAMPLE_CHARS",
        "AgentResultPayload",
        "Ask",
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
        "RetryPolicy",
        "ReviewFinding",
        "ReviewVerdictPayload",
        "Schema",
        "SchemaRegistry",
        "StuckRunError",
        "SupervisorComplete",
        "SupervisorDecision",
        "SupervisorError",
        "SupervisorExecute",
        "SupervisorReview",
        "SupervisorSkip",
        "UnknownSchemaError",
        "Validation",
        "default_registry",
        "extract",
        "level_for_retry",
        "make_envelope",
        "register_schema",
        "registry_for",
        "render_template",
        "request_handoff",
        "retry_prompt",
    },
    "mergegate.cli.handoff": {"handoff", "schema"},
}


@pytest.mark.parametrize("module", sorted(EXPECTED_MODULES))
def test_module_exports_are_pinned(module: str) -> None:
    assert set(importlib.import_module(module).__all__) == EXPECTED_MODULES[module]


@pytest.mark.parametrize(
    "module",
    [
        "mergegate",
        "mergegate.agents",
        "mergegate.errors",
        "mergegate.durable",
        "mergegate.config",
        "mergegate.handoff",
        "mergegate.cli.handoff",
    ],
)
def test_every_exported_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert missing == []
