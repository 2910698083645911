"""The one small interface every agent backend implements, and the result it normalizes to.

A backend turns an `AgentRequest` into an `AgentResult`. CLI backends (claude, codex, gemini,
opencode, aider, command) build an argv and read the CLI's events through the supervisor;
HTTP backends (openai, local) talk to an endpoint. Whatever the transport, the result is judged
from the agent's own final event, never from an exit code alone: a run without a terminal event
is a failure.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from mergegate.config import DEFAULT_AGENTS, AgentsConfig
from mergegate.git import KeptSnapshots
from mergegate.processes import Sandbox

__all__ = [
    "AgentRequest",
    "AgentResult",
    "AnswerMechanism",
    "AnswerSchema",
    "Backend",
    "BackendCapabilities",
    "HelpSignal",
    "RunStatus",
    "StructuredAnswer",
    "Usage",
]


class RunStatus(StrEnum):
    """How an agent run ended. Only `OK` is a completed run."""

    OK = "ok"
    """A terminal event that says success."""
    ERROR = "error"
    """The agent reported an error (API error, failed turn), or ended without a terminal event."""
    TIMEOUT = "timeout"
    """Wall-clock limit reached; the process group was killed."""
    STALLED = "stalled"
    """No output growth for the stall timeout; the process group was killed."""
    CRASHED = "crashed"
    """The process died (non-zero exit or signal) without a terminal event."""
    KILLED = "killed"
    """Stopped from outside (cancelled by the orchestrator, or a signal we did not send)."""
    MISSING = "missing"
    """The endpoint is unreachable (retried with backoff: it may come back)."""
    NOT_INSTALLED = "not_installed"
    """The CLI is not installed (not found on PATH, not executable) or the `local` extra is
    missing: never retried (a program does not appear after a backoff)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Frozen):
    """Token usage of one run (this run only: cumulative counters are turned into deltas)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class HelpSignal(_Frozen):
    """A `>>>HELP<<<` (or namespaced) line found as a whole line of assistant text."""

    marker: str
    """The marker as matched, e.g. `>>>HELP<<<`."""
    context: dict[str, Any] | None = None
    """Optional JSON object from the next line of assistant text."""
    offset_s: float = 0.0
    """Seconds since the run started."""


class AnswerMechanism(StrEnum):
    """How a backend made the agent's final answer one JSON object of a schema (strongest first).

    Recorded in every attempt record: which guarantee stood behind the answer mergegate read.
    """

    CLAUDE_JSON_SCHEMA = "claude_json_schema"
    """Claude Code `--json-schema`: the answer is the input of its `StructuredOutput` tool call,
    validated by Claude Code against the schema (read from the raw streamed JSON)."""
    CODEX_OUTPUT_SCHEMA = "codex_output_schema"
    """Codex `--output-schema`: the Responses API's `text.format` constrains the last message."""
    CHAT_RESPONSE_FORMAT = "chat_response_format"
    """OpenAI Chat Completions `response_format: {"type": "json_schema", "strict": true}`."""
    GRAMMAR = "grammar"
    """A llama.cpp grammar generated from the schema (the `local` backend): decoding cannot leave
    the object's shape."""
    FINAL_MESSAGE = "final_message"
    """No mechanism: the final message must be exactly one JSON object and nothing else."""


class AnswerSchema(_Frozen):
    """The typed answer a request asks for: a name and the JSON Schema of its object.

    `json_schema` is the schema as JSON text (the full schema of the pydantic model, with the
    values mergegate fixed for this request pinned as one-value enums); backends derive what
    their mechanism takes from it (`mergegate.agents.answers`). The answer is always validated
    again by the caller: a mechanism is a guide for the model, never the authority.
    """

    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_-]*$")
    json_schema: str = Field(min_length=2)
    grammar_schema: str | None = None
    """A narrower schema for a grammar, which can say what a strict API cannot (a root `anyOf`
    of variants: consistency across keys); every object it allows is one `json_schema` allows.
    None: the grammar follows `json_schema`."""

    def schema_object(self) -> dict[str, Any]:
        """The JSON Schema as a mapping (parsed from `json_schema`)."""
        return _object(self.json_schema)

    def grammar_object(self) -> dict[str, Any]:
        """The schema a grammar is generated from (`grammar_schema`, else `json_schema`)."""
        return _object(self.grammar_schema or self.json_schema)


def _object(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("an answer schema must be a JSON object")
    return value


class StructuredAnswer(_Frozen):
    """The final answer as the backend's mechanism delivered it, for the caller to read strictly.

    `text` is the answer's raw text: the JSON the model wrote (never re-serialised: a key given
    twice must still be seen), preceded or followed by any text the model put beside it in the
    same final message. `problem` says why the mechanism delivered no answer at all (the tool was
    never called); then `text` is empty and the answer is malformed.
    """

    via: AnswerMechanism
    text: str = ""
    problem: str | None = None


class AgentRequest(_Frozen):
    """One agent invocation. Backends ignore what they cannot honour and say so in `warnings`.

    The limits default to the `[agents]` configuration's defaults; `AgentRequest.limits_from`
    gives a loaded configuration's."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", allow_inf_nan=False, arbitrary_types_allowed=True
    )

    prompt: str
    cwd: Path
    timeout_s: float = Field(DEFAULT_AGENTS.default_timeout_s, gt=0)
    stall_timeout_s: float = Field(DEFAULT_AGENTS.default_stall_timeout_s, gt=0)
    kill_grace_s: float = Field(DEFAULT_AGENTS.kill_grace_s, ge=0)
    """Seconds between SIGTERM and SIGKILL when the run's process group is stopped."""
    max_output_bytes: int = Field(DEFAULT_AGENTS.max_output_bytes, ge=0)
    """Per stream: bytes of a CLI agent's output logged before only the tail is kept."""
    resume_session_id: str | None = None
    """Continue this session (same working directory) instead of starting a new one."""
    read_only: bool = False
    """Reviewer mode: the backend uses the CLI's own read-only flags; mergegate also compares
    the repository at `cwd` before and after (HEAD, index, `git status`, every file under
    `.git`, the effective git config) and voids a run that changed any of it."""
    protected_repos: tuple[Path, ...] = ()
    """More repositories a read-only run must leave unchanged, checked like `cwd`: the user's
    repository when the agent works in a throwaway checkout (it can still write by path)."""
    kept_snapshots: KeptSnapshots | None = Field(default=None, exclude=True, repr=False)
    """A read-only run's check: the snapshots before taken from here where one fits (the last
    check's after, `KeptSnapshots`), and this check's after kept here. Only for a caller that
    knows nothing changes those places between its runs (never serialised)."""
    attempt: int = 1
    model: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the agent (added after the parent's agent variables are scrubbed)."""
    attempt_dir: Path | None = None
    """Where the attempt's prompt, logs and raw output go; a temporary directory if unset."""
    sandbox: Sandbox | None = None
    """Run the agent's process in this sandbox (bubblewrap): what the caller opens to it (its
    working directory, borrowed objects, a private HOME, see `mergegate.agents.sandbox`); a
    CLI backend adds what its own program needs. None: no sandbox (a library caller's choice;
    mergegate's commands set one unless `--no-sandbox`). Backends that start no process
    (openai, local) have nothing to put in one."""
    response_format: dict[str, Any] | None = None
    """Optional output constraint for backends that support it (a JSON Schema, or
    `{"type": "grammar", "grammar": GBNF}`); CLI backends ignore it. `answer_schema` replaces it
    for typed answers."""
    answer_schema: AnswerSchema | None = None
    """The run must end with one JSON object of this schema: every backend uses its strongest
    mechanism (`AnswerMechanism`) and reports the answer in `AgentResult.answer`."""

    @staticmethod
    def limits_from(agents: AgentsConfig) -> dict[str, Any]:
        """The request fields a configuration's `[agents]` section sets, as keyword arguments:
        `AgentRequest(prompt=..., cwd=..., **AgentRequest.limits_from(config.agents))`."""
        return {
            "timeout_s": agents.default_timeout_s,
            "stall_timeout_s": agents.default_stall_timeout_s,
            "kill_grace_s": agents.kill_grace_s,
            "max_output_bytes": agents.max_output_bytes,
        }


class AgentResult(_Frozen):
    """The normalized outcome of one agent run, whatever the backend."""

    backend: str
    status: RunStatus
    text: str = ""
    """The final assistant message (not the whole transcript)."""
    session_id: str | None = None
    exit_code: int | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    """An estimate where the CLI computes it client-side (e.g. Claude Code); None if unknown."""
    turns: int | None = None
    signals: tuple[HelpSignal, ...] = ()
    duration_s: float = 0.0
    log_path: Path | None = None
    error: str | None = None
    """Why the run is not `ok`, in one or two lines."""
    warnings: tuple[str, ...] = ()
    pid: int | None = None
    worktree_changed: bool = False
    """True when a read-only run changed HEAD, the index, the working tree, a file under `.git`
    or the git config, of `cwd` or of a protected repository (the run is void)."""
    files_written: tuple[str, ...] = ()
    """Paths (relative to `cwd`) that mergegate itself wrote for the agent: backends without
    tools (openai, local) answer with whole-file edits that mergegate applies."""
    files_refused: tuple[str, ...] = ()
    """Paths the agent asked mergegate to write and it refused (outside the tree, `.git`, …);
    the reasons are in `warnings`. When any path is refused, nothing is written."""
    answer: StructuredAnswer | None = None
    """With `AgentRequest.answer_schema`: the final answer and the mechanism that produced it."""

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.OK and not self.worktree_changed

    @property
    def requested_help(self) -> bool:
        return bool(self.signals)

    @property
    def reply(self) -> str:
        """What a typed answer is read from: the answer the mechanism delivered, else (no
        answer was asked for, or the mechanism delivered none) the final message."""
        if self.answer is None or self.answer.problem is not None:
            return self.text
        return self.answer.text


class BackendCapabilities(_Frozen):
    """What a backend supports; rendered as the backend matrix in the docs."""

    resume: bool = False
    read_only: bool = False
    usage: bool = False
    cost: bool = False
    sessions: bool = False
    edits_files: bool = True


@runtime_checkable
class Backend(Protocol):
    """An agent backend. Built-ins register the way a third-party plugin would."""

    name: str
    capabilities: BackendCapabilities

    def run(self, request: AgentRequest) -> AgentResult:
        """Run the agent once. Never raises for agent failures: they are a `status`."""
        ...
