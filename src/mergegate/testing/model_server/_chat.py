"""The OpenAI Chat Completions wire format (`POST /v1/chat/completions`, streaming and not)."""

from __future__ import annotations

import time
from typing import Any

from mergegate.testing.model_server._reply import Reply, chunks
from mergegate.testing.model_server._sse import SseEvent, data_event

__all__ = ["completion_body", "completion_events", "error_body", "models_body"]


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def _finish_reason(reply: Reply) -> str:
    return "tool_calls" if reply.calls else "stop"


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments_json},
        }
        for c in reply.calls
    ]


def _envelope(reply: Reply, kind: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-mock-{reply.seq:06d}",
        "object": kind,
        "created": int(time.time()),
        "model": reply.model,
    }


def completion_body(reply: Reply) -> dict[str, Any]:
    """The non-streaming response."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = _tool_calls(reply)
    choice = {"index": 0, "message": message, "finish_reason": _finish_reason(reply)}
    return {
        **_envelope(reply, "chat.completion"),
        "choices": [{**choice, "logprobs": None}],
        "usage": _usage(reply),
    }


def completion_events(reply: Reply, chunk_chars: int, *, include_usage: bool) -> list[SseEvent]:
    """The streaming response: role, text deltas, tool-call deltas, finish, [usage], [DONE].

    The usage chunk (empty `choices`) is sent only when the request asked for it with
    `stream_options.include_usage`, as OpenAI does.
    """
    head = _envelope(reply, "chat.completion.chunk")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> SseEvent:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return data_event({**head, "choices": [choice]})

    events = [chunk({"role": "assistant", "content": ""})]
    events.extend(chunk({"content": part}) for part in chunks(reply.text, chunk_chars))
    for index, call in enumerate(_tool_calls(reply)):
        opening = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
        events.append(chunk({"tool_calls": [{"index": index, **opening}]}))
        events.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in chunks(call["function"]["arguments"], chunk_chars)
        )
    events.append(chunk({}, _finish_reason(reply)))
    if include_usage:
        events.append(data_event({**head, "choices": [], "usage": _usage(reply)}))
    events.append(data_event("[DONE]"))
    return events


_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def error_body(status: int, message: str) -> dict[str, Any]:
    """An error in the OpenAI shape (shared by Chat Completions and Responses)."""
    kind, code = _ERROR_TYPES.get(status, ("server_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def models_body(model: str) -> dict[str, Any]:
    """`GET /v1/models` in the OpenAI shape."""
    entry = {"id": model, "object": "model", "created": 0, "owned_by": "mergegate"}
    return {"object": "list", "data": [entry]}
