"""The OpenAI Responses wire format (`POST /v1/responses`, streaming and not); Codex uses it.

Object arguments become `function_call` items; free-form (string) arguments become
`custom_tool_call` items, which is how Codex's grammar-based tools such as `apply_patch` arrive.
"""

from __future__ import annotations

import time
from typing import Any

from mergegate.testing.model_server._reply import Reply, ResolvedCall, chunks
from mergegate.testing.model_server._sse import SseEvent, named_event

__all__ = ["response_body", "response_events"]


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def _message_item(reply: Reply, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status else []
    return {
        "type": "message",
        "id": reply.message_id,
        "status": status or "in_progress",
        "role": "assistant",
        "content": content,
    }


def _call_item(reply: Reply, n: int, call: ResolvedCall, *, done: bool) -> dict[str, Any]:
    status = "completed" if done else "in_progress"
    if isinstance(call.arguments, str):
        return {
            "type": "custom_tool_call",
            "id": f"ctc_mock_{reply.seq:06d}_{n}",
            "call_id": call.id,
            "name": call.name,
            "input": call.arguments if done else "",
            "status": status,
        }
    return {
        "type": "function_call",
        "id": f"fc_mock_{reply.seq:06d}_{n}",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments_json if done else "",
        "status": status,
    }


def _output(reply: Reply) -> list[dict[str, Any]]:
    items = [_message_item(reply, reply.text, "completed")] if reply.text else []
    items.extend(_call_item(reply, n, c, done=True) for n, c in enumerate(reply.calls))
    return items


def _response(reply: Reply, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"resp_mock_{reply.seq:06d}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": reply.model,
        "output": output,
        "usage": _usage(reply) if status == "completed" else None,
        "error": None,
        "incomplete_details": None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def response_body(reply: Reply) -> dict[str, Any]:
    """The non-streaming response."""
    return _response(reply, "completed", _output(reply))


def response_events(reply: Reply, chunk_chars: int) -> list[SseEvent]:
    """The streaming response, each event carrying an increasing `sequence_number`."""
    payloads: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(reply, "in_progress", [])},
        {"type": "response.in_progress", "response": _response(reply, "in_progress", [])},
    ]
    index = 0
    if reply.text:
        payloads.extend(_text_payloads(reply, index, chunk_chars))
        index += 1
    for n, call in enumerate(reply.calls):
        payloads.extend(_call_payloads(reply, index, n, call, chunk_chars))
        index += 1
    payloads.append({"type": "response.completed", "response": response_body(reply)})
    return [named_event({**p, "sequence_number": i}) for i, p in enumerate(payloads)]


def _text_payloads(reply: Reply, index: int, chunk_chars: int) -> list[dict[str, Any]]:
    where = {"item_id": reply.message_id, "output_index": index}
    part = {"type": "output_text", "text": reply.text, "annotations": []}
    return [
        {"type": "response.output_item.added", "output_index": index,
         "item": _message_item(reply, "", "")},
        {"type": "response.content_part.added", **where, "content_index": 0,
         "part": {**part, "text": ""}},
        *(
            {"type": "response.output_text.delta", **where, "content_index": 0, "delta": d}
            for d in chunks(reply.text, chunk_chars)
        ),
        {"type": "response.output_text.done", **where, "content_index": 0, "text": reply.text},
        {"type": "response.content_part.done", **where, "content_index": 0, "part": part},
        {"type": "response.output_item.done", "output_index": index,
         "item": _message_item(reply, reply.text, "completed")},
    ]  # fmt: skip


def _call_payloads(
    reply: Reply, index: int, n: int, call: ResolvedCall, chunk_chars: int
) -> list[dict[str, Any]]:
    opening = _call_item(reply, n, call, done=False)
    where = {"item_id": opening["id"], "output_index": index}
    free_form = isinstance(call.arguments, str)
    kind = "custom_tool_call_input" if free_form else "function_call_arguments"
    final_key = "input" if free_form else "arguments"
    return [
        {"type": "response.output_item.added", "output_index": index, "item": opening},
        *(
            {"type": f"response.{kind}.delta", **where, "delta": d}
            for d in chunks(call.arguments_json, chunk_chars)
        ),
        {"type": f"response.{kind}.done", **where, final_key: call.arguments_json},
        {"type": "response.output_item.done", "output_index": index,
         "item": _call_item(reply, n, call, done=True)},
    ]  # fmt: skip
