"""What every CLI backend shares: attempt directory, supervision, read-only proof, judgement.

A CLI backend supplies three things: the argv after the executable (`build_args`), a parser
that reads the CLI's lines (`make_parser`), and its capabilities. This module runs it under
the supervisor and turns the parser's findings and the process outcome into one `AgentResult`,
judged from the terminal event; the exit code only explains a run that has none.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from mergegate.agents._tap import current_tap
from mergegate.agents.answers import final_message_answer
from mergegate.agents.base import (
    AgentRequest,
    AgentResult,
    BackendCapabilities,
    HelpSignal,
    RunStatus,
    StructuredAnswer,
    Usage,
)
from mergegate.agents.sandbox import program_binds
from mergegate.agents.signals import HelpDetector
from mergegate.git import WorktreeSnapshot, check_unchanged, out_of_reach, snapshot_worktree
from mergegate.processes import (
    Bind,
    Limits,
    ProcessOutcome,
    Sandbox,
    StopReason,
    Stream,
    child_environment,
    supervise,
)

__all__ = [
    "ANSWER_SCHEMA_FILE",
    "CliBackend",
    "EventParser",
    "ParsedRun",
    "RunContext",
    "as_int",
    "judge",
    "parse_event",
    "positional",
    "stderr_excerpt",
]

ANSWER_SCHEMA_FILE = "answer-schema.json"
"""Where a backend writes a typed answer's schema for its CLI, in the attempt folder (bound
read-only into the sandbox, alone: the rest of the folder is hidden from the agent)."""
_EXTERNAL_KILLS = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
_EXCERPT_CHARS = 600
_STOPPED = {
    StopReason.TIMEOUT: (RunStatus.TIMEOUT, "wall-clock timeout; the process group was killed"),
    StopReason.STALLED: (
        RunStatus.STALLED,
        "no output for the stall timeout; the process group was killed",
    ),
    StopReason.CANCELLED: (RunStatus.KILLED, "cancelled; the process group was killed"),
}


@dataclass
class ParsedRun:
    """What a parser found in a CLI's output."""

    terminal: bool = False
    """A terminal event arrived (success or failure)."""
    ok: bool = False
    """The terminal event says success."""
    text: str = ""
    session_id: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    turns: int | None = None
    error: str | None = None
    unreachable: bool = False
    """The terminal failure means the endpoint could not be reached (status `missing`)."""
    warnings: list[str] = field(default_factory=list)
    signals: tuple[HelpSignal, ...] = ()
    answer: StructuredAnswer | None = None
    """The typed answer, when the CLI has a mechanism for it (else the final message is)."""


class EventParser(Protocol):
    """Reads a CLI's output line by line."""

    def feed(self, stream: Stream, line: str) -> bool:
        """Consume one line; True once it was the terminal event."""
        ...

    def result(self, outcome: ProcessOutcome) -> ParsedRun:
        """Everything found, once the process is gone."""
        ...


@dataclass
class RunContext:
    """Per-run values a backend may need when building argv or parsing."""

    attempt_dir: Path
    prompt_file: Path
    session_id: str | None
    """The session this run resumes (`request.resume_session_id`) or starts with a chosen id."""
    on_session: Callable[[str], None]
    detector: HelpDetector


def parse_event(line: str) -> dict[str, Any] | None:
    """One JSON object per line; anything else (log lines, blank lines) is None."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def as_int(value: object) -> int:
    """A token count from untrusted JSON: ints (not bools) only, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def positional(prompt: str) -> str:
    """A prompt safe to pass as a positional argument: a leading `-` would read as an option,
    so such a prompt gets a leading space (harmless to a model)."""
    return " " + prompt if prompt.startswith("-") else prompt


def stderr_excerpt(outcome: ProcessOutcome) -> str:
    """The last lines of stderr, bounded, for an error message."""
    text = outcome.stderr_tail[-4 * _EXCERPT_CHARS :].decode("utf-8", "replace").strip()
    return text[-_EXCERPT_CHARS:]


def judge(outcome: ProcessOutcome, parsed: ParsedRun) -> tuple[RunStatus, str | None]:
    """The run's status: from the terminal event when there is one, else from the outcome."""
    if outcome.reason is StopReason.MISSING:  # the program could not be started at all
        return RunStatus.NOT_INSTALLED, outcome.error
    if parsed.terminal:
        if parsed.ok:
            return RunStatus.OK, None
        status = RunStatus.MISSING if parsed.unreachable else RunStatus.ERROR
        return status, parsed.error or "the agent reported an error"
    stopped = _STOPPED.get(outcome.reason)
    if stopped is not None:
        return stopped
    return _judge_exit(outcome, parsed)


def _judge_exit(outcome: ProcessOutcome, parsed: ParsedRun) -> tuple[RunStatus, str]:
    detail = parsed.error or stderr_excerpt(outcome)
    suffix = f": {detail}" if detail else ""
    sig = outcome.signal
    if sig is not None:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        status = RunStatus.KILLED if sig in _EXTERNAL_KILLS else RunStatus.CRASHED
        return status, f"killed by signal {name} without a terminal event{suffix}"
    if outcome.returncode == 0:
        return RunStatus.ERROR, f"exited 0 without a terminal event{suffix}"
    return RunStatus.CRASHED, f"exited {outcome.returncode} without a terminal event{suffix}"


def _inherited_environment(sandboxed: bool) -> dict[str, str]:
    """The parent's environment as an agent inherits it: scrubbed of agent markers and, in a
    sandbox, of mergegate's own variables (a database URL, the state directory): what the
    agent needs of them is passed to it on purpose (`MERGEGATE_PROMPT_FILE`, …)."""
    env = child_environment()
    if sandboxed:
        env = {name: value for name, value in env.items() if not name.startswith("MERGEGATE_")}
    return env


class CliBackend:
    """Base of the backends that drive a CLI through the supervisor."""

    name: ClassVar[str]
    capabilities: ClassVar[BackendCapabilities]
    default_executable: ClassVar[str]
    needs_network: ClassVar[bool] = True
    """In a sandbox, share the host's network (the CLI calls a model API)."""

    def __init__(
        self,
        *,
        executable: str | Sequence[str] | None = None,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        kill_grace_s: float | None = None,
        done_grace_s: float | None = None,
        model: str | None = None,
    ) -> None:
        """`executable` replaces the CLI binary (a path, or an argv prefix such as
        `["python", "fake_agent.py"]`); `extra_args` are appended to the generated flags;
        `model` is the model used when the request names none. `kill_grace_s` (default: the
        request's) and `done_grace_s` (default: the supervisor's) tune stopping for this CLI."""
        if isinstance(executable, str):
            executable = [executable]
        self.executable = tuple(executable or (self.default_executable,))
        self.extra_args = tuple(extra_args)
        self.env = dict(env or {})
        self.kill_grace_s = kill_grace_s
        self.done_grace_s = done_grace_s
        self.model = model

    def model_for(self, request: AgentRequest) -> str | None:
        """The model of this run: the request's, else the backend's default, else the CLI's."""
        return request.model or self.model

    # -------------------------------------------------- what a backend implements

    def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
        """The arguments after the executable."""
        raise NotImplementedError

    def make_parser(self, request: AgentRequest, ctx: RunContext) -> EventParser:
        raise NotImplementedError

    def run_env(self, request: AgentRequest, ctx: RunContext) -> dict[str, str]:
        """Extra environment for this run (after `self.env` and `request.env`)."""
        del request, ctx
        return {}

    def initial_session(self, request: AgentRequest) -> str | None:
        """The session id known before the run starts (resume id, or one chosen up front)."""
        return request.resume_session_id

    def finalize(self, request: AgentRequest, parsed: ParsedRun) -> ParsedRun:
        """A hook to adjust the parsed run (e.g. usage deltas); the default keeps it."""
        del request
        return parsed

    def network(self, request: AgentRequest) -> bool:
        """Whether this run's sandbox shares the host's network (default: `needs_network`)."""
        del request
        return self.needs_network

    def sandbox_binds(self, sandbox: Sandbox) -> tuple[Bind, ...]:
        """Read-only binds of this CLI's own configuration into `sandbox`'s HOME (its
        credentials and settings files); the default has none."""
        del sandbox
        return ()

    def configured_args(self) -> tuple[str, ...]:
        """The arguments a person configured (an `executable` prefix, `extra_args`): files
        they name are bound read-only. Never the generated ones (a prompt is text)."""
        return (*self.executable[1:], *self.extra_args)

    def sandbox_for(self, request: AgentRequest, ctx: RunContext, argv: Sequence[str]) -> Sandbox:
        """The request's sandbox plus what this run's program needs: the tree it is installed
        in, the files its configured arguments name, the prompt file (read-only), its CLI's
        configuration files, the typed answer's schema file (read-only), and the network when
        the backend calls an API."""
        assert request.sandbox is not None
        own = (*program_binds(argv[0], self.configured_args()), Bind(path=ctx.prompt_file))
        schema = ctx.attempt_dir / ANSWER_SCHEMA_FILE  # the attempt folder itself stays hidden
        if request.answer_schema is not None and schema.is_file():
            own = (*own, Bind(path=schema))
        sandbox = request.sandbox.with_binds(*own)
        sandbox = sandbox.with_binds(*self.sandbox_binds(sandbox))
        return sandbox.model_copy(update={"network": self.network(request)})

    # -------------------------------------------------- the run

    def run(self, request: AgentRequest) -> AgentResult:
        """Run the CLI once; agent failures are a `status`, never an exception."""
        # Absolute: the agent's working directory is not mergegate's (a reviewer runs in a
        # throwaway checkout), and `{prompt_file}` must name the same file from there.
        attempt_dir = (
            request.attempt_dir or Path(tempfile.mkdtemp(prefix="mergegate-attempt-"))
        ).absolute()
        attempt_dir.mkdir(parents=True, exist_ok=True)
        prompt_file = attempt_dir / "prompt.txt"
        prompt_file.write_text(request.prompt, encoding="utf-8")
        session_file = attempt_dir / "session_id"

        def on_session(session_id: str) -> None:
            session_file.write_text(session_id + "\n", encoding="utf-8")

        ctx = RunContext(
            attempt_dir, prompt_file, self.initial_session(request), on_session, HelpDetector()
        )
        if ctx.session_id:
            on_session(ctx.session_id)
        program = shutil.which(self.executable[0])
        if program is None:
            return AgentResult(
                backend=self.name,
                status=RunStatus.NOT_INSTALLED,
                session_id=request.resume_session_id,
                error=f"{self.executable[0]!r} not found on PATH",
            )
        # `which` found a relative path (`./reviewer.sh`) from our directory; the agent runs in
        # `request.cwd` (a throwaway checkout, for a reviewer), so hand it the absolute one.
        program = os.path.abspath(program)
        argv = [program, *self.executable[1:], *self.build_args(request, ctx), *self.extra_args]
        own_env = self.run_env(request, ctx)  # before the sandbox: it may write files to bind
        sandbox = None if request.sandbox is None else self.sandbox_for(request, ctx, argv)
        env = child_environment(
            {**self.env, **request.env, **own_env},
            base=_inherited_environment(sandbox is not None),
        )
        return self._supervised(request, ctx, argv, env, sandbox)

    def _supervised(
        self,
        request: AgentRequest,
        ctx: RunContext,
        argv: list[str],
        env: dict[str, str],
        sandbox: Sandbox | None,
    ) -> AgentResult:
        warnings: list[str] = []
        before = _read_only_snapshots(request, ctx, warnings, sandbox) if request.read_only else []
        parser = self.make_parser(request, ctx)
        limits = Limits(
            timeout_s=request.timeout_s,
            stall_timeout_s=request.stall_timeout_s,
            kill_grace_s=request.kill_grace_s if self.kill_grace_s is None else self.kill_grace_s,
            log_cap_bytes=request.max_output_bytes,
            **({} if self.done_grace_s is None else {"done_grace_s": self.done_grace_s}),
        )
        outcome = supervise(
            argv,
            cwd=request.cwd,
            attempt_dir=ctx.attempt_dir,
            env=env,
            limits=limits,
            on_line=parser.feed,
            on_tail=current_tap(),  # `run --stream-agents`: shown live, never decided from
            sandbox=sandbox,
        )
        parsed = self.finalize(request, parser.result(outcome))
        status, error = judge(outcome, parsed)
        changes = _read_only_changes(request, ctx, before)
        if changes:
            error = "read-only run changed the repository: " + "; ".join(changes[:5])
        return self._result(
            request=request,
            ctx=ctx,
            outcome=outcome,
            parsed=parsed,
            status=status,
            error=error,
            warnings=warnings,
            changed=bool(changes),
        )

    def _result(
        self,
        *,
        request: AgentRequest,
        ctx: RunContext,
        outcome: ProcessOutcome,
        parsed: ParsedRun,
        status: RunStatus,
        error: str | None,
        warnings: list[str],
        changed: bool,
    ) -> AgentResult:
        warnings = warnings + parsed.warnings
        if outcome.output_truncated:
            warnings.append(f"stdout was {outcome.stdout_bytes} bytes; only the tail was kept")
        if outcome.oversize_lines:
            warnings.append(f"{outcome.oversize_lines} oversize line(s) were not parsed")
        if outcome.leftovers_killed:
            warnings.append(f"killed {outcome.leftovers_killed} process(es) left in the group")
        if outcome.escapees_killed:
            warnings.append(
                f"killed {outcome.escapees_killed} process(es) that escaped the group "
                "(setsid, double fork) and outlived the agent"
            )
        return AgentResult(
            backend=self.name,
            status=status,
            text=parsed.text,
            session_id=parsed.session_id or ctx.session_id or request.resume_session_id,
            exit_code=outcome.returncode,
            usage=parsed.usage,
            cost_usd=parsed.cost_usd,
            turns=parsed.turns,
            signals=parsed.signals,
            duration_s=outcome.duration_s,
            log_path=outcome.stdout_log,
            error=error,
            warnings=tuple(warnings),
            pid=outcome.record.pid if outcome.record else None,
            worktree_changed=changed,
            answer=_answer(request, parsed),
        )


def _answer(request: AgentRequest, parsed: ParsedRun) -> StructuredAnswer | None:
    """The typed answer: the CLI mechanism's, else the final message (exactly one object)."""
    if request.answer_schema is None:
        return None
    return parsed.answer or final_message_answer(parsed.text)


def _read_only_snapshots(
    request: AgentRequest, ctx: RunContext, warnings: list[str], sandbox: Sandbox | None
) -> list[tuple[Path, WorktreeSnapshot]]:
    """Snapshots of `cwd` and of every protected repository, taken before a read-only run
    (or the caller's kept ones, `AgentRequest.kept_snapshots`) — but of a repository the
    run's sandbox keeps out of its reach (`out_of_reach`: nothing it can write holds the
    work tree, its `.git` or a config file git reads for it), which is read-only by
    structure: its proof cost a reviewer 3 git processes per place, for nothing to find."""
    kept = request.kept_snapshots
    writable = None if sandbox is None else sandbox.host_writable()
    snapshots = []
    for path in (request.cwd, *request.protected_repos):
        if writable is not None and out_of_reach(path, writable):
            continue
        snapshot = None if kept is None else kept.take(path, ctx.attempt_dir)
        if snapshot is None:
            snapshot = snapshot_worktree(path, exclude=ctx.attempt_dir)
        if snapshot is None:
            warnings.append(f"read-only run in a directory outside git ({path}): not checked")
        else:
            snapshots.append((path, snapshot))
    return snapshots


def _read_only_changes(
    request: AgentRequest, ctx: RunContext, before: list[tuple[Path, WorktreeSnapshot]]
) -> list[str]:
    """What the run changed of each place snapshotted before it; a place found unchanged
    leaves its snapshot after in `request.kept_snapshots` for the caller's next run."""
    changes: list[str] = []
    for path, snapshot in before:
        found, after = check_unchanged(snapshot, exclude=ctx.attempt_dir)
        changes += found
        if not found and after is not None and request.kept_snapshots is not None:
            request.kept_snapshots.keep(path, after, ctx.attempt_dir)
    return changes
