"""The `codex` backend: `codex exec --json` (OpenAI Codex CLI).

Judged from `turn.completed` (success) or `turn.failed` (failure); an interrupted turn has
neither and is a failure. The final text is the last `agent_message` item. `error` events are
often transient (`Reconnecting...`): they are warnings, but more than `max_reconnects` of them
end the run as `missing` (Codex never gives up on an unreachable endpoint by itself).
`turn.completed.usage` is cumulative over the thread, so a resumed run reports the delta
against the total this backend instance saw for the thread (a warning says when it cannot).
Reviewers run with `--sandbox read-only`. Options go before `resume` (they are inherited).
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
from mergegate.agents.supervisor import ProcessOutcome, Stream

__all__ = ["CodexBackend", "CodexParser", "usage_delta"]

_MAX_WARNINGS = 20


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    cached = as_int(raw.get("cached_input_tokens"))
    return Usage(
        # OpenAI counts cached tokens inside input_tokens; Usage keeps them apart.
        input_tokens=max(0, as_int(raw.get("input_tokens")) - cached),
        output_tokens=as_int(raw.get("output_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=as_int(raw.get("cache_write_input_tokens")),
    )


def usage_delta(current: Usage, previous: Usage) -> Usage:
    """`current - previous`, field by field, never below zero."""
    return Usage(
        input_tokens=max(0, current.input_tokens - previous.input_tokens),
        output_tokens=max(0, current.output_tokens - previous.output_tokens),
        cache_read_tokens=max(0, current.cache_read_tokens - previous.cache_read_tokens),
        cache_write_tokens=max(0, current.cache_write_tokens - previous.cache_write_tokens),
    )


class CodexParser:
    """Reads `codex exec --json` JSONL."""

    def __init__(self, ctx: RunContext, max_reconnects: int) -> None:
        self.ctx = ctx
        self.max_reconnects = max_reconnects
        self.parsed = ParsedRun(session_id=ctx.session_id)
        self.reconnects = 0
        self.last_error: str | None = None

    def feed(self, stream: Stream, line: str) -> bool:
        event = parse_event(line) if stream == "stdout" else None
        if event is None:
            return False
        kind = event.get("type")
        if kind == "thread.started" and isinstance(event.get("thread_id"), str):
            self.parsed.session_id = event["thread_id"]
            self.ctx.on_session(event["thread_id"])
        elif kind == "item.completed" and isinstance(event.get("item"), dict):
            self._item(event["item"])
        elif kind == "error":
            return self._error(str(event.get("message", "")))
        elif kind == "turn.completed":
            self.parsed.terminal = True
            self.parsed.ok = True
            self.parsed.usage = _usage(event.get("usage"))
            return True
        elif kind == "turn.failed":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            self.parsed.terminal = True
            self.parsed.error = str(message or self.last_error or "turn failed")[:500]
            return True
        return False

    def _item(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "agent_message" and isinstance(item.get("text"), str):
            self.parsed.text = item["text"]
            key = str(item.get("id", ""))
            self.ctx.detector.feed(item["text"], key)
            self.ctx.detector.end_message(key)
        elif kind == "error":
            self._warn(f"codex: {str(item.get('message', ''))[:300]}")

    def _error(self, message: str) -> bool:
        if message.startswith("Reconnecting"):
            self.reconnects += 1
            if self.reconnects > self.max_reconnects:
                self.parsed.terminal = True
                self.parsed.unreachable = True
                self.parsed.error = f"endpoint unreachable: {message[:300]}"
                return True
            return False
        self.last_error = message[:500]
        self._warn(f"codex error event: {message[:300]}")
        return False

    def _warn(self, text: str) -> None:
        if len(self.parsed.warnings) < _MAX_WARNINGS:
            self.parsed.warnings.append(text)

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        del outcome
        self.parsed.signals = self.ctx.detector.finish()
        if not self.parsed.terminal and self.last_error:
            self.parsed.error = self.last_error
        return self.parsed


class CodexBackend(CliBackend):
    """OpenAI Codex CLI (`codex exec`)."""

    name = "codex"
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=False, sessions=True
    )
    default_executable = "codex"

    def __init__(
        self, *, sandbox: str = "workspace-write", max_reconnects: int = 5, **options: Any
    ) -> None:
        super().__init__(**options)
        self.sandbox = sandbox
        self.max_reconnects = max_reconnects
        self._thread_totals: dict[str, Usage] = {}

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        del ctx
        args = ["exec", "--json", "--skip-git-repo-check"]
        if request.model:
            args += ["-m", request.model]
        args += ["--sandbox", "read-only" if request.read_only else self.sandbox]
        if request.resume_session_id:
            args += ["resume", request.resume_session_id]
        args.append(positional(request.prompt))
        return args

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> CodexParser:
        del request
        return CodexParser(ctx, self.max_reconnects)

    def finalize(self, request: AgentRequest, parsed: ParsedRun) -> ParsedRun:
        """Turn the thread's cumulative usage into this run's usage."""
        thread = parsed.session_id
        if not parsed.terminal or not parsed.ok or thread is None:
            return parsed
        cumulative = parsed.usage
        previous = self._thread_totals.get(thread)
        if previous is not None:
            parsed.usage = usage_delta(cumulative, previous)
        elif request.resume_session_id:
            parsed.warnings.append(
                "usage is the thread's running total (the previous total is unknown here)"
            )
        self._thread_totals[thread] = cumulative
        return parsed
