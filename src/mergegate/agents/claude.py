"""The `claude` backend: Claude Code in print mode with `--output-format stream-json`.

Judged from the final `{"type":"result"}` event: `is_error` first (an API failure is
`subtype:"success"` with `is_error:true`), then `subtype`. The session id is chosen up front
(`--session-id`) and replaced by the one the events carry; a retry resumes it with `--resume`
in the same working directory. Reviewers get `--tools Read,Grep,Glob` and
`--permission-mode dontAsk`; other runs in mergegate's sandbox also turn Claude Code's own
sandbox on for the commands it runs (`CLI_SANDBOX_SETTINGS`: in addition to mergegate's, never
instead; it creates empty `.git/config.worktree` and `.git/objects/info/alternates` files as
its mount points when they are missing). In mergegate's sandbox its config
directory is a private one in the sandbox's HOME, holding the credentials file (and, from an
explicit `config_home`, the settings file) of the real one, read-only. `total_cost_usd` is
Claude Code's client-side estimate from list prices, so `cost_usd` is an estimate. See
docs/agents.md and research/agent-clis.md §3.

A request with an `answer_schema` adds `--json-schema` (Claude Code
offers a `StructuredOutput` tool, validates its input and ends the run) and
`--include-partial-messages`: the answer is read from the tool input's raw streamed JSON, never
from Claude Code's re-serialised `structured_output` (which has already dropped a key given
twice), together with any text the model wrote beside the call in the same message.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mergegate.agents._cli import (
    CliBackend,
    ParsedRun,
    RunContext,
    as_int,
    parse_event,
    positional,
)
from mergegate.agents.base import (
    AgentRequest,
    AnswerMechanism,
    BackendCapabilities,
    StructuredAnswer,
    Usage,
)
from mergegate.agents.sandbox import config_file_binds
from mergegate.processes import Bind, ProcessOutcome, Sandbox, Stream

__all__ = [
    "CLI_SANDBOX_SETTINGS",
    "READ_ONLY_TOOLS",
    "STRUCTURED_OUTPUT_TOOL",
    "ClaudeBackend",
    "ClaudeParser",
]

READ_ONLY_TOOLS = "Read,Grep,Glob"
STRUCTURED_OUTPUT_TOOL = "StructuredOutput"
"""The tool Claude Code offers for `--json-schema`; its accepted input is the answer."""
_MAX_ANSWER_CHARS = 2_000_000
CLI_SANDBOX_SETTINGS: dict[str, Any] = {
    "sandbox": {"enabled": True, "allowUnsandboxedCommands": False}
}
"""`--settings` of a writable run in mergegate's sandbox: Claude Code runs its Bash commands in
its own sandbox where it can make one (it needs bubblewrap and socat, and a user namespace: it
says on stderr when it cannot), and the model may not ask to run a command outside it."""
_CREDENTIALS = ".credentials.json"
_SETTINGS = "settings.json"


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts)


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=as_int(raw.get("input_tokens")),
        output_tokens=as_int(raw.get("output_tokens")),
        cache_read_tokens=as_int(raw.get("cache_read_input_tokens")),
        cache_write_tokens=as_int(raw.get("cache_creation_input_tokens")),
    )


class ClaudeParser:
    """Reads Claude Code's stream-json (also the one-line `json` and `json --verbose` arrays)."""

    def __init__(self, ctx: RunContext, *, structured: bool = False) -> None:
        self.ctx = ctx
        self.parsed = ParsedRun(session_id=ctx.session_id)
        self.answer = _AnswerStream() if structured else None
        self.last_text = ""
        self.delta_messages: set[str] = set()
        self.retries = 0
        self.api_errors: list[str] = []
        """Synthetic API-error messages: a warning when the run recovered, else the error."""

    def feed(self, stream: Stream, line: str) -> bool:
        if stream != "stdout":
            return False
        text = line.strip()
        if text.startswith("["):  # --output-format json --verbose prints one array
            try:
                events = json.loads(text)
            except ValueError:
                return False
            items = [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []
            return any([self._event(e) for e in items])
        event = parse_event(text)
        return event is not None and self._event(event)

    def _event(self, event: dict[str, Any]) -> bool:
        session = event.get("session_id")
        if isinstance(session, str) and session and session != self.parsed.session_id:
            self.parsed.session_id = session
            self.ctx.on_session(session)
        kind = event.get("type")
        if self.answer is not None and event.get("parent_tool_use_id") is None:
            self.answer.feed(event)
        if kind == "assistant":
            self._assistant(event)
        elif kind == "stream_event":
            self._delta(event)
        elif kind == "system" and event.get("subtype") == "api_retry":
            self.retries += 1
        elif kind == "result":
            self._result(event)
            return True
        return False

    def _assistant(self, event: dict[str, Any]) -> None:
        message = event.get("message")
        if event.get("parent_tool_use_id") is not None or not isinstance(message, dict):
            return  # a sub-agent's message is not the agent's own answer
        text = _text_of(message)
        key = str(message.get("id") or "")
        if event.get("is_api_error_message"):
            self.api_errors.append(text[:200])
            return
        if text:
            self.last_text = text
        if key not in self.delta_messages:
            self.ctx.detector.feed(text, key)
        self.ctx.detector.end_message(key)

    def _delta(self, event: dict[str, Any]) -> None:
        inner = event.get("event")
        if event.get("parent_tool_use_id") is not None or not isinstance(inner, dict):
            return
        key = str(event.get("api_message_id") or "")
        if inner.get("type") == "content_block_start" and key in self.delta_messages:
            self.ctx.detector.feed("\n", key)  # blocks are separate lines of the message
        delta = inner.get("delta")
        if (
            inner.get("type") == "content_block_delta"
            and isinstance(delta, dict)
            and delta.get("type") == "text_delta"
            and isinstance(delta.get("text"), str)
        ):
            self.delta_messages.add(key)
            self.ctx.detector.feed(delta["text"], key)

    def _result(self, event: dict[str, Any]) -> None:
        parsed = self.parsed
        parsed.terminal = True
        is_error = event.get("is_error") is not False
        subtype = event.get("subtype")
        parsed.ok = not is_error and subtype == "success"
        result = event.get("result")
        parsed.text = result if isinstance(result, str) else ""
        if not parsed.ok:
            parsed.error = self._error_text(event, subtype)
        elif not parsed.text.strip() and self.last_text:
            parsed.text = self.last_text
            parsed.warnings.append("the result event had no text; used the last assistant message")
        if not self.last_text and not self.delta_messages and parsed.text:
            self.ctx.detector.feed(parsed.text, "result")  # one-line json output: no messages
        parsed.usage = _usage(event.get("usage"))
        cost = event.get("total_cost_usd")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            parsed.cost_usd = float(cost)
        turns = event.get("num_turns")
        parsed.turns = turns if isinstance(turns, int) and not isinstance(turns, bool) else None
        self._result_warnings(event)

    def _error_text(self, event: dict[str, Any], subtype: object) -> str:
        result = event.get("result")
        errors = event.get("errors")
        detail = result if isinstance(result, str) and result else ""
        if not detail and isinstance(errors, list):
            detail = "; ".join(str(e) for e in errors[:5])
        reason = event.get("terminal_reason") or subtype
        return f"{reason}: {detail[:500]}" if detail else f"claude reported {reason}"

    def _result_warnings(self, event: dict[str, Any]) -> None:
        denials = event.get("permission_denials")
        if isinstance(denials, list) and denials:
            tools = sorted({str(d.get("tool_name")) for d in denials if isinstance(d, dict)})
            self.parsed.warnings.append(
                f"{len(denials)} tool call(s) were denied ({', '.join(tools)}); "
                "the task may be incomplete"
            )
        models = event.get("modelUsage")
        if isinstance(models, dict) and any(
            isinstance(m, dict) and m.get("costBasis") == "unknown" for m in models.values()
        ):
            self.parsed.warnings.append("cost_usd uses an unknown price basis (unrecognised model)")
        if self.retries:
            self.parsed.warnings.append(f"{self.retries} API retr(y/ies) during the run")
        if self.parsed.ok:
            self.parsed.warnings.extend(f"API error message: {e}" for e in self.api_errors[:5])

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        del outcome
        self.parsed.signals = self.ctx.detector.finish()
        if self.answer is not None:
            self.parsed.answer = self.answer.answer()
        if not self.parsed.terminal:
            self.parsed.text = self.last_text
            if self.api_errors:
                self.parsed.error = self.api_errors[-1]
        return self.parsed


class ClaudeBackend(CliBackend):
    """Claude Code (`claude -p`)."""

    name = "claude"
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=True, sessions=True
    )
    default_executable = "claude"

    def __init__(
        self,
        *,
        permission_mode: str = "acceptEdits",
        allowed_tools: Sequence[str] = (),
        bare: bool = False,
        partial_messages: bool = False,
        base_url: str | None = None,
        api_key: str | None = None,
        config_home: str | Path | None = None,
        cli_sandbox: bool = True,
        **options: Any,
    ) -> None:
        """`base_url` points Claude Code at another Anthropic Messages endpoint
        (`ANTHROPIC_BASE_URL`; also turns off its non-essential traffic and auto-updater),
        `api_key` is sent as `x-api-key` (`ANTHROPIC_API_KEY`), and `config_home` is its
        config directory (`CLAUDE_CONFIG_DIR`: settings, hooks, sessions; resume needs the
        same one; in a sandbox, where its settings and credentials are read from).
        `cli_sandbox` turns Claude Code's own sandbox on for writable runs in mergegate's
        sandbox (`CLI_SANDBOX_SETTINGS`). The other options are `CliBackend`'s."""
        super().__init__(**options)
        self.cli_sandbox = cli_sandbox
        self.permission_mode = permission_mode
        self.allowed_tools = tuple(allowed_tools)
        self.bare = bare
        self.partial_messages = partial_messages
        self.base_url = base_url
        self.api_key = api_key
        self.config_home = Path(config_home) if config_home is not None else None

    def _config_source(self) -> Path:
        """The real config directory: `config_home`, else `$CLAUDE_CONFIG_DIR`, else
        `~/.claude`."""
        if self.config_home is not None:
            return self.config_home
        return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")

    @staticmethod
    def private_config(sandbox: Sandbox) -> Path:
        """The config directory Claude Code uses inside `sandbox` (sessions go there)."""
        return sandbox.home_path / ".claude"

    def sandbox_binds(self, sandbox: Sandbox) -> tuple[Bind, ...]:
        # the user's own settings (their hooks, MCP servers) stay out; a config_home given to
        # mergegate is for its agents, settings included
        names = (_CREDENTIALS, _SETTINGS) if self.config_home is not None else (_CREDENTIALS,)
        return config_file_binds(
            sandbox, self.private_config(sandbox), self._config_source(), names
        )

    def run_env(self, request: AgentRequest, ctx: RunContext) -> dict[str, str]:
        del ctx
        env: dict[str, str] = {}
        if self.base_url:
            env["ANTHROPIC_BASE_URL"] = self.base_url
            env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
            env["DISABLE_AUTOUPDATER"] = "1"
        if self.api_key:
            env["ANTHROPIC_API_KEY"] = self.api_key
        if request.sandbox is not None:
            env["CLAUDE_CONFIG_DIR"] = str(self.private_config(request.sandbox))
        elif self.config_home is not None:
            env["CLAUDE_CONFIG_DIR"] = str(self.config_home)
        return env

    def initial_session(self, request: AgentRequest) -> str | None:
        return request.resume_session_id or str(uuid.uuid4())

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        # The prompt comes right after -p: options such as --allowedTools are variadic and
        # would swallow a positional prompt placed after them.
        args = ["-p", positional(request.prompt), "--output-format", "stream-json", "--verbose"]
        model = self.model_for(request)
        if model:
            args += ["--model", model]
        if request.resume_session_id:
            args += ["--resume", request.resume_session_id]
        elif ctx.session_id:
            args += ["--session-id", ctx.session_id]
        if request.read_only:
            args += ["--tools", READ_ONLY_TOOLS, "--permission-mode", "dontAsk"]
        else:
            args += ["--permission-mode", self.permission_mode]
            if self.allowed_tools:
                args += ["--allowedTools", ",".join(self.allowed_tools)]
            if self.cli_sandbox and request.sandbox is not None:
                args += ["--settings", json.dumps(CLI_SANDBOX_SETTINGS)]
        if self.bare:
            args.append("--bare")
        if request.answer_schema is not None:
            args += ["--json-schema", request.answer_schema.json_schema]
        if self.partial_messages or request.answer_schema is not None:
            args.append("--include-partial-messages")
        return args

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> ClaudeParser:
        return ClaudeParser(ctx, structured=request.answer_schema is not None)


class _AnswerStream:
    """The `StructuredOutput` calls of the agent's own messages (not a sub-agent's), their raw
    streamed input, the calls Claude Code refused, and the text beside them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        """(message id, tool-use id) of each call, in order."""
        self.raw: dict[str, list[str]] = {}
        self.size = 0
        self.blocks: dict[tuple[str, int], str] = {}
        self.texts: dict[str, list[str]] = {}
        self.refused: set[str] = set()

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "stream_event":
            self._stream(event)
        message = event.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            return
        key = str(message.get("id") or "")
        for block in message["content"]:
            if isinstance(block, dict):
                self._block(kind, key, block)

    def _block(self, kind: object, key: str, block: dict[str, Any]) -> None:
        if kind == "assistant" and block.get("type") == "text":
            self.texts.setdefault(key, []).append(str(block.get("text") or ""))
        elif kind == "assistant" and block.get("type") == "tool_use":
            if block.get("name") == STRUCTURED_OUTPUT_TOOL:
                self.calls.append((key, str(block.get("id") or "")))
        elif kind == "user" and block.get("type") == "tool_result" and block.get("is_error"):
            self.refused.add(str(block.get("tool_use_id") or ""))

    def _stream(self, event: dict[str, Any]) -> None:
        inner = event.get("event")
        if not isinstance(inner, dict) or not isinstance(inner.get("index"), int):
            return
        where = (str(event.get("api_message_id") or ""), inner["index"])
        start = inner.get("content_block")
        if inner.get("type") == "content_block_start" and isinstance(start, dict):
            if start.get("type") == "tool_use" and start.get("name") == STRUCTURED_OUTPUT_TOOL:
                self.blocks[where] = str(start.get("id") or "")
                self.raw[self.blocks[where]] = []
            return
        delta = inner.get("delta")
        if where in self.blocks and isinstance(delta, dict):
            part = delta.get("partial_json")
            if delta.get("type") == "input_json_delta" and isinstance(part, str):
                self.size += len(part)
                if self.size <= _MAX_ANSWER_CHARS:
                    self.raw[self.blocks[where]].append(part)

    def answer(self) -> StructuredAnswer:
        via = AnswerMechanism.CLAUDE_JSON_SCHEMA
        accepted = [(key, call) for key, call in self.calls if call not in self.refused]
        if not accepted:
            return StructuredAnswer(
                via=via,
                problem=f"no structured answer: the {STRUCTURED_OUTPUT_TOOL} tool "
                "was not called (or every call was refused)",
            )
        if self.size > _MAX_ANSWER_CHARS:
            return StructuredAnswer(via=via, problem="the structured answer is too large")
        missing = [call for _, call in accepted if call not in self.raw]
        if missing:
            return StructuredAnswer(
                via=via,
                problem="the structured answer's raw JSON was not in the stream, so it cannot "
                "be read strictly (Claude Code answered without streaming)",
            )
        messages = dict.fromkeys(key for key, _ in accepted)
        parts = [t for key in messages for t in self.texts.get(key, []) if t.strip()]
        parts.extend("".join(self.raw[call]) for _, call in accepted)
        return StructuredAnswer(via=via, text="\n".join(parts))
