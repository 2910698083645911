"""What a model server needs to know about a request, read the same way for the three APIs.

A request's history is reduced to a list of entries (a user prompt, a tool result, or an
assistant turn). Turn selection only needs the latest prompt and the number of assistant turns
after it; usage needs nothing but the body size. Request bodies are untrusted JSON: every
accessor tolerates missing or mistyped fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Api", "RequestView", "view_request"]


class Api(StrEnum):
    """The endpoints a model server answers."""

    ANTHROPIC_MESSAGES = "anthropic_messages"
    ANTHROPIC_COUNT_TOKENS = "anthropic_count_tokens"
    CHAT_COMPLETIONS = "chat_completions"
    RESPONSES = "responses"
    MODELS = "models"
    HEALTH = "health"
    UNKNOWN = "unknown"


class _Kind(StrEnum):
    PROMPT = "prompt"
    TOOL_RESULT = "tool_result"
    ASSISTANT = "assistant"


@dataclass(frozen=True)
class _Entry:
    kind: _Kind
    text: str = ""


@dataclass(frozen=True)
class RequestView:
    """The parts of a model request that the server acts on."""

    model: str
    stream: bool
    prompt: str
    """Text of the latest user prompt (consecutive user messages joined; tool results are not
    prompts)."""
    turns_since_prompt: int
    """Assistant turns (runs of assistant messages or tool calls) after that prompt."""
    tool_names: tuple[str, ...]
    """Names of the tools the client offered, in order."""


def view_request(api: Api, body: Any) -> RequestView:
    """Reduce a request body of `api` to a `RequestView` (empty fields where absent)."""
    data = body if isinstance(body, dict) else {}
    if api is Api.RESPONSES:
        entries = list(_responses_entries(data.get("input")))
    elif api is Api.CHAT_COMPLETIONS:
        entries = list(_chat_entries(data.get("messages")))
    else:
        entries = list(_anthropic_entries(data.get("messages")))
    prompt, turns = _latest_prompt(entries)
    model = data.get("model")
    return RequestView(
        model=model if isinstance(model, str) and model else "",
        stream=data.get("stream") is True,
        prompt=prompt,
        turns_since_prompt=turns,
        tool_names=tuple(_tool_names(data.get("tools"))),
    )


def _latest_prompt(entries: list[_Entry]) -> tuple[str, int]:
    last = max((i for i, e in enumerate(entries) if e.kind is _Kind.PROMPT), default=-1)
    if last < 0:
        return "", _assistant_runs(entries)
    first = last
    while first > 0 and entries[first - 1].kind is _Kind.PROMPT:
        first -= 1
    prompt = "\n".join(e.text for e in entries[first : last + 1])
    return prompt, _assistant_runs(entries[last + 1 :])


def _assistant_runs(entries: list[_Entry]) -> int:
    runs = 0
    previous: _Kind | None = None
    for entry in entries:
        if entry.kind is _Kind.ASSISTANT and previous is not _Kind.ASSISTANT:
            runs += 1
        previous = entry.kind
    return runs


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _text_of(content: Any, part_types: Iterable[str]) -> str:
    """Join the text of `content`: a string, or a list of parts of the given types."""
    if isinstance(content, str):
        return content
    wanted = set(part_types)
    texts = [p.get("text") for p in _dicts(content) if p.get("type") in wanted]
    return "\n".join(t for t in texts if isinstance(t, str))


def _anthropic_entries(messages: Any) -> Iterator[_Entry]:
    for message in _dicts(messages):
        content = message.get("content")
        if message.get("role") == "assistant":
            yield _Entry(_Kind.ASSISTANT)
        elif any(block.get("type") == "tool_result" for block in _dicts(content)):
            yield _Entry(_Kind.TOOL_RESULT)
            # A resumed session's new prompt rides in the message that carries the last
            # call's result (Claude Code after a run that ended with a tool call, such as
            # `StructuredOutput`); reminders the client adds are not prompts.
            said = [
                b["text"]
                for b in _dicts(content)
                if b.get("type") == "text"
                and isinstance(b.get("text"), str)
                and not b["text"].lstrip().startswith("<system-reminder>")
            ]
            if said:
                yield _Entry(_Kind.PROMPT, "\n".join(said))
        elif message.get("role") == "user":
            yield _Entry(_Kind.PROMPT, _text_of(content, ("text",)))


def _chat_entries(messages: Any) -> Iterator[_Entry]:
    for message in _dicts(messages):
        role = message.get("role")
        if role == "assistant":
            yield _Entry(_Kind.ASSISTANT)
        elif role in ("tool", "function"):
            yield _Entry(_Kind.TOOL_RESULT)
        elif role == "user":
            yield _Entry(_Kind.PROMPT, _text_of(message.get("content"), ("text",)))


_RESPONSES_ASSISTANT_ITEMS = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"}
)
_RESPONSES_TOOL_OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)


def _responses_entries(items: Any) -> Iterator[_Entry]:
    if isinstance(items, str):
        yield _Entry(_Kind.PROMPT, items)
        return
    for item in _dicts(items):
        kind = item.get("type", "message")
        role = item.get("role")
        if kind in _RESPONSES_ASSISTANT_ITEMS or (kind == "message" and role == "assistant"):
            yield _Entry(_Kind.ASSISTANT)
        elif kind in _RESPONSES_TOOL_OUTPUTS:
            yield _Entry(_Kind.TOOL_RESULT)
        elif kind == "message" and role == "user":
            yield _Entry(_Kind.PROMPT, _text_of(item.get("content"), ("input_text", "text")))


def _tool_names(tools: Any) -> Iterator[str]:
    for tool in _dicts(tools):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        if isinstance(name, str):
            yield name
        elif isinstance(tool.get("type"), str):
            yield tool["type"]  # built-in tools (web_search, local_shell, ...) have no name
