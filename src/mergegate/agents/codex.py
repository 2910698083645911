"""The `codex` backend: `codex exec --json` (OpenAI Codex CLI).

Judged from `turn.completed` (success) or `turn.failed` (failure); an interrupted turn has
neither and is a failure. The final text is the last `agent_message` item. `error` events are
often transient (`Reconnecting...`): they are warnings, but more than `max_reconnects` of them
end the run as `missing` (Codex never gives up on an unreachable endpoint by itself).
`turn.completed.usage` is cumulative over the thread, so a resumed run reports the delta
against the total this backend instance saw for the thread (a warning says when it cannot).
Reviewers run with `--sandbox read-only`, other runs with Codex's own `--sandbox
workspace-write` (in addition to mergegate's). Options go before `resume` (they are
inherited). In mergegate's sandbox `CODEX_HOME` is a private directory in the sandbox's HOME
holding the real one's `auth.json` (and, from an explicit `config_home`, `config.toml`),
read-only.
A request with an `answer_schema` adds `--output-schema FILE` (the schema's strict subset, written
to the attempt directory): Codex sends it as the Responses API's `text.format` (`strict: true`),
and the last `agent_message` is the answer.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mergegate.agents._cli import (
    ANSWER_SCHEMA_FILE,
    CliBackend,
    ParsedRun,
    RunContext,
    as_int,
    parse_event,
    positional,
)
from mergegate.agents.answers import strict_schema
from mergegate.agents.base import (
    AgentRequest,
    AnswerMechanism,
    BackendCapabilities,
    StructuredAnswer,
    Usage,
)
from mergegate.agents.sandbox import config_file_binds
from mergegate.errors import UsageError
from mergegate.processes import Bind, ProcessOutcome, Sandbox, Stream

__all__ = ["API_KEY_ENV", "CodexBackend", "CodexParser", "config_overrides", "usage_delta"]

_MAX_WARNINGS = 20
API_KEY_ENV = "MERGEGATE_CODEX_API_KEY"
"""The variable that carries `api_key` to Codex (the custom provider's `env_key`)."""
_KEY = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")
_AUTH = "auth.json"
_CONFIG = "config.toml"

ConfigValue = str | int | float | bool


def _toml_value(key: str, value: ConfigValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UsageError(f"codex config {key}: {value} is not a TOML number")
        return repr(value)
    # A JSON string is a valid TOML basic string (same escapes, \uXXXX included).
    return json.dumps(value, ensure_ascii=False)


def config_overrides(config: Mapping[str, ConfigValue]) -> list[str]:
    """`-c key=value` arguments (values as TOML literals) for dotted config keys."""
    args = []
    for key, value in config.items():
        if not _KEY.fullmatch(key):
            raise UsageError(f"codex config key {key!r} is not a dotted name")
        args += ["-c", f"{key}={_toml_value(key, value)}"]
    return args


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
        self,
        *,
        sandbox: str = "workspace-write",
        max_reconnects: int = 5,
        base_url: str | None = None,
        api_key: str | None = None,
        config_home: str | Path | None = None,
        provider: str = "mergegate",
        provider_options: Mapping[str, ConfigValue] | None = None,
        config: Mapping[str, ConfigValue] | None = None,
        **options: Any,
    ) -> None:
        """`base_url` points Codex at an OpenAI Responses endpoint through a custom provider
        named `provider`, defined per run with `-c` overrides (the built-in `openai`
        provider's `base_url` cannot be overridden); `provider_options` adds keys to it
        (`request_max_retries`, `stream_max_retries`, `stream_idle_timeout_ms`, ...).
        `api_key` reaches it through `MERGEGATE_CODEX_API_KEY` (its `env_key`; without a key
        no Authorization header is sent). `config_home` is `CODEX_HOME` (config, auth,
        sessions; resume needs the same one). `config` is any other `-c key=value`."""
        super().__init__(**options)
        self.sandbox = sandbox
        self.max_reconnects = max_reconnects
        self.base_url = base_url
        self.api_key = api_key
        self.config_home = Path(config_home) if config_home is not None else None
        self.provider = provider
        self.provider_options = dict(provider_options or {})
        self.config = dict(config or {})
        self._overrides = config_overrides(self._config())
        self._thread_totals: dict[str, Usage] = {}

    def _config(self) -> dict[str, ConfigValue]:
        config: dict[str, ConfigValue] = {}
        if self.base_url:
            prefix = f"model_providers.{self.provider}"
            config["model_provider"] = self.provider
            config[f"{prefix}.name"] = self.provider
            config[f"{prefix}.base_url"] = self.base_url
            config[f"{prefix}.wire_api"] = "responses"
            if self.api_key:
                config[f"{prefix}.env_key"] = API_KEY_ENV
            config.update({f"{prefix}.{k}": v for k, v in self.provider_options.items()})
        elif self.provider_options:
            raise UsageError("codex provider_options need a base_url")
        config.update(self.config)
        return config

    def _config_source(self) -> Path:
        """The real `CODEX_HOME`: `config_home`, else `$CODEX_HOME`, else `~/.codex`."""
        if self.config_home is not None:
            return self.config_home
        return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")

    @staticmethod
    def private_config(sandbox: Sandbox) -> Path:
        """`CODEX_HOME` inside `sandbox` (sessions go there): `.codex` in its home, or the
        empty home itself (Codex refuses a `CODEX_HOME` that does not exist)."""
        return sandbox.home_path if sandbox.home is None else sandbox.home_path / ".codex"

    def sandbox_binds(self, sandbox: Sandbox) -> tuple[Bind, ...]:
        names = (_AUTH, _CONFIG) if self.config_home is not None else (_AUTH,)
        return config_file_binds(
            sandbox, self.private_config(sandbox), self._config_source(), names
        )

    def run_env(self, request: AgentRequest, ctx: RunContext) -> dict[str, str]:
        del ctx
        env: dict[str, str] = {}
        if self.api_key:
            env[API_KEY_ENV] = self.api_key
            if not self.base_url:
                env["CODEX_API_KEY"] = self.api_key  # the built-in provider's CI key
        if request.sandbox is not None:
            env["CODEX_HOME"] = str(self.private_config(request.sandbox))
        elif self.config_home is not None:
            # Codex refuses a CODEX_HOME that does not exist (exit 1, before any event).
            self.config_home.mkdir(parents=True, exist_ok=True)
            env["CODEX_HOME"] = str(self.config_home)
        return env

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        args = ["exec", "--json", "--skip-git-repo-check", *self._overrides]
        model = self.model_for(request)
        if model:
            args += ["-m", model]
        args += ["--sandbox", "read-only" if request.read_only else self.sandbox]
        if request.answer_schema is not None:
            path = ctx.attempt_dir / ANSWER_SCHEMA_FILE
            schema = strict_schema(request.answer_schema.schema_object())
            path.write_text(json.dumps(schema, ensure_ascii=False, indent=1), encoding="utf-8")
            args += ["--output-schema", str(path)]
        if request.resume_session_id:
            args += ["resume", request.resume_session_id]
        args.append(positional(request.prompt))
        return args

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> CodexParser:
        del request
        return CodexParser(ctx, self.max_reconnects)

    def finalize(self, request: AgentRequest, parsed: ParsedRun) -> ParsedRun:
        """Turn the thread's cumulative usage into this run's usage; the last message is the
        answer an `--output-schema` asked for."""
        if request.answer_schema is not None:
            parsed.answer = StructuredAnswer(
                via=AnswerMechanism.CODEX_OUTPUT_SCHEMA, text=parsed.text
            )
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
