"""The three wire formats, streaming and not, driven over HTTP with httpx."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.testing.model_server import Script, ToolCall, Turn, TurnUsage, estimate_tokens
from mergegate.testing.model_server._anthropic import message_events
from mergegate.testing.model_server._reply import make_reply
from mergegate.testing.model_server._responses import response_events

WRITE = ToolCall(name="Write", arguments={"file_path": "/w/a.txt", "content": "line\n" * 5})
TEXT = "The quick brown fox jumps over the lazy dog; 0123456789."

ANTHROPIC_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hello"}],
    "tools": [{"name": "Write", "input_schema": {"type": "object"}}],
}
CHAT_BODY: dict[str, Any] = {
    "model": "gpt-x",
    "messages": [{"role": "user", "content": "hello"}],
}
RESPONSES_BODY: dict[str, Any] = {"model": "codex-x", "input": "hello"}


def _body_tokens(body: dict[str, Any]) -> int:
    """What the server must report: the JSON body it received, in characters / 4."""
    return estimate_tokens(len(json.dumps(body).encode()))


def _post(client: httpx.Client, url: str, body: dict[str, Any]) -> httpx.Response:
    """POST exactly `json.dumps(body)`, so the expected token count is known."""
    return client.post(url, content=json.dumps(body), headers={"content-type": "application/json"})


# -- Anthropic Messages ------------------------------------------------------------------------


def test_anthropic_text_non_streaming(serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text=TEXT)]))
    response = _post(client, f"{server.url}/v1/messages", ANTHROPIC_BODY)
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "message"
    assert body["model"] == "claude-sonnet-4-5"
    assert body["content"] == [{"type": "text", "text": TEXT}]
    assert body["stop_reason"] == "end_turn"
    assert body["usage"]["input_tokens"] == _body_tokens(ANTHROPIC_BODY)
    assert body["usage"]["output_tokens"] == estimate_tokens(len(TEXT))


def test_anthropic_streaming_text_and_tool_use(serve: Any, client: httpx.Client, sse: Any) -> None:
    server = serve(Script(turns=[Turn(text=TEXT, tool_calls=[WRITE])], chunk_chars=7))
    body = {**ANTHROPIC_BODY, "stream": True}
    response = _post(client, f"{server.url}/v1/messages?beta=true", body)
    assert response.headers["content-type"] == "text/event-stream"
    events = sse(response.text)
    types = [e["type"] for e in events]
    assert types[0] == "message_start"
    assert types[-2:] == ["message_delta", "message_stop"]
    assert types.count("content_block_start") == 2 == types.count("content_block_stop")
    text = "".join(
        e["delta"]["text"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0
    )
    partial = "".join(
        e["delta"]["partial_json"]
        for e in events
        if e["type"] == "content_block_delta" and e["index"] == 1
    )
    assert text == TEXT
    assert json.loads(partial) == WRITE.arguments
    tool_start = next(e for e in events if e["type"] == "content_block_start" and e["index"] == 1)
    assert tool_start["content_block"]["name"] == "Write"
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert events[0]["message"]["usage"]["input_tokens"] == _body_tokens(body)
    assert server.requests[0].query == "beta=true"


def test_anthropic_count_tokens(serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text="unused")]))
    response = _post(client, f"{server.url}/v1/messages/count_tokens", ANTHROPIC_BODY)
    assert response.json() == {"input_tokens": _body_tokens(ANTHROPIC_BODY)}
    # Counting tokens is not a model turn: the script has not moved.
    assert server.requests[0].turn is None


def test_anthropic_rejects_free_form_tool_input(serve: Any, client: httpx.Client) -> None:
    patch = ToolCall(name="apply_patch", arguments="*** Begin Patch\n*** End Patch\n")
    server = serve(Script(turns=[Turn(tool_calls=[patch])]))
    response = _post(client, f"{server.url}/v1/messages", ANTHROPIC_BODY)
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "api_error"
    assert "free-form" in response.json()["error"]["message"]


def test_scripted_usage_overrides_the_estimate(serve: Any, client: httpx.Client) -> None:
    turn = Turn(text="x", usage=TurnUsage(input_tokens=1200, output_tokens=7))
    server = serve(Script(turns=[turn]))
    usage = _post(client, f"{server.url}/v1/messages", ANTHROPIC_BODY).json()["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (1200, 7)


# -- OpenAI Chat Completions --------------------------------------------------------------------


def test_chat_non_streaming_with_tool_calls(serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text="", tool_calls=[WRITE])]))
    body = _post(client, f"{server.url}/v1/chat/completions", CHAT_BODY).json()
    choice = body["choices"][0]
    assert body["object"] == "chat.completion"
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    call = choice["message"]["tool_calls"][0]
    assert call["function"]["name"] == "Write"
    assert json.loads(call["function"]["arguments"]) == WRITE.arguments
    assert body["usage"]["prompt_tokens"] == _body_tokens(CHAT_BODY)
    assert body["usage"]["total_tokens"] == (
        body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
    )


@pytest.mark.parametrize("include_usage", [True, False])
def test_chat_streaming(serve: Any, client: httpx.Client, sse: Any, include_usage: bool) -> None:
    server = serve(Script(turns=[Turn(text=TEXT, tool_calls=[WRITE])], chunk_chars=5))
    body = {**CHAT_BODY, "stream": True, "stream_options": {"include_usage": include_usage}}
    # The server also answers without the /v1 prefix (a base_url given without it).
    response = _post(client, f"{server.url}/chat/completions", body)
    assert response.text.rstrip().endswith("data: [DONE]")
    chunks = sse(response.text)
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == TEXT
    arguments = "".join(
        call["function"].get("arguments", "") for d in deltas for call in d.get("tool_calls", [])
    )
    assert json.loads(arguments) == WRITE.arguments
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "tool_calls"
    usage_chunks = [c for c in chunks if not c["choices"]]
    assert len(usage_chunks) == (1 if include_usage else 0)


# -- OpenAI Responses ---------------------------------------------------------------------------


def test_responses_non_streaming(serve: Any, client: httpx.Client) -> None:
    patch = ToolCall(name="apply_patch", arguments="*** Begin Patch\n*** End Patch\n", id="c9")
    server = serve(Script(turns=[Turn(text=TEXT, tool_calls=[WRITE, patch])]))
    body = _post(client, f"{server.url}/v1/responses", RESPONSES_BODY).json()
    assert body["object"] == "response"
    assert body["status"] == "completed"
    message, function, custom = body["output"]
    assert message["content"][0]["text"] == TEXT
    assert (function["type"], function["name"]) == ("function_call", "Write")
    assert json.loads(function["arguments"]) == WRITE.arguments
    assert (custom["type"], custom["call_id"], custom["input"]) == (
        "custom_tool_call",
        "c9",
        patch.arguments,
    )
    assert body["usage"]["input_tokens"] == _body_tokens(RESPONSES_BODY)


def test_responses_streaming(serve: Any, client: httpx.Client, sse: Any) -> None:
    server = serve(Script(turns=[Turn(text=TEXT, tool_calls=[WRITE])], chunk_chars=9))
    response = _post(client, f"{server.url}/v1/responses", {**RESPONSES_BODY, "stream": True})
    events = sse(response.text)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    arguments = "".join(
        e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"
    )
    assert text == TEXT
    assert json.loads(arguments) == WRITE.arguments
    done_items = [e["item"]["type"] for e in events if e["type"] == "response.output_item.done"]
    assert done_items == ["message", "function_call"]
    assert events[-1]["response"]["usage"]["output_tokens"] > 0


# -- other routes -------------------------------------------------------------------------------


def test_models_health_and_unknown_routes(serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text="x")], model="local-mock"))
    assert client.get(f"{server.url}/health").json() == {"status": "ok"}
    openai = client.get(f"{server.openai_base_url}/models").json()
    assert [m["id"] for m in openai["data"]] == ["local-mock"]
    anthropic = client.get(
        f"{server.url}/v1/models", headers={"anthropic-version": "2023-06-01"}
    ).json()
    assert anthropic["data"][0]["type"] == "model"
    missing = _post(client, f"{server.url}/v1/embeddings", {})
    assert missing.status_code == 404
    assert "no route" in missing.json()["error"]["message"]


def test_non_json_body_is_a_400_and_recorded(serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text="x")]))
    response = client.post(f"{server.url}/v1/messages", content=b"{oops")
    assert response.status_code == 400
    (record,) = server.requests
    assert record.status == 400


# -- properties of the encoders ---------------------------------------------------------------


@given(text=st.text(min_size=1, max_size=300), size=st.integers(min_value=1, max_value=50))
def test_stream_deltas_always_reassemble_the_text(text: str, size: int) -> None:
    reply = make_reply(seq=1, model="m", turn=Turn(text=text), request_chars=10)
    anthropic = [json.loads(e.data) for e in message_events(reply, size)]
    assert (
        "".join(e["delta"]["text"] for e in anthropic if e["type"] == "content_block_delta") == text
    )
    responses = [json.loads(e.data) for e in response_events(reply, size)]
    assert (
        "".join(e["delta"] for e in responses if e["type"] == "response.output_text.delta") == text
    )
