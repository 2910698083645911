"""`mergegate hook TOOL` (the hook an agent CLI runs) and `mergegate hooks install|uninstall`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from mergegate.config import find_config_file, load_config
from mergegate.errors import MergegateError
from mergegate.integrations import (
    DEFAULT_MATCHER,
    HOOK_TOOLS,
    HookEntry,
    HookOptions,
    SettingsChange,
    answer_hook,
    install_hooks,
    settings_path,
    uninstall_hooks,
)
from mergegate.integrations._hook import MAX_INPUT_BYTES

__all__ = ["hook", "hooks"]

_DEFAULT_TIMEOUT_S = 20.0
_SETTINGS_TIMEOUT_MARGIN_S = 10  # Claude Code's own limit sits above the hook's deadline


def _marker_options(func: Any) -> Any:
    options = [
        click.option(
            "--subagent-type",
            "subagent_types",
            multiple=True,
            metavar="GLOB",
            help="A subagent type that is a code reviewer (glob, case-insensitive; repeat). "
            "Default: hooks.subagent_types ('*review*').",
        ),
        click.option(
            "--prompt-marker",
            "prompt_markers",
            multiple=True,
            metavar="TEXT",
            help="A subagent whose prompt holds this text is a reviewer (repeat). "
            "Default: hooks.prompt_markers ('Ready to merge?').",
        ),
        click.option(
            "--result-marker",
            "result_markers",
            multiple=True,
            metavar="TEXT",
            help="A subagent result holding this text is a review (repeat). "
            "Default: hooks.result_markers ('Ready to merge?').",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("hook")
@click.argument("tool", type=click.Choice(HOOK_TOOLS))
@_marker_options
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(0.1, 300.0),
    default=None,
    help="Answer 'blocked: timed out' after this many seconds (default: hooks.timeout_s, 20).",
)
def hook(
    *,
    tool: str,
    subagent_types: tuple[str, ...],
    prompt_markers: tuple[str, ...],
    result_markers: tuple[str, ...],
    timeout_s: float | None,
) -> None:
    """The hook an agent CLI runs: read its hook JSON on stdin, print the answer as JSON.

    Installed by `mergegate hooks install TOOL`. For a review subagent (see the options) it
    parses the result with the verdict library: approve adds a confirmation to the
    orchestrator's context; fixes and reject block with the findings; a malformed or empty
    review blocks asking for ONE retry and no fix work, and the second one in a row blocks
    with STOP. Bad input, a crash or a timeout also block. Other subagents pass.

    \b
    Exit code: 0 with one JSON object on stdout, always (the agent CLI reads the JSON only
    on exit 0); every decision is logged under .mergegate/hooks/TOOL/.
    """
    flags = {
        "subagent_types": subagent_types,
        "prompt_markers": prompt_markers,
        "result_markers": result_markers,
        "timeout_s": timeout_s,
    }
    deadline = timeout_s or _configured_timeout()

    def load_options(payload: Any) -> HookOptions:
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        start = Path(cwd) if isinstance(cwd, str) and Path(cwd).is_dir() else None
        return HookOptions.from_config(load_config(start).hooks, **flags)

    def read_input() -> bytes:
        return sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)

    answer = answer_hook(read_input, tool=tool, load_options=load_options, timeout_s=deadline)
    sys.stdout.write(answer.to_json() + "\n")
    sys.stdout.flush()


def _configured_timeout() -> float:
    try:
        return load_config().hooks.timeout_s
    except MergegateError:
        return _DEFAULT_TIMEOUT_S  # the same error blocks inside the hook, with its message


# ---------------------------------------------------------------- install / uninstall
def _scope_options(func: Any) -> Any:
    options = [
        click.option(
            "--project",
            "scope",
            flag_value="project",
            default=True,
            help="The project's settings, shared with the team (the default): "
            ".claude/settings.json, or .gemini/settings.json for Gemini CLI.",
        ),
        click.option(
            "--user",
            "scope",
            flag_value="user",
            help="Your own settings.json: $CLAUDE_CONFIG_DIR, else ~/.claude; "
            "~/.gemini for Gemini CLI.",
        ),
        click.option(
            "--settings",
            "settings_file",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="Edit this settings file instead.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _settings_path(tool: str, scope: str, settings_file: Path | None) -> Path:
    if settings_file is not None:
        return settings_file
    root = find_config_file(Path.cwd().resolve())[0]
    return settings_path(tool, "user" if scope == "user" else "project", root)


def _command(
    executable: str,
    tool: str,
    flags: dict[str, tuple[str, ...]],
    timeout_s: float | None,
) -> str:
    argv = [executable, "hook", tool]
    for name, values in flags.items():
        for value in values:
            argv += [f"--{name}", value]
    if timeout_s is not None:
        argv += ["--timeout", f"{timeout_s:g}"]
    return shlex.join(argv)


def _report(change: SettingsChange) -> None:
    if not change.changed:
        click.echo(f"mergegate: {change.path}: unchanged")
        return
    if change.added:
        replaced = f" (replacing {change.removed})" if change.removed else ""
        what = f"added {change.added} hook entries{replaced}"
    else:
        what = f"removed {change.removed} hook entries"
    created = " (new file)" if change.created else ""
    click.echo(f"mergegate: {change.path}: {what}{created}")
    if change.backup is not None:
        click.echo(f"mergegate: the previous version is kept in {change.backup}")


@click.group("hooks")
def hooks() -> None:
    """Install or remove mergegate's hook in an agent CLI's settings."""


@hooks.command("install")
@click.argument("tool", type=click.Choice(HOOK_TOOLS))
@_scope_options
@click.option(
    "--matcher",
    default=None,
    help="Which tools the hook runs for, a regex over tool names (default: the subagent "
    f"tool, {DEFAULT_MATCHER} for Claude Code, invoke_agent for Gemini CLI).",
)
@_marker_options
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(1.0, 290.0),
    default=None,
    help="The hook's own deadline in seconds (written into the command; default 20).",
)
@click.option(
    "--mergegate",
    "executable",
    default="mergegate",
    show_default=True,
    help="How the agent CLI finds mergegate (a name on its PATH, or an absolute path).",
)
def install(
    *,
    tool: str,
    scope: str,
    settings_file: Path | None,
    matcher: str | None,
    subagent_types: tuple[str, ...],
    prompt_markers: tuple[str, ...],
    result_markers: tuple[str, ...],
    timeout_s: float | None,
    executable: str,
) -> None:
    """Add the hook to a settings file (merging; a backup of the old file is kept).

    \b
    Claude Code: a PreToolUse and a PostToolUse entry running `mergegate hook claude-code`
    for the subagent tool (Task|Agent), with onFailure=block: if mergegate cannot run, the
    subagent call is blocked instead of passing unchecked.
    Gemini CLI: an AfterTool entry running `mergegate hook gemini` for invoke_agent.
    Other hooks and settings are left byte for byte; installing again replaces
    mergegate's own entries.
    """
    flags = {
        "subagent-type": subagent_types,
        "prompt-marker": prompt_markers,
        "result-marker": result_markers,
    }
    entry = HookEntry(
        command=_command(executable, tool, flags, timeout_s),
        timeout_s=int(timeout_s or _DEFAULT_TIMEOUT_S) + _SETTINGS_TIMEOUT_MARGIN_S,
    )
    path = _settings_path(tool, scope, settings_file)
    _report(install_hooks(path, entry, tool=tool, matcher=matcher))


@hooks.command("uninstall")
@click.argument("tool", type=click.Choice(HOOK_TOOLS), default=HOOK_TOOLS[0])
@_scope_options
def uninstall(*, tool: str, scope: str, settings_file: Path | None) -> None:
    """Remove exactly mergegate's hook entries from a settings file (a backup is kept)."""
    path = _settings_path(tool, scope, settings_file)
    _report(uninstall_hooks(path, tool=tool))
