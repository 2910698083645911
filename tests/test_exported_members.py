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


EXPECTED_MODULE_EXPORTS = {
    "mergegate.verdicts": {
        "DIALECTS",
        "Evidence",
        "Finding",
        "Severity",
        "Verdict",
        "extract_findings",
        "parse_verdict",
    },
    "mergegate.agents.model_server": {
        "Api",
        "Fault",
        "FaultKind",
        "ModelServer",
        "RecordedRequest",
        "Script",
        "ToolCall",
        "Turn",
        "TurnUsage",
        "estimate_tokens",
        "load_script",
    },
    "mergegate.agents": {
        "AgentRequest",
        "AgentResult",
        "Backend",
        "BackendCapabilities",
        "BackendInfo",
        "HelpSignal",
        "RunStatus",
        "Usage",
        "available_backends",
        "get_backend",
    },
    "mergegate.agents.supervisor": {
        "SCRUBBED_ENV_NAMES",
        "SCRUBBED_ENV_PREFIXES",
        "CommandResult",
        "Limits",
        "ProcessOutcome",
        "ProcessRecord",
        "StopReason",
        "Stream",
        "child_environment",
        "group_members",
        "kill_recorded_group",
        "process_start_ticks",
        "run_command",
        "supervise",
    },
    "mergegate.agents.git": {"WorktreeSnapshot", "compare_snapshots", "snapshot_worktree"},
    "mergegate.agents.signals": {
        "HELP_MARKERS",
        "HelpDetector",
        "HelpReconciliation",
        "reconcile_requested_help",
        "scan_text",
    },
    "mergegate.agents.registry": {
        "ENTRY_POINT_GROUP",
        "BackendInfo",
        "available_backends",
        "get_backend",
    },
    "mergegate.agents.command": {"CommandBackend", "split_command"},
    "mergegate.agents.claude": {"READ_ONLY_TOOLS", "ClaudeBackend", "ClaudeParser"},
    "mergegate.agents.codex": {
        "API_KEY_ENV",
        "CodexBackend",
        "CodexParser",
        "config_overrides",
        "usage_delta",
    },
    "mergegate.agents.gemini": {"GeminiBackend", "GeminiParser"},
    "mergegate.agents.opencode": {"OpenCodeBackend", "OpenCodeParser"},
    "mergegate.agents.aider": {"AiderBackend", "AiderParser", "parse_token_count"},
    "mergegate.agents.openai": {
        "FILE_EDITS_GRAMMAR",
        "MAX_RESPONSE_BYTES",
        "OpenAIBackend",
        "verdict_grammar",
    },
    "mergegate.agents.local": {
        "DEFAULT_MODEL",
        "MODELS",
        "LocalBackend",
        "LocalServer",
        "LocalServerError",
        "ServerSettings",
        "local_server",
        "stop_local_server",
    },
    "mergegate.agents.edits": {
        "EDIT_PROTOCOL_INSTRUCTIONS",
        "MAX_FILES",
        "MAX_FILE_BYTES",
        "MAX_PATH_CHARS",
        "MAX_RESPONSE_CHARS",
        "EditOutcome",
        "EditProtocolError",
        "FileEdit",
        "apply_file_edits",
        "check_edit_path",
        "parse_file_edits",
    },
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


@pytest.mark.parametrize("module", sorted(EXPECTED_MODULE_EXPORTS))
def test_module_exports_are_pinned(module: str) -> None:
    assert set(importlib.import_module(module).__all__) == EXPECTED_MODULE_EXPORTS[module]


@pytest.mark.parametrize(
    "module",
    ["mergegate", "mergegate.errors", *sorted(EXPECTED_MODULE_EXPORTS)],
)
def test_every_exported_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert missing == []
