"""Built-in schemas, the registry, JSON Schema files, envelopes and templates."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from mergegate.config import load_config
from mergegate.errors import ConfigError, UsageError
from mergegate.handoff import (
    Envelope,
    ErrorKind,
    JsonSchemaFile,
    SchemaRegistry,
    UnknownSchemaError,
    default_registry,
    extract,
    make_envelope,
    registry_for,
    render_template,
)

BUILTINS = [
    "advice",
    "agent-result",
    "code-review-result",
    "envelope",
    "review-verdict",
    "scratchpad",
    "supervisor-decision",
    "verifier-verdict",
]


def test_builtin_names() -> None:
    assert default_registry().names() == BUILTINS


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_json_schemas_are_valid_json_schema(name: str) -> None:
    document = default_registry().get(name).json_schema()
    JsonSchemaFile(f"{name}-copy", document)  # raises on an invalid schema
    assert json.loads(json.dumps(document)) == document


SUPERVISOR = [
    ({"action": "complete", "session_id": "s", "reason": "all done"}, None, ""),
    ({"action": "error", "session_id": "s", "reason": "no tasks file"}, None, ""),
    ({"action": "skip", "session_id": "s", "reason": "dup", "task_id": "4"}, None, ""),
    ({"action": "skip", "session_id": "s", "reason": "dup"}, ErrorKind.SCHEMA, 'action is "skip"'),
    (
        {
            "action": "execute",
            "session_id": "s",
            "reason": "next",
            "task_id": "1",
            "task_title": "Add parser",
            "subtasks": ["write tests"],
            "project_root": "/repo",
            "guidance": "small steps",
        },
        None,
        "",
    ),
    (
        {"action": "execute", "session_id": "s", "reason": "next", "task_id": "1"},
        ErrorKind.SCHEMA,
        'task_title (when action is "execute"): required field is missing',
    ),
    ({"action": "fly", "session_id": "s", "reason": "?"}, ErrorKind.SCHEMA, "'fly'"),
    ({"session_id": "s", "reason": "?"}, ErrorKind.SCHEMA, "action"),
    ({"action": "complete", "session_id": "other", "reason": "x"}, ErrorKind.SEMANTIC, "'sess'"),
]


@pytest.mark.parametrize(("payload", "kind", "fragment"), SUPERVISOR)
def test_supervisor_required_fields_depend_on_action(
    payload: dict[str, Any], kind: ErrorKind | None, fragment: str
) -> None:
    context = {"session_id": "sess"} if payload.get("session_id") == "other" else None
    result = extract(json.dumps(payload), "supervisor-decision", context=context)
    if kind is None:
        assert result.ok, result.error
        assert result.value.action == payload["action"]
    else:
        assert result.error is not None
        assert result.error.type is kind
        assert fragment in result.error.details


def verdict(**changes: Any) -> str:
    base = {
        "review_id": "r-1",
        "verdict": "request_changes",
        "findings": [
            {
                "id": "F1",
                "severity": "important",
                "title": "Missing test",
                "file": None,
                "line": None,
            }
        ],
    }
    return json.dumps({**base, **changes})


@pytest.mark.parametrize(
    ("text", "context", "kind", "fragment"),
    [
        (verdict(), {"review_id": "r-1"}, None, ""),
        (verdict(verdict="approve", findings=[]), None, None, ""),
        (
            verdict(verdict="approve", findings=[{"id": "m", "severity": "minor", "title": "nit"}]),
            None,
            None,
            "",
        ),
        (verdict(), {"review_id": "r-2"}, ErrorKind.SEMANTIC, "'r-2'"),
        (verdict(verdict="approve"), None, ErrorKind.SEMANTIC, "F1 are critical or important"),
        (verdict(findings=[]), None, ErrorKind.SEMANTIC, "findings is empty"),
        (
            verdict(
                findings=[
                    {"id": "A", "severity": "minor", "title": "a"},
                    {"id": "A", "severity": "minor", "title": "b"},
                ]
            ),
            None,
            ErrorKind.SEMANTIC,
            "repeated: A",
        ),
        (verdict(verdict="APPROVE"), None, ErrorKind.SCHEMA, "verdict"),
        (verdict(verdict="approved with suggestions"), None, ErrorKind.SCHEMA, "verdict"),
        (
            verdict(findings=[{"id": "F", "severity": "high", "title": "x"}]),
            None,
            ErrorKind.SCHEMA,
            "findings[0].severity",
        ),
        (
            verdict(findings=[{"id": "F", "severity": "minor", "title": "x", "line": "12"}]),
            None,
            ErrorKind.SCHEMA,
            "findings[0].line",
        ),
    ],
)
def test_review_verdict(
    text: str, context: dict[str, str] | None, kind: ErrorKind | None, fragment: str
) -> None:
    result = extract(f"Review done.\n```json\n{text}\n```", "review-verdict", context=context)
    if kind is None:
        assert result.ok, result.error
    else:
        assert result.error is not None
        assert result.error.type is kind
        assert fragment in result.error.details


@pytest.mark.parametrize(
    ("changes", "kind"),
    [
        ({}, None),
        ({"step_number": 4}, ErrorKind.SEMANTIC),
        ({"status": "analyze_complete", "step_number": 1}, ErrorKind.SEMANTIC),
        ({"status": "done"}, ErrorKind.SCHEMA),
        ({"step_number": 2.0}, ErrorKind.SCHEMA),
        ({"issues_found": [{"severity": "low", "description": "naming"}]}, None),
    ],
)
def test_code_review_result(changes: dict[str, Any], kind: ErrorKind | None) -> None:
    payload = {
        "status": "pause_for_code_review",
        "issues_found": [],
        "confidence": "high",
        "step_number": 2,
        "total_steps": 3,
        "findings": "so far so good",
    }
    result = extract(json.dumps({**payload, **changes}), "code-review-result")
    assert (result.error.type if result.error else None) is kind


def test_envelope_round_trip() -> None:
    envelope = make_envelope(
        "agent",
        "s-1",
        {"task_id": "T"},
        retry_count=1,
        previous_errors=["json_syntax: trailing comma"],
        clock=lambda: datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC),
    )
    text = envelope.model_dump_json()
    result = extract(text, "envelope")
    assert result.ok, result.error
    assert result.value == envelope
    assert isinstance(result.value, Envelope)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"version": 2}, "version"),
        ({"timestamp": "2025-05-06T07:08:09"}, "timestamp"),  # no timezone
        ({"timestamp": 1746515289}, "timestamp"),
        ({"status": "ok"}, "status"),
        ({"component": "Agent Thing"}, "component"),
        ({"metadata": {"retry_count": "1", "previous_errors": []}}, "retry_count"),
    ],
)
def test_envelope_rejects(changes: dict[str, Any], fragment: str) -> None:
    base = {
        "version": 1,
        "component": "agent",
        "session_id": "s",
        "timestamp": "2025-05-06T07:08:09Z",
        "status": "success",
        "data": {},
        "metadata": {"retry_count": 0, "previous_errors": []},
    }
    result = extract(json.dumps({**base, **changes}), "envelope")
    assert result.error is not None
    assert result.error.type is ErrorKind.SCHEMA
    assert fragment in result.error.details


class Deploy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    service: str
    replicas: int


def test_register_a_pydantic_model_with_a_check() -> None:
    registry = default_registry().copy()

    def at_most_ten(value: Deploy, context: Any) -> list[str]:
        return [f"replicas {value.replicas} > 10"] if value.replicas > 10 else []

    registry.register_model("deploy", Deploy, check=at_most_ten)
    assert "deploy" in registry
    assert "deploy" not in default_registry()
    assert extract('{"service": "api", "replicas": 3}', "deploy", registry=registry).ok
    strict = extract('{"service": "api", "replicas": "3"}', "deploy", registry=registry)
    assert strict.error is not None
    assert strict.error.type is ErrorKind.SCHEMA
    semantic = extract('{"service": "api", "replicas": 30}', "deploy", registry=registry)
    assert semantic.error is not None
    assert semantic.error.type is ErrorKind.SEMANTIC
    with pytest.raises(UsageError, match="already registered"):
        registry.register_model("deploy", Deploy)


def test_invalid_schema_names_are_refused() -> None:
    with pytest.raises(UsageError, match="invalid schema name"):
        SchemaRegistry().register_model("Bad Name", Deploy)


def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "Deploy Plan.json"
    path.write_text(
        json.dumps(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "service": {"type": "string"},
                    "replicas": {"type": "integer", "minimum": 1},
                    "canary": {"type": "boolean"},
                },
                "required": ["service", "replicas"],
                "additionalProperties": False,
            }
        )
    )
    return path


@pytest.mark.parametrize(
    ("text", "kind", "fragment"),
    [
        ('{"service": "api", "replicas": 2}', None, ""),
        ('{"service": "api", "replicas": "2"}', ErrorKind.SCHEMA, "replicas: '2' is not of type"),
        ('{"service": "api", "replicas": true}', ErrorKind.SCHEMA, "replicas"),
        ('{"service": "api", "replicas": 2, "canary": "yes"}', ErrorKind.SCHEMA, "canary"),
        ('{"service": "api", "replicas": 0}', ErrorKind.SCHEMA, "minimum"),
        ('{"service": "api"}', ErrorKind.SCHEMA, "'replicas' is a required property"),
        ('{"service": "api", "replicas": 2, "x": 1}', ErrorKind.SCHEMA, "Additional properties"),
    ],
)
def test_json_schema_file(tmp_path: Path, text: str, kind: ErrorKind | None, fragment: str) -> None:
    schema = JsonSchemaFile.load(schema_file(tmp_path))
    assert schema.name == "deploy-plan"
    result = extract(text, schema)
    if kind is None:
        assert result.ok, result.error
        assert result.value == json.loads(text)
    else:
        assert result.error is not None
        assert result.error.type is kind
        assert fragment in result.error.details


def test_json_schema_file_non_strict_ignores_additional_properties(tmp_path: Path) -> None:
    schema = JsonSchemaFile.load(schema_file(tmp_path))
    assert extract('{"service": "api", "replicas": 2, "x": 1}', schema, strict=False).ok


def test_registry_resolves_paths(tmp_path: Path) -> None:
    path = schema_file(tmp_path)
    assert default_registry().resolve(str(path)).name == "deploy-plan"
    with pytest.raises(UsageError, match="cannot read schema file"):
        default_registry().resolve(str(tmp_path / "absent.json"))
    with pytest.raises(UnknownSchemaError, match="known schemas: advice, agent-result"):
        default_registry().resolve("no-such-schema")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{nope", "not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"type": "no-such-type"}', "invalid JSON Schema"),
    ],
)
def test_bad_schema_files(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=fragment):
        JsonSchemaFile.load(path)


def test_config_registers_schema_files(tmp_path: Path) -> None:
    schema_file(tmp_path)
    (tmp_path / "mergegate.toml").write_text(
        '[handoff_validation.schemas]\ndeploy = "Deploy Plan.json"\n'
    )
    registry = registry_for(load_config(tmp_path, env={}))
    assert extract('{"service": "api", "replicas": 2}', "deploy", registry=registry).ok
    (tmp_path / "mergegate.toml").write_text('[handoff_validation.schemas]\ndeploy = "gone.json"\n')
    with pytest.raises(ConfigError, match=r"handoff_validation\.schemas\.deploy"):
        registry_for(load_config(tmp_path, env={}))


def test_templates() -> None:
    agent = default_registry().get("agent-result")
    assert agent.template(required_only=True) == (
        '{"task_id": "<string>", "success": <true|false>, "completed_normally": <true|false>}'
    )
    assert '"todos": ["<string>"]' in agent.template()
    lines = default_registry().get("supervisor-decision").template(required_only=True).splitlines()
    assert len(lines) == 5
    assert lines[0].startswith('{"action": "execute"')
    assert '"project_root"' in lines[0]
    assert '"project_root"' not in lines[3]
    assert '"<date-time>"' in default_registry().get("envelope").template()


def test_template_of_a_plain_json_schema() -> None:
    document = {
        "type": "object",
        "properties": {
            "kind": {"enum": ["a", "b"]},
            "n": {"type": ["integer", "null"]},
            "tags": {"type": "array"},
            "meta": {"type": "object"},
        },
        "required": ["kind"],
    }
    assert (
        render_template(document)
        == '{"kind": "a|b", "n": <integer> or null, "tags": [...], "meta": {...}}'
    )
    assert render_template(document, required_only=True) == '{"kind": "a|b"}'


def test_advice_minimal_and_its_rules() -> None:
    ok = extract('{"guidance": "use the helper", "action": "continue"}', "advice")
    assert ok.ok
    assert ok.value.steps == []
    blank = extract('{"guidance": "   ", "action": "skip"}', "advice")
    assert blank.error is not None
    assert blank.error.type is ErrorKind.SEMANTIC
    wrong = extract('{"guidance": "x", "action": "proceed"}', "advice")
    assert wrong.error is not None
    assert wrong.error.type is ErrorKind.SCHEMA


def test_agent_result_must_be_about_the_task_given_in_the_context() -> None:
    text = '{"task_id": "T-2", "success": false, "completed_normally": false}'
    assert extract(text, "agent-result").ok
    other = extract(text, "agent-result", context={"task_id": "T-1"})
    assert other.error is not None
    assert "task_id is 'T-2' but this task is 'T-1'" in other.error.details
    full = extract(
        '{"task_id": "T-1", "success": true, "completed_normally": true, "notes": "n", '
        '"files_changed": ["a.py"], "help_context": {"reason": "r"}, "requested_help": true}',
        "agent-result",
        context={"task_id": "T-1"},
    )
    assert full.ok
