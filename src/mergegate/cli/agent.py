"""`mergegate agent`: run one agent under the supervisor, list the backends."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from mergegate.agents import AgentRequest, BackendInfo, available_backends, preflight
from mergegate.agents.command import split_command
from mergegate.agents.registry import backend_from_config
from mergegate.agents.sandbox import SandboxedBackend, starts_processes
from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.cli._sandbox import sandbox_options, sandbox_policy
from mergegate.cli._table import table_lines
from mergegate.config import Config, StateLayout, load_config, state_dir
from mergegate.decisions import ExitCode
from mergegate.errors import MergegateError, UsageError
from mergegate.git import object_dirs

__all__ = ["agent"]


@click.group("agent")
def agent() -> None:
    """Run coding agents under mergegate's process supervisor."""


def _read_prompt(prompt: str | None, prompt_file: Path | None) -> str:
    if (prompt is None) == (prompt_file is None):
        raise UsageError("give exactly one of --prompt and --prompt-file")
    if prompt is not None:
        return prompt
    assert prompt_file is not None
    try:
        return prompt_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read --prompt-file {prompt_file}: {exc}") from exc


def _backend_options(
    backend: str,
    cmd: str | None,
    base_url: str | None,
    api_key_env: str | None,
    config_home: Path | None,
) -> dict[str, Any]:
    """Backend options given as flags; they win over the `[agents.backends.NAME]` table."""
    options: dict[str, Any] = {}
    if backend == "command":
        if cmd:
            options["cmd"] = cmd
    elif cmd:
        options["executable"] = split_command(cmd)
    if base_url:
        options["base_url"] = base_url
    if api_key_env:
        key = os.environ.get(api_key_env)
        if not key:
            raise UsageError(f"--api-key-env {api_key_env}: the variable is not set")
        options["api_key"] = key
    if config_home is not None:
        options["config_home"] = config_home.resolve()
    return options


@agent.command("run")
@click.option(
    "--backend", "backend_name", required=True, help="Backend name (see `agent backends`)."
)
@click.option(
    "--cmd",
    help="For `command`: the program and its arguments (split like a shell, never run by one; "
    "{prompt_file} is replaced). For other backends: replaces the CLI executable.",
)
@click.option("--prompt", help="The prompt text.")
@click.option(
    "--prompt-file", type=click.Path(path_type=Path, dir_okay=False), help="Read the prompt from F."
)
@click.option(
    "--cwd",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=Path(),
    show_default="current directory",
    help="Working directory of the agent.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Wall-clock limit in seconds (default: agents.default_timeout_s, 1800).",
)
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Stop after this many seconds without output "
    "(default: agents.default_stall_timeout_s, 300).",
)
@click.option("--resume", "resume_id", help="Resume this session id (same --cwd).")
@click.option(
    "--read-only",
    is_flag=True,
    help="Reviewer mode: the CLI's read-only flags, and a run that changes HEAD, "
    "the index or the work tree is void.",
)
@click.option("--model", help="Model name passed to the CLI.")
@click.option(
    "--base-url",
    help="Point the CLI at this endpoint (claude: an Anthropic Messages base URL; codex: an "
    "OpenAI Responses base URL ending in /v1), e.g. the URL `mergegate model-server` prints.",
)
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="Pass the API key held in environment variable NAME to the CLI (claude, codex).",
)
@click.option(
    "--config-home",
    type=click.Path(path_type=Path, file_okay=False),
    help="The CLI's own config directory (claude: CLAUDE_CONFIG_DIR; codex: CODEX_HOME); "
    "resume with the same one.",
)
@click.option(
    "--attempt-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where the prompt, logs and process record go (default: a temp dir).",
)
@format_option("text: the agent's final text; json: the whole result.")
@sandbox_options
@click.pass_context
def run(
    ctx: click.Context,
    /,
    *,
    backend_name: str,
    cmd: str | None,
    prompt: str | None,
    prompt_file: Path | None,
    cwd: Path,
    timeout: float | None,
    stall_timeout: float | None,
    resume_id: str | None,
    read_only: bool,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    config_home: Path | None,
    attempt_dir: Path | None,
    fmt: str,
    **sandbox_flags: Any,
) -> None:
    """Run one agent and print its result. Exit 0 when it is ok, 4 otherwise, 2 for bad input.

    The configuration around --cwd applies as for every command: the backend's
    `[agents.backends.NAME]` table (flags win) and the `[agents]` limits (--timeout and
    --stall-timeout win).

    An agent that runs as a program runs in a sandbox (bubblewrap, docs/sandbox.md): --cwd
    read-write (read-only with --read-only), a private HOME kept in the state directory per
    backend, role and --cwd (so --resume finds its session), nothing else of yours. Where no
    sandbox can be made the run is refused (exit 4) unless --no-sandbox is given.
    """
    text = _read_prompt(prompt, prompt_file)
    overrides = {
        "agents.default_timeout_s": timeout,
        "agents.default_stall_timeout_s": stall_timeout,
    }
    config = load_config(cwd, overrides=overrides)
    options = _backend_options(backend_name, cmd, base_url, api_key_env, config_home)
    backend = backend_from_config(config.agents, backend_name, **options)
    policy = sandbox_policy(config, sandbox_flags)
    if policy.enabled and starts_processes(backend):
        policy.require()
        state = state_dir(config)
        objects = object_dirs(cwd)
        backend = SandboxedBackend(
            backend, policy, StateLayout(state).homes, objects=lambda _r: objects, hidden=(state,)
        )
    request = AgentRequest(
        prompt=text,
        cwd=cwd.resolve(),
        resume_session_id=resume_id,
        read_only=read_only,
        model=model,
        attempt_dir=attempt_dir.resolve() if attempt_dir else None,
        **AgentRequest.limits_from(config.agents),
    )
    result = backend.run(request)
    if fmt == "json":
        click.echo(result.model_dump_json(indent=2))
    else:
        click.echo(result.text, nl=not result.text.endswith("\n"))
        for warning in result.warnings:
            click.echo(f"mergegate: warning: {warning}", err=True)
        if not result.ok:
            click.echo(f"mergegate: agent {result.status}: {result.error}", err=True)
    ctx.exit(int(ExitCode.OK if result.ok else ExitCode.AGENT_FAILURE))


_CAPS = ("resume", "read_only", "usage", "cost", "sessions")


@agent.command("backends")
@format_option("A table, or one JSON array.")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where the configuration ([agents.backends.NAME]) is read from.",
)
def backends(fmt: str, repo: Path) -> None:
    """List the registered backends, whether each is usable here (what `run`, `review` and
    `verify` check before they start: the CLI on PATH and its version, the `local` extra, an
    endpoint reachable), and what each supports."""
    config = load_config(repo)
    rows = [_backend_row(info, config) for info in available_backends()]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    headers = ["backend", "available", *_CAPS, "detail"]
    for line in table_lines(headers, [_backend_cells(row) for row in rows]):
        click.echo(line)


def _backend_cells(row: dict[str, Any]) -> list[str]:
    caps = row["capabilities"]
    flags = [("yes" if caps[c] else "no") if caps else "-" for c in _CAPS]
    detail = row["detail"] + (f"; {row['fix']}" if row["fix"] else "")
    return [row["name"], "yes" if row["available"] else "no", *flags, clean(detail, 300)]


def _backend_row(info: BackendInfo, config: Config) -> dict[str, Any]:
    """One backend as `agent backends` shows it: usable here when it loads, can be built
    from the configuration, and passes its preflight."""
    row: dict[str, Any] = {
        "name": info.name,
        "target": info.target,
        "available": False,
        "capabilities": info.capabilities.model_dump() if info.capabilities else None,
        "error": info.error,
        "detail": info.error or "",
        "fix": "",
    }
    if not info.available:
        return row
    try:
        backend = backend_from_config(config.agents, info.name)
    except MergegateError as exc:  # e.g. `command` needs a program, `openai` an endpoint
        row["detail"] = f"not configured: {exc}"
        return row
    ready = preflight(backend)
    row.update(available=ready.ok, detail=ready.detail, fix=ready.fix)
    row["error"] = None if ready.ok else ready.line()
    return row
