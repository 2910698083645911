"""The `command` backend: any program as an agent, driven through files and variables.

`--cmd "PROGRAM ARGS"` is split with `shlex` (no shell ever runs it); `{prompt_file}` in any
argument becomes the path of a file holding the prompt. The program also gets:

- `MERGEGATE_PROMPT_FILE`: the same path;
- `MERGEGATE_ATTEMPT`: the attempt number;
- `MERGEGATE_SESSION_ID`: a fresh id, or the id being resumed (resume = same id, so a scripted
  agent can keep state per session);
- `MERGEGATE_REVIEW_ID`: for reviews, the nonce the review must echo (and
  `MERGEGATE_REVIEW_SCOPE`, the scope its verdict object must name);
- `MERGEGATE_ANSWER_SCHEMA`: when the run must end with a typed answer (a verdict object, an
  `agent-result`, a verifier's judgements), the path of its JSON Schema. The program has no
  mechanism: its whole stdout must be that one JSON object and nothing else.

Its stdout is the text; exit 0 is `ok`, any other exit `error` (a signal is `crashed` or
`killed`). Help markers are whole lines of stdout. In a sandbox it has no network unless the
backend is built with `network=True` (`[agents.backends.command] network = true`): a program
that calls a model API says so; the program, its interpreter's installation and every file its
command names by absolute path are visible read-only. This is the backend the review loop's
end-to-end tests use for scripted reviewers and implementers.
"""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Sequence
from typing import Any

from mergegate.agents._cli import (
    ANSWER_SCHEMA_FILE,
    CliBackend,
    ParsedRun,
    RunContext,
    stderr_excerpt,
)
from mergegate.agents.base import AgentRequest, BackendCapabilities
from mergegate.errors import UsageError
from mergegate.processes import ProcessOutcome, StopReason, Stream

__all__ = ["CommandBackend", "split_command"]

PROMPT_PLACEHOLDER = "{prompt_file}"


def split_command(cmd: str | Sequence[str]) -> list[str]:
    """argv from a command string (shlex, POSIX rules) or a ready list; UsageError if empty."""
    try:
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    except ValueError as exc:
        raise UsageError(f"cannot split --cmd {cmd!r}: {exc}") from exc
    if not argv:
        raise UsageError("the command backend needs a non-empty --cmd")
    return argv


class _CommandParser:
    """Stdout is assistant text; the process exit is the terminal event."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def feed(self, stream: Stream, line: str) -> bool:
        if stream == "stdout":
            self.ctx.detector.feed(line + "\n")
        return False

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        text = outcome.stdout_tail.decode("utf-8", "replace")
        parsed = ParsedRun(text=text, session_id=self.ctx.session_id)
        parsed.signals = self.ctx.detector.finish()
        rc = outcome.returncode
        if outcome.reason is StopReason.EXITED and rc is not None and rc >= 0:
            parsed.terminal = True
            parsed.ok = rc == 0
            if rc != 0:
                detail = stderr_excerpt(outcome)
                parsed.error = f"exited {rc}" + (f": {detail}" if detail else "")
        return parsed


class CommandBackend(CliBackend):
    """Any program; see the module docstring for its contract."""

    name = "command"
    capabilities = BackendCapabilities(
        resume=True, read_only=False, usage=False, cost=False, sessions=True
    )
    default_executable = ""

    def __init__(
        self, cmd: str | Sequence[str] | None = None, *, network: bool = False, **options: Any
    ) -> None:
        if cmd is None:
            raise UsageError("the command backend needs --cmd 'PROGRAM ARGS'")
        self.argv = split_command(cmd)
        self.network_access = network
        super().__init__(executable=self.argv[:1], **options)

    def network(self, request: AgentRequest) -> bool:
        del request
        return self.network_access

    def configured_args(self) -> tuple[str, ...]:
        """The command as the person wrote it (before `{prompt_file}` is filled in)."""
        return (*self.argv[1:], *self.extra_args)

    def initial_session(self, request: AgentRequest) -> str | None:
        return request.resume_session_id or uuid.uuid4().hex

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        del request
        path = str(ctx.prompt_file)
        return [arg.replace(PROMPT_PLACEHOLDER, path) for arg in self.argv[1:]]

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> _CommandParser:
        del request
        return _CommandParser(ctx)

    def run_env(self, request: AgentRequest, ctx: RunContext) -> dict[str, str]:
        env = {
            "MERGEGATE_PROMPT_FILE": str(ctx.prompt_file),
            "MERGEGATE_ATTEMPT": str(request.attempt),
            "MERGEGATE_SESSION_ID": ctx.session_id or "",
        }
        if request.answer_schema is not None:
            path = ctx.attempt_dir / ANSWER_SCHEMA_FILE
            path.write_text(request.answer_schema.json_schema, encoding="utf-8")
            env["MERGEGATE_ANSWER_SCHEMA"] = str(path)
        return env
