"""A turn made concrete for one request: ids, model name, token counts.

The wire modules encode a `Reply`; they never look at the script. Ids are deterministic (made
from the request's sequence number) so recorded outputs are reproducible.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass

from mergegate.testing.model_server._script import MAX_ECHO_TOKEN_CHARS, ToolCall, Turn

__all__ = [
    "Reply",
    "ReplyError",
    "ResolvedCall",
    "chunks",
    "echo_text",
    "estimate_tokens",
    "make_reply",
]

_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "._-")


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

    @property
    def raw_json(self) -> str:
        """The arguments as the model "wrote" them: a string as scripted (so a key given twice
        reaches the client), an object serialised."""
        return self.arguments_json

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


def echo_text(text: str, echo: Mapping[str, str], prompt: str) -> str:
    """`text` with each placeholder of `echo` replaced by the token after its marker in `prompt`.

    The token is the run of `[A-Za-z0-9._-]` right after the marker's *last* occurrence (a
    prompt template puts its nonce after the material it quotes), cut at
    `MAX_ECHO_TOKEN_CHARS`. Linear in the prompt and the text: one `rfind` per marker, one
    bounded scan, one substitution pass. Raises `ReplyError` naming the first placeholder whose
    marker is missing or is followed by no token.
    """
    if not echo:
        return text
    values = {
        placeholder: _token_after(prompt, placeholder, marker)
        for placeholder, marker in echo.items()
    }
    # One pass over the text, longest placeholder first: a value is never searched again, so
    # one placeholder's value cannot be mistaken for another placeholder.
    pattern = re.compile("|".join(re.escape(p) for p in sorted(values, key=len, reverse=True)))
    return pattern.sub(lambda m: values[m.group(0)], text)


def _token_after(prompt: str, placeholder: str, marker: str) -> str:
    start = prompt.rfind(marker)
    if start < 0:
        raise ReplyError(
            f"echo {placeholder!r}: marker {marker!r} is not in the latest user prompt"
        )
    start += len(marker)
    end = start
    limit = min(len(prompt), start + MAX_ECHO_TOKEN_CHARS)
    while end < limit and prompt[end] in _TOKEN_CHARS:
        end += 1
    if end == start:
        raise ReplyError(
            f"echo {placeholder!r}: no token ([A-Za-z0-9._-]) follows marker {marker!r} "
            "in the latest user prompt"
        )
    return prompt[start:end]


def make_reply(*, seq: int, model: str, turn: Turn, request_chars: int, prompt: str = "") -> Reply:
    """Build the reply to request number `seq` from `turn`.

    `prompt` is the request's latest user prompt, which `turn.echo` copies tokens from
    (`ReplyError` when a marker is missing).
    """
    text = echo_text(turn.text, turn.echo, prompt)
    calls = tuple(
        _resolve(seq, n, call, turn.echo, prompt) for n, call in enumerate(turn.tool_calls)
    )
    output_chars = len(text) + sum(len(c.name) + len(c.arguments_json) for c in calls)
    usage = turn.usage
    input_tokens = usage.input_tokens if usage and usage.input_tokens is not None else None
    output_tokens = usage.output_tokens if usage and usage.output_tokens is not None else None
    return Reply(
        seq=seq,
        model=model,
        text=text,
        calls=calls,
        input_tokens=estimate_tokens(request_chars) if input_tokens is None else input_tokens,
        output_tokens=estimate_tokens(output_chars) if output_tokens is None else output_tokens,
    )


def _resolve(
    seq: int, n: int, call: ToolCall, echo: Mapping[str, str], prompt: str
) -> ResolvedCall:
    call_id = call.id or f"call_mock_{seq:06d}_{n}"
    arguments = call.arguments
    if isinstance(arguments, str):
        used = {p: m for p, m in echo.items() if p in arguments}
        arguments = echo_text(arguments, used, prompt)
    return ResolvedCall(id=call_id, name=call.name, arguments=arguments)


def chunks(text: str, size: int) -> list[str]:
    """Split `text` into deltas of at most `size` characters (none for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]
