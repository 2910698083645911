"""A turn made concrete for one request: ids, model name, token counts.

The wire modules encode a `Reply`; they never look at the script. Ids are deterministic (made
from the request's sequence number) so recorded outputs are reproducible.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mergegate.agents.model_server._script import ToolCall, Turn

__all__ = ["Reply", "ReplyError", "ResolvedCall", "chunks", "estimate_tokens", "make_reply"]


class ReplyError(ValueError):
    """A scripted turn cannot be expressed in the requested API (answered with HTTP 500)."""


@dataclass(frozen=True)
class ResolvedCall:
    """A tool call with its id fixed."""

    id: str
    name: str
    arguments: dict[str, object] | str

    @property
    def arguments_json(self) -> str:
        """The arguments as the JSON string the OpenAI APIs carry (a free-form string as is)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    def arguments_object(self) -> dict[str, object]:
        """The arguments as an object, for APIs that only take objects (Anthropic)."""
        if isinstance(self.arguments, dict):
            return self.arguments
        try:
            value = json.loads(self.arguments)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise ReplyError(
                f"tool call {self.name!r} has free-form arguments; this API needs a JSON object"
            )
        return value


@dataclass(frozen=True)
class Reply:
    """What to answer, independent of the wire format."""

    seq: int
    model: str
    text: str
    calls: tuple[ResolvedCall, ...]
    input_tokens: int
    output_tokens: int

    @property
    def message_id(self) -> str:
        return f"msg_mock_{self.seq:06d}"


def estimate_tokens(chars: int) -> int:
    """The server's deterministic token count: one token per 4 characters, at least 1."""
    return max(1, (chars + 3) // 4)


def make_reply(*, seq: int, model: str, turn: Turn, request_chars: int) -> Reply:
    """Build the reply to request number `seq` from `turn`."""
    calls = tuple(_resolve(seq, n, call) for n, call in enumerate(turn.tool_calls))
    output_chars = len(turn.text) + sum(len(c.name) + len(c.arguments_json) for c in calls)
    usage = turn.usage
    input_tokens = usage.input_tokens if usage and usage.input_tokens is not None else None
    output_tokens = usage.output_tokens if usage and usage.output_tokens is not None else None
    return Reply(
        seq=seq,
        model=model,
        text=turn.text,
        calls=calls,
        input_tokens=estimate_tokens(request_chars) if input_tokens is None else input_tokens,
        output_tokens=estimate_tokens(output_chars) if output_tokens is None else output_tokens,
    )


def _resolve(seq: int, n: int, call: ToolCall) -> ResolvedCall:
    call_id = call.id or f"call_mock_{seq:06d}_{n}"
    return ResolvedCall(id=call_id, name=call.name, arguments=call.arguments)


def chunks(text: str, size: int) -> list[str]:
    """Split `text` into deltas of at most `size` characters (none for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]
