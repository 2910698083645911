"""A scripted backend: a test double shipped as public API (like httpx's MockTransport).

It answers each run with the next scripted reply — text, an `AgentResult`, or a function of
the request — so pipelines built on mergegate can be tested without an agent, a model or a
process. It records every request it received. A request with an `answer_schema` gets the
text back as its answer too (`final_message`: a scripted backend has no mechanism).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path

from mergegate.agents.answers import final_message_answer
from mergegate.agents.base import (
    AgentRequest,
    AgentResult,
    BackendCapabilities,
    RunStatus,
)

__all__ = ["ScriptedBackend", "ScriptedReply"]

ScriptedReply = str | AgentResult | Callable[[AgentRequest], "str | AgentResult"]


class ScriptedBackend:
    """Replays `replies` in order; running past the end is an `error` result, never a hang."""

    starts_processes = False
    """Replies are values: no process runs."""
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=False, cost=False, sessions=True
    )

    def __init__(
        self,
        replies: Iterable[ScriptedReply],
        *,
        name: str = "scripted",
        on_run: Callable[[AgentRequest], None] | None = None,
    ) -> None:
        self.name = name
        self._replies = list(replies)
        self._on_run = on_run
        self._sessions = (f"{name}-session-{n}" for n in itertools.count(1))
        self.requests: list[AgentRequest] = []

    def run(self, request: AgentRequest) -> AgentResult:
        index = len(self.requests)
        self.requests.append(request)
        if self._on_run is not None:
            self._on_run(request)
        session = request.resume_session_id or next(self._sessions)
        if index >= len(self._replies):
            return AgentResult(
                backend=self.name,
                status=RunStatus.ERROR,
                session_id=session,
                error=f"script exhausted after {len(self._replies)} replies",
            )
        reply = self._replies[index]
        if callable(reply):
            reply = reply(request)
        if isinstance(reply, AgentResult):
            if reply.answer is None and request.answer_schema is not None:
                return reply.model_copy(update={"answer": final_message_answer(reply.text)})
            return reply
        return AgentResult(
            backend=self.name,
            status=RunStatus.OK,
            text=reply,
            session_id=session,
            exit_code=0,
            log_path=Path(request.attempt_dir) if request.attempt_dir else None,
            answer=final_message_answer(reply) if request.answer_schema is not None else None,
        )
