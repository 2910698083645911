"""`mergegate handoff check` and `mergegate schema` through the real command group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mergegate.cli import cli

VALID = '{"task_id": "T-1", "success": true, "completed_normally": true}'


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_valid_file_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text(f"All done.\n```json\n{VALID}\n```\n")
    code, out, _ = invoke(
        "handoff", "check", "--schema", "agent-result", str(path), "--format", "json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["ok"] is True
    assert payload["schema"] == "agent-result"
    assert payload["data"]["task_id"] == "T-1"
    assert payload["data"]["todos"] == []
    assert payload["error"] is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "empty"),
        ("nothing here", "no_json"),
        ('{"task_id": "T-1",}', "json_syntax"),
        ('{"task_id": "T-1", "success": tr', "truncated"),
        ('{"a": 1, "a": 2}', "duplicate_key"),
        ('{"task_id": "T-1", "success": "yes", "completed_normally": true}', "schema"),
        ('{"task_id": "T-1", "success": true, "completed_normally": false}', "semantic"),
    ],
)
def test_invalid_stdin_exits_3(text: str, kind: str) -> None:
    code, out, _ = invoke(
        "handoff", "check", "--schema", "agent-result", "--format", "json", stdin=text
    )
    assert code == 3
    payload = json.loads(out)
    assert payload["ok"] is False
    assert payload["data"] is None
    assert payload["error"]["type"] == kind
    assert payload["error"]["output_sample"] == text[:500]
    assert payload["error"]["details"]


def test_text_format_escapes_control_characters() -> None:
    hostile = '{"task_id": "T", "success": true, "completed_normally": true, "\\u001b[2Jx": 1}'
    code, out, _ = invoke("handoff", "check", "--schema", "agent-result", "-", stdin=hostile)
    assert code == 3
    assert "\x1b" not in out
    assert "\\x1b[2Jx" in out
    assert out.startswith("invalid agent-result handoff (schema)")


def test_text_format_valid() -> None:
    code, out, _ = invoke("handoff", "check", "--schema", "agent-result", stdin=VALID)
    assert code == 0
    assert out.startswith("valid agent-result handoff")


def test_context_option() -> None:
    trailer = '{"review_id": "abc", "verdict": "approve", "findings": []}'
    args = ("handoff", "check", "--schema", "review-verdict", "--format", "json")
    assert invoke(*args, "--context", "review_id=abc", stdin=trailer)[0] == 0
    code, out, _ = invoke(*args, "--context", "review_id=xyz", stdin=trailer)
    assert code == 3
    assert json.loads(out)["error"]["type"] == "semantic"
    assert invoke(*args, "--context", "nonsense", stdin=trailer)[0] == 2


def test_schema_path(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(
        '{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}'
    )
    assert invoke("handoff", "check", "--schema", str(schema), stdin='{"n": 1}')[0] == 0
    assert invoke("handoff", "check", "--schema", str(schema), stdin='{"n": "1"}')[0] == 3


def test_unknown_schema_exits_2() -> None:
    code, _, err = invoke("handoff", "check", "--schema", "nope", stdin=VALID)
    assert code == 2
    assert "unknown schema 'nope'" in err
    assert "agent-result" in err


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    code, _, err = invoke("handoff", "check", "--schema", "agent-result", str(tmp_path / "missing"))
    assert code == 2
    assert "cannot read" in err


def test_non_utf8_input_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bin"
    path.write_bytes(b"\xff\xfe{")
    code, _, err = invoke("handoff", "check", "--schema", "agent-result", str(path))
    assert code == 2
    assert "not UTF-8" in err


def test_schema_command_prints_json_schema() -> None:
    code, out, _ = invoke("schema", "review-verdict")
    assert code == 0
    document = json.loads(out)
    assert document["properties"]["verdict"]["enum"] == ["approve", "request_changes", "reject"]
    assert set(document["required"]) == {"review_id", "verdict"}


def test_schema_command_lists_and_rejects() -> None:
    code, out, _ = invoke("schema")
    assert code == 0
    assert "supervisor-decision" in out
    code, _, err = invoke("schema", "bogus")
    assert code == 2
    assert "known schemas: advice, agent-result" in err


def test_schema_template() -> None:
    code, out, _ = invoke("schema", "agent-result", "--template")
    assert code == 0
    assert '"success": <true|false>' in out


def test_invalid_config_exits_2(tmp_path: Path) -> None:
    (Path.cwd() / "mergegate.toml").write_text(
        "[handoff_validation]\nstrict_schema_validation = 'no'\n"
    )
    code, _, err = invoke("handoff", "check", "--schema", "agent-result", stdin=VALID)
    assert code == 2
    assert "handoff_validation.strict_schema_validation" in err
    assert "mergegate.toml" in err


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        (
            "https://example.com/schemas/agent.json",
            "has a remote $ref 'https://example.com/schemas/agent.json': mergegate never "
            "fetches schemas",
        ),
        ("other.json#/definitions/x", "has a remote $ref 'other.json#/definitions/x'"),
        ("#/$defs/missing", "has a dangling $ref '#/$defs/missing': nothing there"),
    ],
)
def test_a_schema_file_with_a_remote_or_dangling_ref_is_exit_2(
    tmp_path: Path, ref: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 9 (5): never fetch (it used to traceback after trying the network)."""

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a schema reference was fetched")

    monkeypatch.setattr("urllib.request.urlopen", no_network)
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": ref}}}))
    code, out, err = invoke("handoff", "check", "--schema", str(schema), stdin='{"a": 1}')
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("mergegate: error: JSON Schema (")
    assert message in err


def test_a_local_ref_that_resolves_is_fine(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    document = {
        "$defs": {"name": {"type": "string"}},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/name"}},
        "required": ["a"],
    }
    schema.write_text(json.dumps(document))
    assert invoke("handoff", "check", "--schema", str(schema), stdin='{"a": "x"}')[0] == 0
    assert invoke("handoff", "check", "--schema", str(schema), stdin='{"a": 1}')[0] == 3


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1E400"])
def test_a_number_that_overflows_is_an_invalid_handoff(number: str) -> None:
    """Issue 9 (5): `1e999` was accepted and printed as `Infinity`, which is not JSON."""
    text = (
        '{"task_id": "T-1", "success": true, "completed_normally": true, '
        f'"execution_time": {number}}}'
    )
    code, out, _ = invoke(
        "handoff", "check", "--schema", "agent-result", "--format", "json", stdin=text
    )
    assert code == 3
    payload = json.loads(out)
    assert payload["ok"] is False
    assert payload["data"] is None
    assert payload["error"]["type"] == "json_syntax"
    assert f"the number {number} is not a finite JSON number" in payload["error"]["details"]
    assert "Infinity" not in out
    code, out, _ = invoke("handoff", "check", "--schema", "agent-result", stdin=text)
    assert code == 3
    assert out.startswith("invalid agent-result handoff (json_syntax)")


def test_review_verdict_handoff_and_trailer_are_one_contract() -> None:
    """The `review-verdict` schema is the trailer model of `mergegate.verdicts`."""
    from mergegate.handoff import ReviewVerdictPayload, default_registry
    from mergegate.verdicts import ReviewVerdict

    assert ReviewVerdictPayload is ReviewVerdict
    schema = default_registry().get("review-verdict").json_schema()
    assert schema == ReviewVerdict.model_json_schema()
    assert schema["additionalProperties"] is False
