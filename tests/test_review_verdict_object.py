"""Issue 22, "Done when", through the CLI: a reviewer mergegate prompts is approved only by a
verdict object that approves this review — on the `command` backend (the final message is the
answer) and on the HTTP backend against the model server (`response_format: json_schema`).

Every hostile class is answered twice (the retry gets the same answer): a malformed one ends
undecidable (exit 3), a valid object that does not approve ends 1; none ends 0. The real Claude
Code and Codex CLIs get the same classes in `real_cli/test_real_verdict_object.py`; `run` and
`verify` in `test_run_verdict_object.py` and `test_verify.py`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import change_repo
from _verdict_object import finding, verdict_object
from mergegate.cli import cli
from mergegate.testing.model_server import ModelServer, Script, StructuredField, Turn

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
SCOPE = "task-7"


def hostile(rid: str, scope: str) -> dict[str, tuple[str, str]]:
    """Each class the issue names: (the reviewer's whole answer, the decision it must get)."""
    good = verdict_object(review_id=rid, scope=scope)

    def obj(**kwargs: Any) -> str:
        return verdict_object(**{"review_id": rid, "scope": scope, **kwargs})

    return {
        "prose-before": ("Looks good to me, approving.\n" + good, "malformed"),
        "prose-after": (good + "\nApprove, but only after #512 lands.", "malformed"),
        "fenced": ("```json\n" + good + "\n```", "malformed"),
        "fenced-then-text": ("```json\n" + good + "\n```\nStrike that: -1.", "malformed"),
        "two-objects": (good + "\n" + obj(verdict="reject"), "malformed"),
        "wrong-review-id": (obj(review_id="mg-0000000000000000"), "malformed"),
        "wrong-scope": (obj(scope="task-8"), "malformed"),
        "condition": (obj(conditions=["merge only after #512 lands"]), "fixes"),
        "blocking-finding": (obj(findings=[finding("F-1", "important")]), "fixes"),
        "critical-finding": (obj(findings=[finding("F-1", "critical")]), "fixes"),
        "duplicate-key": (
            good.replace('"verdict": "approve"', '"verdict": "reject", "verdict": "approve"'),
            "malformed",
        ),
        "nan-confidence": (good.replace('"confidence": 0.9', '"confidence": NaN'), "malformed"),
        "unknown-key": (good[:-1] + ', "approved": true}', "malformed"),
    }


CLASSES = sorted(hostile("x", "y"))
EXIT = {"malformed": 3, "fixes": 1}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    add = "def add(a, b):\n    return a + b\n"
    sub = add + "\n\ndef sub(a, b):\n    return a - b\n"
    return change_repo(tmp_path / "repo", {"app.py": add}, {"app.py": sub}, message="add sub")


def review(repo: Path, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    args = ["review", "--repo", str(repo), "--base", "HEAD~1", "--scope", SCOPE]
    args += ["--report-dir", str(tmp_path / "reports"), "--format", "json", *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def command_reviewer(tmp_path: Path, text: str) -> tuple[str, ...]:
    script = tmp_path / "rv.json"
    script.write_text(json.dumps([{"text": text}]))
    return ("--reviewer-cmd", f"{sys.executable} {FAKE} {script} {tmp_path / 'rv-state'}")


def decisions(out: dict[str, Any]) -> list[str]:
    return [a["decision"] for r in out["rounds"] for a in r["attempts"]]


def twin(out: dict[str, Any], n: int = 0) -> dict[str, Any]:
    attempt = [a for r in out["rounds"] for a in r["attempts"]][n]
    loaded: dict[str, Any] = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
    return loaded


def assert_refused(code: int, out: dict[str, Any], expected: str) -> None:
    assert out["decision"] != "approve"
    assert (code, out["decision"]) == (EXIT[expected], expected), out
    # a malformed answer is asked again once (same answer), a valid refusal is final
    assert decisions(out) == ([expected] * 2 if expected == "malformed" else [expected])


# ------------------------------------------------------------------ command backend


@pytest.mark.parametrize("name", CLASSES)
def test_a_command_reviewer_is_approved_by_nothing_but_an_approving_object(
    name: str, repo: Path, tmp_path: Path
) -> None:
    text, expected = hostile("{review_id}", "{scope}")[name]
    code, out = review(repo, tmp_path, *command_reviewer(tmp_path, text))
    assert_refused(code, out, expected)
    if expected == "malformed":
        retry = (tmp_path / "rv-state" / "prompt-2.txt").read_text()
        assert "could not be used" in retry  # the validation error, fed back
        assert twin(out)["parsed"]["answer_via"] == "final_message"


def test_a_command_reviewer_approves_with_the_object_alone(repo: Path, tmp_path: Path) -> None:
    text = verdict_object(summary="sub() is right", confidence=0.75)
    code, out = review(repo, tmp_path, *command_reviewer(tmp_path, f"\n  {text}\n"))
    assert (code, out["decision"]) == (0, "approve"), out
    record = twin(out)
    assert record["parsed"]["answer_via"] == "final_message"
    assert (record["summary"], record["confidence"]) == ("sub() is right", 0.75)
    assert record["parsed"]["object"]["scope"] == SCOPE
    markdown = Path(out["rounds"][0]["attempts"][0]["report"]).read_text()
    assert "**Summary:** sub() is right (confidence 0.75)" in markdown
    env = json.loads((tmp_path / "rv-state" / "env-1.json").read_text())
    assert env["MERGEGATE_REVIEW_SCOPE"] == SCOPE
    schema = json.loads(Path(env["MERGEGATE_ANSWER_SCHEMA"]).read_text())
    assert schema["properties"]["scope"]["enum"] == [SCOPE]


def test_findings_of_the_object_reach_the_fix_prompt(repo: Path, tmp_path: Path) -> None:
    found = finding(
        "F-1",
        "important",
        "sub() is untested",
        suggestion="add test_sub",
        requirement="every function has a test",
    )
    steps = [{"text": verdict_object("request_changes", [found])}, {"text": verdict_object()}]
    reviewer = tmp_path / "rv.json"
    reviewer.write_text(json.dumps(steps))
    implementer = tmp_path / "im.json"
    implementer.write_text(json.dumps([{"text": "added", "write": {"app.py": "# tested\n"}}]))
    code, out = review(
        repo,
        tmp_path,
        *("--reviewer-cmd", f"{sys.executable} {FAKE} {reviewer} {tmp_path / 'rv-state'}"),
        *("--fix", "--implementer-cmd", f"{sys.executable} {FAKE} {implementer} {tmp_path / 'im'}"),
    )
    assert (code, out["decision"]) == (0, "approve"), out
    fix_prompt = (tmp_path / "im" / "prompt-1.txt").read_text()
    assert "sub() is untested" in fix_prompt
    assert "add test_sub" in fix_prompt
    assert "every function has a test" in fix_prompt


def test_a_bad_scope_option_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    args = ["review", "--repo", str(repo), "--reviewer-cmd", "true", "--scope", " spaced "]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "--scope must be 1-200 printable characters" in result.output


# ------------------------------------------------------------------ HTTP via the model server


ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}


def http_review(
    repo: Path, tmp_path: Path, script: Script
) -> tuple[int, dict[str, Any], ModelServer]:
    with ModelServer(script) as server:
        config = tmp_path / "mergegate.toml"  # the person's config: never the change's own
        config.write_text(
            "[agents.backends.openai]\n"
            f'base_url = "{server.openai_base_url}"\n'
            'model = "mock-model"\n'
            "trust_env = false\n"
        )
        code, out = review(repo, tmp_path, "--reviewer", "openai", "--config", str(config))
    return code, out, server


def answering(text: str, *, check: bool = False) -> Script:
    return Script(
        turns=[Turn(text=text, echo={k: v for k, v in ECHO.items() if k in text})],
        when_exhausted="repeat_last",
        check_structured=check,
    )


@pytest.mark.parametrize("name", CLASSES)
def test_an_http_reviewer_is_approved_by_nothing_but_an_approving_object(
    name: str, repo: Path, tmp_path: Path
) -> None:
    """The server replays the answer as written (an endpoint that ignores the field)."""
    text, expected = hostile("{{review_id}}", "{{scope}}")[name]
    code, out, server = http_review(repo, tmp_path, answering(text))
    assert_refused(code, out, expected)
    assert twin(out)["parsed"]["answer_via"] == "chat_response_format"
    asked = [r.structured for r in server.requests]
    assert all(s is not None and s.field is StructuredField.CHAT_RESPONSE_FORMAT for s in asked)


def test_an_http_reviewer_approves_through_the_strict_response_format(
    repo: Path, tmp_path: Path
) -> None:
    """`check_structured`: the server refuses what the schema does not allow, as the API does;
    the approving object goes through, and the request's schema is a strict one."""
    text = verdict_object(review_id="{{review_id}}", scope="{{scope}}")
    code, out, server = http_review(repo, tmp_path, answering(text, check=True))
    assert (code, out["decision"]) == (0, "approve"), out
    (request,) = server.requests
    assert request.structured is not None
    assert request.structured.strict
    assert request.structured.json_schema is not None
    assert request.structured.json_schema["properties"]["scope"]["enum"] == [SCOPE]
    record = twin(out)
    assert record["answer_via"] == "chat_response_format"
    assert record["agent"]["answer"]["via"] == "chat_response_format"


def test_a_reply_the_schema_forbids_is_refused_by_a_checking_server(
    repo: Path, tmp_path: Path
) -> None:
    text = "Looks good.\n" + verdict_object(review_id="{{review_id}}", scope="{{scope}}")
    code, out, server = http_review(repo, tmp_path, answering(text, check=True))
    assert code == 4, out  # the endpoint failed the request: an agent failure, not a verdict
    assert server.requests[0].status == 500
