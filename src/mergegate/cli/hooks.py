"""`mergegate hooks install|uninstall`: mergegate's hook entries in an agent CLI's settings.
The hook itself is `mergegate hook TOOL` (`mergegate.cli.hook`)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from mergegate.cli.hook import marker_options
from mergegate.config import find_config_file
from mergegate.integrations import (
    DEFAULT_MATCHER,
    HOOK_TOOLS,
    HookEntry,
    SettingsChange,
    install_hooks,
    is_installed,
    settings_path,
    uninstall_hooks,
)

__all__ = ["hooks"]

_DEFAULT_TIMEOUT_S = 20.0

_SETTINGS_TIMEOUT_MARGIN_S = 10  # Claude Code's own limit sits above the hook's deadline


# ---------------------------------------------------------------- install / uninstall
def _scope_options(func: Any) -> Any:
    options = [
        click.option(
            "--project",
            "scope",
            flag_value="project",
            default=True,
            help="Your own settings for this project (the default): "
            ".claude/settings.local.json, which is not committed; .gemini/settings.json for "
            "Gemini CLI.",
        ),
        click.option(
            "--shared",
            "scope",
            flag_value="shared",
            help="The team's settings for this project: .claude/settings.json, committed - "
            "every teammate's Claude Code then needs mergegate, or its calls are blocked.",
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
    chosen = scope if scope in ("user", "shared") else "project"
    return settings_path(tool, chosen, root)  # type: ignore[arg-type]


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
@marker_options
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
    fix_subagent_types: tuple[str, ...],
    timeout_s: float | None,
    executable: str,
) -> None:
    """Add the hook to a settings file (merging; one backup of the old file is kept).

    \b
    Claude Code: `mergegate hook claude-code` as PreToolUse on the subagent tool (Task|Agent)
    and on Bash (the review latch: commit, merge, rebase, push and tag are denied while a
    review's "no" holds), and as PostToolUse on the subagent tool (the verdict), each with
    onFailure=block: if mergegate cannot run, the call is blocked instead of passing.
    Default target: .claude/settings.local.json (yours); --shared for the team's file.
    Gemini CLI: an AfterTool entry running `mergegate hook gemini` for invoke_agent.
    Other hooks and settings are left byte for byte; installing again replaces
    mergegate's own entries.
    """
    flags = {
        "subagent-type": subagent_types,
        "prompt-marker": prompt_markers,
        "result-marker": result_markers,
        "fix-subagent-type": fix_subagent_types if tool == "claude-code" else (),
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
    """Remove exactly mergegate's hook entries from a settings file (one backup is kept)."""
    path = _settings_path(tool, scope, settings_file)
    change = uninstall_hooks(path, tool=tool)
    _report(change)
    if change.changed or settings_file is not None or scope != "project" or tool != "claude-code":
        return
    shared = _settings_path(tool, "shared", None)
    if shared.is_file() and is_installed(shared, tool):
        click.echo(
            f"mergegate: {shared} (the team's file) still holds mergegate's entries: "
            "remove them with `mergegate hooks uninstall --shared`"
        )
