"""The openai backend through its real httpx code path, with a fake transport."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mergegate.agents.base import AgentRequest, AgentResult, Backend, RunStatus
from mergegate.agents.edits import EDIT_PROTOCOL_INSTRUCTIONS
from mergegate.agents.openai import OpenAIBackend

BASE = "http://model.test/v1"


def completion(
    text: str, *, usage: dict[str, Any] | None = None, finish: str = "stop"
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}
        ],
        "usage": usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


class FakeEndpoint:
    """Records every request body and answers with the next scripted reply."""

    def __init__(
        self, *replies: httpx.Response | Callable[[httpx.Request], httpx.Response]
    ) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        reply = self.replies.pop(0)
        return reply(request) if callable(reply) else reply


def backend(endpoint: FakeEndpoint, tmp_path: Path, **kwargs: Any) -> OpenAIBackend:
    return OpenAIBackend(
        BASE,
        "test-model",
        transport=httpx.MockTransport(endpoint),
        state_dir=tmp_path / "state",
        **kwargs,
    )


def review(tmp_path: Path, **kwargs: Any) -> AgentRequest:
    return AgentRequest(prompt="review this", cwd=tmp_path, read_only=True, **kwargs)


def test_is_a_backend(tmp_path: Path) -> None:
    assert isinstance(backend(FakeEndpoint(), tmp_path), Backend)


def test_success_is_normalized(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(
        httpx.Response(200, json=completion("Looks fine.\nReady to merge? Yes"))
    )
    result = backend(endpoint, tmp_path, api_key="sk-test", max_tokens=64).run(review(tmp_path))
    assert result.status is RunStatus.OK
    assert result.ok
    assert result.backend == "openai"
    assert result.text == "Looks fine.\nReady to merge? Yes"
    assert result.turns == 1
    assert result.usage.input_tokens == 12
    assert result.usage.output_tokens == 5
    assert result.session_id
    sent = endpoint.requests[0]
    assert str(sent.url) == f"{BASE}/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    body = endpoint.bodies[0]
    assert body["model"] == "test-model"
    assert body["max_tokens"] == 64
    assert body["stream"] is False
    assert body["messages"] == [{"role": "user", "content": "review this"}]


def test_request_model_overrides_the_default(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("ok")))
    backend(endpoint, tmp_path).run(review(tmp_path, model="other"))
    assert endpoint.bodies[0]["model"] == "other"
    assert "authorization" not in endpoint.requests[0].headers


def test_cached_prompt_tokens_are_counted_once(tmp_path: Path) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 60},
    }
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("x", usage=usage)))
    result = backend(endpoint, tmp_path).run(review(tmp_path))
    assert (result.usage.input_tokens, result.usage.cache_read_tokens) == (40, 60)
    assert result.usage.total_tokens == 107


@pytest.mark.parametrize(
    "usage",
    [None, "nonsense", {"prompt_tokens": -3, "completion_tokens": True}, {"prompt_tokens": "9"}],
)
def test_bad_usage_is_zero_not_a_crash(tmp_path: Path, usage: Any) -> None:
    payload = completion("x")
    payload["usage"] = usage
    result = backend(FakeEndpoint(httpx.Response(200, json=payload)), tmp_path).run(
        review(tmp_path)
    )
    assert result.ok
    assert result.usage.total_tokens == 0


def test_http_500_is_an_error_with_the_body(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(500, text="model exploded"))
    result = backend(endpoint, tmp_path).run(review(tmp_path))
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert "HTTP 500" in result.error
    assert "model exploded" in result.error
    assert result.session_id is None


def test_connection_refused_is_missing(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    result = backend(FakeEndpoint(refuse), tmp_path).run(review(tmp_path))
    assert result.status is RunStatus.MISSING
    assert result.error is not None
    assert "unreachable" in result.error


def test_real_refused_port_is_missing(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens on it
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m", state_dir=tmp_path).run(
        review(tmp_path, timeout_s=5)
    )
    assert result.status is RunStatus.MISSING


def test_read_timeout_is_timeout(tmp_path: Path) -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    result = backend(FakeEndpoint(slow), tmp_path).run(review(tmp_path, timeout_s=0.5))
    assert result.status is RunStatus.TIMEOUT


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(200, text="<html>oops</html>"), "not JSON"),
        (httpx.Response(200, json=[1, 2]), "not a JSON object"),
        (httpx.Response(200, json={"choices": []}), "no assistant message"),
        (httpx.Response(200, json={"choices": [{"message": {"content": None}}]}), "no assistant"),
        (httpx.Response(200, json={"error": {"message": "bad model"}}), "bad model"),
    ],
)
def test_a_200_without_a_message_is_an_error(
    tmp_path: Path, response: httpx.Response, message: str
) -> None:
    result = backend(FakeEndpoint(response), tmp_path).run(review(tmp_path))
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert message in result.error


def test_cut_off_answer_warns(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("Findings:\n- a", finish="length")))
    result = backend(endpoint, tmp_path).run(review(tmp_path))
    assert result.ok
    assert any("max_tokens" in w for w in result.warnings)


def test_session_continues_the_conversation(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(
        httpx.Response(200, json=completion("first answer")),
        httpx.Response(200, json=completion("second answer")),
    )
    agent = backend(endpoint, tmp_path)
    first = agent.run(review(tmp_path))
    second = agent.run(
        AgentRequest(
            prompt="try again", cwd=tmp_path, read_only=True, resume_session_id=first.session_id
        )
    )
    assert second.ok
    assert second.session_id == first.session_id
    assert endpoint.bodies[1]["messages"] == [
        {"role": "user", "content": "review this"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "try again"},
    ]
    stored = json.loads(
        (tmp_path / "state/sessions/openai" / f"{first.session_id}.json").read_text()
    )
    assert [m["content"] for m in stored["messages"]][-1] == "second answer"


def test_failed_exchange_is_not_recorded(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(
        httpx.Response(200, json=completion("first")),
        httpx.Response(503, text="busy"),
        httpx.Response(200, json=completion("third")),
    )
    agent = backend(endpoint, tmp_path)
    first = agent.run(review(tmp_path))
    failed = agent.run(review(tmp_path, resume_session_id=first.session_id))
    assert failed.status is RunStatus.ERROR
    assert failed.session_id == first.session_id
    agent.run(review(tmp_path, resume_session_id=first.session_id))
    assert [m["content"] for m in endpoint.bodies[2]["messages"]] == [
        "review this",
        "first",
        "review this",
    ]


@pytest.mark.parametrize("session_id", ["no-such-session", "../../etc/passwd", "x" * 100])
def test_unknown_or_hostile_session_id_is_an_error(tmp_path: Path, session_id: str) -> None:
    endpoint = FakeEndpoint()
    result = backend(endpoint, tmp_path).run(review(tmp_path, resume_session_id=session_id))
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert "cannot resume" in result.error
    assert endpoint.bodies == []


def test_exchange_is_logged_in_the_attempt_dir(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("logged")))
    result = backend(endpoint, tmp_path).run(review(tmp_path, attempt_dir=tmp_path / "attempt"))
    assert result.log_path == tmp_path / "attempt" / "openai-exchange.json"
    record = json.loads(result.log_path.read_text())
    assert record["status_code"] == 200
    assert "logged" in record["response"]


# ------------------------------------------------------------------ response_format


@pytest.mark.parametrize(
    ("response_format", "grammar_server", "field", "check"),
    [
        (
            {"type": "grammar", "grammar": 'root ::= "x"'},
            True,
            "grammar",
            lambda v: v == 'root ::= "x"',
        ),
        ({"type": "verdict"}, True, "grammar", lambda v: "Ready to merge? " in v),
        ({"type": "file_edits"}, True, "grammar", lambda v: "<<<<<<< CONTENT" in v),
        (
            {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "object"}}},
            False,
            "response_format",
            lambda v: v["json_schema"]["name"] == "v",
        ),
        (
            {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            False,
            "response_format",
            lambda v: v["type"] == "json_schema" and v["json_schema"]["schema"]["type"] == "object",
        ),
    ],
)
def test_response_format_reaches_the_body(
    tmp_path: Path,
    response_format: dict[str, Any],
    grammar_server: bool,
    field: str,
    check: Callable[[Any], bool],
) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("x")))
    agent = backend(endpoint, tmp_path, supports_grammar=grammar_server)
    assert agent.run(review(tmp_path, response_format=response_format)).ok
    assert check(endpoint.bodies[0][field])


def test_grammar_without_a_grammar_server_warns(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion("x")))
    result = backend(endpoint, tmp_path).run(review(tmp_path, response_format={"type": "verdict"}))
    assert "grammar" not in endpoint.bodies[0]
    assert any("not enforced" in w for w in result.warnings)


@pytest.mark.parametrize(
    "response_format",
    [
        {"type": "grammar"},
        {"type": "grammar", "grammar": 3},
        {"type": "verdict", "review_id": 'a" ::= x'},
    ],
)
def test_invalid_response_format_is_an_error(
    tmp_path: Path, response_format: dict[str, Any]
) -> None:
    endpoint = FakeEndpoint()
    result = backend(endpoint, tmp_path, supports_grammar=True).run(
        review(tmp_path, response_format=response_format)
    )
    assert result.status is RunStatus.ERROR
    assert endpoint.bodies == []


# ------------------------------------------------------------------ implementer role

EDIT_ANSWER = "Done.\nFILE: src/app.py\n<<<<<<< CONTENT\nprint('hi')\n>>>>>>> END\n"


def implement(tmp_path: Path, endpoint: FakeEndpoint, **kwargs: Any) -> AgentResult:
    return backend(endpoint, tmp_path).run(
        AgentRequest(prompt="do it", cwd=tmp_path / "wt", **kwargs)
    )


def test_implementer_gets_the_protocol_and_files_are_written(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion(EDIT_ANSWER)))
    result = implement(tmp_path, endpoint)
    assert result.ok, result.error
    assert result.files_written == ("src/app.py",)
    assert (tmp_path / "wt/src/app.py").read_text() == "print('hi')\n"
    assert endpoint.bodies[0]["messages"][0] == {
        "role": "system",
        "content": EDIT_PROTOCOL_INSTRUCTIONS,
    }


def test_reviewer_never_writes(tmp_path: Path) -> None:
    endpoint = FakeEndpoint(httpx.Response(200, json=completion(EDIT_ANSWER)))
    result = implement(tmp_path, endpoint, read_only=True)
    assert result.ok
    assert result.files_written == ()
    assert not (tmp_path / "wt").exists()
    assert all(m["role"] != "system" for m in endpoint.bodies[0]["messages"])


def test_escaping_path_fails_the_run_and_writes_nothing(tmp_path: Path) -> None:
    answer = EDIT_ANSWER + "FILE: ../escape.py\n<<<<<<< CONTENT\nx\n>>>>>>> END\n"
    result = implement(tmp_path, FakeEndpoint(httpx.Response(200, json=completion(answer))))
    assert result.status is RunStatus.ERROR
    assert result.files_refused == ("../escape.py",)
    assert result.files_written == ()
    assert not (tmp_path / "escape.py").exists()
    assert not (tmp_path / "wt/src/app.py").exists()
    assert any("../escape.py" in w for w in result.warnings)


def test_truncated_edit_fails_the_run(tmp_path: Path) -> None:
    answer = "FILE: a.py\n<<<<<<< CONTENT\nx = 1\n"
    result = implement(
        tmp_path, FakeEndpoint(httpx.Response(200, json=completion(answer, finish="length")))
    )
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert "nothing was written" in result.error
    assert not (tmp_path / "wt/a.py").exists()


def test_no_blocks_is_ok_with_a_warning(tmp_path: Path) -> None:
    result = implement(tmp_path, FakeEndpoint(httpx.Response(200, json=completion("I refuse."))))
    assert result.ok
    assert result.files_written == ()
    assert any("no FILE blocks" in w for w in result.warnings)


def test_a_repeating_implementer_writes_the_first_block_of_each_file(tmp_path: Path) -> None:
    repeated = EDIT_ANSWER + "FILE: src/app.py\n<<<<<<< CONTENT\nprint('again')\n"
    strict = implement(tmp_path, FakeEndpoint(httpx.Response(200, json=completion(repeated))))
    assert strict.status is RunStatus.ERROR
    assert not (tmp_path / "wt/src/app.py").exists()
    lenient = backend(
        FakeEndpoint(httpx.Response(200, json=completion(repeated))),
        tmp_path,
        repeat_ends_edits=True,
    ).run(AgentRequest(prompt="do it", cwd=tmp_path / "wt"))
    assert lenient.ok, lenient.error
    assert lenient.files_written == ("src/app.py",)
    assert (tmp_path / "wt/src/app.py").read_text() == "print('hi')\n"
    assert any("starts repeating" in w for w in lenient.warnings)
    assert lenient.text == repeated  # the whole answer is kept for the report
