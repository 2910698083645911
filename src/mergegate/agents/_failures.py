"""Why an agent run failed, when the reason changes what a caller should do next.

* `transport` — the agent could not be reached or gave out before answering: the endpoint is
  unreachable, an HTTP 5xx or 429 / rate limit / "overloaded", or the run died before writing
  any output. Worth a retry after a backoff: the same request may go through.
* `token_limit` — the request did not fit the model's context (Claude Code's "Prompt is too
  long", an HTTP 400 about the context length, the local model's full context window). The
  same request will fail again; a smaller one may not.

Anything else (an error the agent reported after working, a timeout, a stall, a program that
is not installed) is None: the caller's usual failure path. Only the backend's own error text
and status are read (bounded, linear-time patterns), never the agent's answer, and the
classification only chooses between retrying and failing: it can never approve anything.
"""

from __future__ import annotations

import re
from typing import Literal

from mergegate.agents.base import AgentResult, RunStatus

__all__ = ["FailureKind", "failure_kind"]

FailureKind = Literal["transport", "token_limit"]

_ERROR_CHARS = 4000
_TOKEN_LIMIT = re.compile(
    r"context[ _-]?(?:window|length)|maximum context|prompt is too long|too many tokens"
    r"|token limit|input is too long|exceeds the (?:model's )?(?:context|maximum)",
    re.IGNORECASE,
)
_TRANSPORT = re.compile(
    r"\bHTTP (?:429|5\d\d)\b|rate[ _-]?limit|overloaded|service unavailable|bad gateway"
    r"|gateway timeout|connection (?:reset|refused|error|aborted)|endpoint unreachable",
    re.IGNORECASE,
)


def failure_kind(result: AgentResult) -> FailureKind | None:
    """The kind of a failed run that asks for a different next step, or None (see above)."""
    if result.ok or result.status not in (RunStatus.ERROR, RunStatus.CRASHED, RunStatus.MISSING):
        return None
    error = (result.error or "")[:_ERROR_CHARS]
    if _TOKEN_LIMIT.search(error):
        return "token_limit"
    if result.status is RunStatus.MISSING or _TRANSPORT.search(error):
        return "transport"
    if result.status is RunStatus.CRASHED and not result.text.strip():
        return "transport"  # the process died before giving any output
    return None
