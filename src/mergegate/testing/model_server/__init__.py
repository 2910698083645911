"""A scripted model server (`mergegate model-server`): test pipelines without paying for tokens.

It speaks the Anthropic Messages API, OpenAI Chat Completions and OpenAI Responses on a loopback
port, streaming and not, and replays a `Script` of turns (assistant text and tool calls, so a
real agent CLI really edits files), with injectable latency and faults, recording every request
— with the structured output it asked for (each wire's field, checked as the API checks it).
See docs/model-server.md.
"""

from __future__ import annotations

from mergegate.testing.model_server._conversation import Api
from mergegate.testing.model_server._log import RecordedRequest
from mergegate.testing.model_server._reply import estimate_tokens
from mergegate.testing.model_server._script import (
    Fault,
    FaultKind,
    Script,
    ToolCall,
    Turn,
    TurnUsage,
    load_script,
)
from mergegate.testing.model_server._server import ModelServer
from mergegate.testing.model_server._structured import (
    STRUCTURED_OUTPUT_TOOL,
    StructuredField,
    StructuredOutput,
)

__all__ = [
    "STRUCTURED_OUTPUT_TOOL",
    "Api",
    "Fault",
    "FaultKind",
    "ModelServer",
    "RecordedRequest",
    "Script",
    "StructuredField",
    "StructuredOutput",
    "ToolCall",
    "Turn",
    "TurnUsage",
    "estimate_tokens",
    "load_script",
]
