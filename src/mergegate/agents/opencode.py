"""The `opencode` backend: `opencode run --format json`.

Every line carries `sessionID`. Text parts arrive complete; the final text is the text of the
last assistant message. Tokens and cost come per step (`step_finish`) and are summed; a
`step_finish` with `reason:"stop"` is the terminal success (OpenCode may hang after it), an
`error` event the terminal failure (OpenCode has exited 0 on errors). Resume with
`--session`. Reviewers run the read-only `plan` agent.
"""

from __future__ import annotations

from typing import Any

from mergegate.agents._cli import (
    CliBackend,
    ParsedRun,
    RunContext,
    as_int,
    parse_event,
    positional,
)
from mergegate.agents.base import AgentRequest, BackendCapabilities, Usage
from mergegate.processes import ProcessOutcome, Stream

__all__ = ["OpenCodeBackend", "OpenCodeParser"]


class OpenCodeParser:
    """Reads `opencode run --format json` JSONL."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.parsed = ParsedRun(session_id=ctx.session_id)
        self.text_message: str | None = None
        self.texts: list[str] = []
        self.tokens = [0, 0, 0, 0]
        self.cost = 0.0
        self.steps = 0

    def feed(self, stream: Stream, line: str) -> bool:
        event = parse_event(line) if stream == "stdout" else None
        if event is None:
            return False
        session = event.get("sessionID")
        if isinstance(session, str) and session and session != self.parsed.session_id:
            self.parsed.session_id = session
            self.ctx.on_session(session)
        kind = event.get("type")
        part = event.get("part")
        part = part if isinstance(part, dict) else {}
        if kind == "text":
            self._text(part)
        elif kind == "step_finish":
            return self._step(part)
        elif kind == "error":
            self._error(event.get("error"))
            return True
        elif kind == "done":
            self.parsed.terminal = True
            self.parsed.ok = True
            return True
        return False

    def _text(self, part: dict[str, Any]) -> None:
        text = part.get("text")
        if not isinstance(text, str):
            return
        message = str(part.get("messageID", ""))
        if message != self.text_message:
            self.text_message = message
            self.texts = []
        self.texts.append(text)
        key = str(part.get("id", message))
        self.ctx.detector.feed(text, key)
        self.ctx.detector.end_message(key)

    def _step(self, part: dict[str, Any]) -> bool:
        self.steps += 1
        tokens = part.get("tokens")
        if isinstance(tokens, dict):
            cache = tokens.get("cache")
            cache = cache if isinstance(cache, dict) else {}
            for i, value in enumerate(
                (tokens.get("input"), tokens.get("output"), cache.get("read"), cache.get("write"))
            ):
                self.tokens[i] += as_int(value)
        cost = part.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost += float(cost)
        if part.get("reason") == "stop":
            self.parsed.terminal = True
            self.parsed.ok = True
            return True
        return False

    def _error(self, error: object) -> None:
        self.parsed.terminal = True
        self.parsed.ok = False
        name, message = "error", ""
        if isinstance(error, dict):
            name = str(error.get("name", name))
            data = error.get("data")
            if isinstance(data, dict):
                message = str(data.get("message", ""))
        self.parsed.error = f"{name}: {message[:500]}" if message else name

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        del outcome
        parsed = self.parsed
        parsed.text = "\n".join(self.texts)
        parsed.usage = Usage(
            input_tokens=self.tokens[0],
            output_tokens=self.tokens[1],
            cache_read_tokens=self.tokens[2],
            cache_write_tokens=self.tokens[3],
        )
        parsed.cost_usd = self.cost if self.steps else None
        parsed.turns = self.steps or None
        parsed.signals = self.ctx.detector.finish()
        return parsed


class OpenCodeBackend(CliBackend):
    """OpenCode (`opencode run`)."""

    name = "opencode"
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=True, sessions=True
    )
    default_executable = "opencode"

    def __init__(self, *, agent: str | None = None, auto: bool = False, **options: Any) -> None:
        """`auto` approves every permission not explicitly denied (`--auto`)."""
        super().__init__(**options)
        self.agent = agent
        self.auto = auto

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        del ctx
        args = ["run", "--format", "json"]
        model = self.model_for(request)
        if model:
            args += ["--model", model]
        if request.read_only:
            args += ["--agent", "plan"]
        elif self.agent:
            args += ["--agent", self.agent]
        if self.auto and not request.read_only:
            args.append("--auto")
        if request.resume_session_id:
            args += ["--session", request.resume_session_id]
        args.append(positional(request.prompt))
        return args

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> OpenCodeParser:
        del request
        return OpenCodeParser(ctx)
