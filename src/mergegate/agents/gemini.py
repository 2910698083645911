"""The `gemini` backend: Gemini CLI headless with `-o stream-json`.

Judged from the final `{"type":"result"}` event (`status` success or error); the exit code can
be an HTTP status mod 256 and is ignored when a result arrived. The result has neither text
nor session id: the session id comes from `init`, the text from the last run of assistant
`message` events (delta chunks joined). The echoed user prompt is never searched for signals.
Reviewers get `--approval-mode plan`. Headless runs in an untrusted folder exit 55, so the
workspace is trusted through `GEMINI_CLI_TRUST_WORKSPACE=true`.
"""

from __future__ import annotations

import uuid
from typing import Any

from mergegate.agents._cli import CliBackend, ParsedRun, RunContext, as_int, parse_event
from mergegate.agents.base import AgentRequest, BackendCapabilities, Usage
from mergegate.processes import ProcessOutcome, Stream

__all__ = ["GeminiBackend", "GeminiParser"]

_MAX_WARNINGS = 20


def _usage(stats: object) -> Usage:
    if not isinstance(stats, dict):
        return Usage()
    cached = as_int(stats.get("cached"))
    return Usage(
        input_tokens=max(0, as_int(stats.get("input_tokens")) - cached),
        output_tokens=as_int(stats.get("output_tokens")),
        cache_read_tokens=cached,
    )


class GeminiParser:
    """Reads Gemini CLI stream-json."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.parsed = ParsedRun(session_id=ctx.session_id)
        self.message = 0
        self.open = False
        self.parts: list[str] = []
        self.last_text = ""

    def feed(self, stream: Stream, line: str) -> bool:
        event = parse_event(line) if stream == "stdout" else None
        if event is None:
            return False
        kind = event.get("type")
        if kind == "init" and isinstance(event.get("session_id"), str):
            self.parsed.session_id = event["session_id"]
            self.ctx.on_session(event["session_id"])
        elif kind == "message" and event.get("role") == "assistant":
            self._assistant(event)
        elif kind == "error":
            self._close()
            if len(self.parsed.warnings) < _MAX_WARNINGS:
                self.parsed.warnings.append(
                    f"gemini {event.get('severity', 'error')}: {str(event.get('message'))[:300]}"
                )
        elif kind == "result":
            self._close()
            self._result(event)
            return True
        else:
            self._close()  # user echo, tool_use, tool_result: the assistant message ended
        return False

    def _assistant(self, event: dict[str, Any]) -> None:
        content = event.get("content")
        if not isinstance(content, str):
            return
        if not self.open:
            self.open = True
            self.message += 1
            self.parts = []
        self.parts.append(content)
        self.ctx.detector.feed(content, str(self.message))
        if event.get("delta") is not True:
            self._close()

    def _close(self) -> None:
        if not self.open:
            return
        self.open = False
        self.ctx.detector.end_message(str(self.message))
        self.last_text = "".join(self.parts)

    def _result(self, event: dict[str, Any]) -> None:
        parsed = self.parsed
        parsed.terminal = True
        parsed.ok = event.get("status") == "success"
        parsed.text = self.last_text
        parsed.usage = _usage(event.get("stats"))
        if not parsed.ok:
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            parsed.error = str(message or f"gemini result status {event.get('status')!r}")[:500]

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        del outcome
        self._close()
        if not self.parsed.terminal:
            self.parsed.text = self.last_text
        self.parsed.signals = self.ctx.detector.finish()
        return self.parsed


class GeminiBackend(CliBackend):
    """Gemini CLI (`gemini -p`)."""

    name = "gemini"
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=False, sessions=True
    )
    default_executable = "gemini"

    def __init__(self, *, approval_mode: str = "auto_edit", **options: Any) -> None:
        super().__init__(**options)
        self.approval_mode = approval_mode

    def initial_session(self, request: AgentRequest) -> str | None:
        return request.resume_session_id or str(uuid.uuid4())

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        # `--prompt=TEXT` keeps a prompt that starts with "-" from reading as an option.
        args = [f"--prompt={request.prompt}", "--output-format", "stream-json"]
        model = self.model_for(request)
        if model:
            args += ["--model", model]
        mode = "plan" if request.read_only else self.approval_mode
        args += ["--approval-mode", mode]
        if request.resume_session_id:
            args.append(f"--resume={request.resume_session_id}")
        elif ctx.session_id:
            args.append(f"--session-id={ctx.session_id}")
        return args

    def run_env(self, request: AgentRequest, ctx: RunContext) -> dict[str, str]:
        del request, ctx
        return {"GEMINI_CLI_TRUST_WORKSPACE": "true"}

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> GeminiParser:
        del request
        return GeminiParser(ctx)
