"""The Anthropic Messages API wire format (`POST /v1/messages`, streaming and not)."""

from __future__ import annotations

from typing import Any

from mergegate.testing.model_server._reply import Reply, chunks
from mergegate.testing.model_server._sse import SseEvent, named_event

__all__ = ["count_tokens_body", "error_body", "message_body", "message_events", "models_body"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _usage(reply: Reply, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.calls else "end_turn"


def _content(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments_object()}
        for c in reply.calls
    )
    return blocks


def _raw_inputs(reply: Reply) -> list[str]:
    """Each tool call's input as streamed: scripted string arguments verbatim (a key given twice
    stays twice, as a model could write it), objects serialised."""
    return [c.raw_json for c in reply.calls]


def _message(reply: Reply, content: list[dict[str, Any]], output_tokens: int) -> dict[str, Any]:
    return {
        "id": reply.message_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": _stop_reason(reply) if content else None,
        "stop_sequence": None,
        "usage": _usage(reply, output_tokens),
    }


def message_body(reply: Reply) -> dict[str, Any]:
    """The non-streaming response."""
    return _message(reply, _content(reply), reply.output_tokens)


def message_events(reply: Reply, chunk_chars: int) -> list[SseEvent]:
    """The streaming response: message_start, one block per text/tool call, message_stop."""
    events = [named_event({"type": "message_start", "message": _message(reply, [], 1)})]
    events.append(named_event({"type": "ping"}))
    raw = iter(_raw_inputs(reply))
    for index, block in enumerate(_content(reply)):
        arguments = next(raw) if block["type"] == "tool_use" else ""
        events.extend(_block_events(index, block, arguments, chunk_chars))
    events.append(
        named_event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                "usage": {"output_tokens": reply.output_tokens},
            }
        )
    )
    events.append(named_event({"type": "message_stop"}))
    return events


def _block_events(
    index: int, block: dict[str, Any], arguments: str, chunk_chars: int
) -> list[SseEvent]:
    if block["type"] == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        parts = chunks(block["text"], chunk_chars)
        deltas = [{"type": "text_delta", "text": part} for part in parts]
    else:
        start = {**block, "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": part}
            for part in chunks(arguments, chunk_chars)
        ]
    return [
        named_event({"type": "content_block_start", "index": index, "content_block": start}),
        *(
            named_event({"type": "content_block_delta", "index": index, "delta": delta})
            for delta in deltas
        ),
        named_event({"type": "content_block_stop", "index": index}),
    ]


def count_tokens_body(input_tokens: int) -> dict[str, Any]:
    """`POST /v1/messages/count_tokens`."""
    return {"input_tokens": input_tokens}


def error_body(status: int, message: str) -> dict[str, Any]:
    """An error in the Anthropic shape."""
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def models_body(model: str) -> dict[str, Any]:
    """`GET /v1/models` in the Anthropic shape."""
    entry = {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2025-01-01T00:00:00Z",
    }
    return {"data": [entry], "has_more": False, "first_id": model, "last_id": model}
