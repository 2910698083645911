"""The `mergegate` command group and the one place errors become exit codes.

Commands live in their own modules (one per command or command group), named in `COMMANDS`
and imported only when invoked (or listed by `--help`). They are thin: parse arguments, call
the library, print, exit.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import click

from mergegate.decisions import ExitCode
from mergegate.errors import MergegateError

COMMANDS: dict[str, str] = {
    "agent": "mergegate.cli.agent:agent",
    "cancel": "mergegate.cli.run:cancel",
    "gc": "mergegate.cli.gc:gc",
    "handoff": "mergegate.cli.handoff:handoff",
    "hook": "mergegate.cli.hook:hook",
    "hooks": "mergegate.cli.hooks:hooks",
    "logs": "mergegate.cli.logs:logs",
    "model-server": "mergegate.cli.model_server:model_server",
    "parse": "mergegate.cli.parse:parse",
    "plan": "mergegate.cli.plan:plan",
    "report": "mergegate.cli.report:report",
    "resume": "mergegate.cli.run:resume",
    "review": "mergegate.cli.review:review",
    "run": "mergegate.cli.run:run",
    "runs": "mergegate.cli.run:runs",
    "schema": "mergegate.cli.handoff:schema",
    "stats": "mergegate.cli.stats:stats",
    "status": "mergegate.cli.run:status",
    "verify": "mergegate.cli.verify:verify",
    "worker": "mergegate.cli.worker:worker",
    "workers": "mergegate.cli.worker:workers",
}
"""Every subcommand: its name and where it lives (`module:attribute`), imported on first use."""

PER_CALL = frozenset({"hook", "parse"})
"""Commands an agent CLI or a pipeline starts on every step (bench/bench_startup.py). pydantic
looks its plugins up on the first model it builds, reading every installed distribution's
metadata; mergegate uses none, so these processes switch the lookup off with pydantic's own
`PYDANTIC_DISABLE_PLUGINS` (unless the caller set it: `setdefault`). Long-lived commands
(`run`, `worker` …) keep the plugins a user installed."""


def format_option(
    help_text: str, *, more: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format text|json` (as `fmt`, default text): the same flag on every command that
    has both a view for people and one for tools (`more`: a command's extra formats, such
    as `parse`'s jsonl)."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json", *more]),
        default="text",
        show_default=True,
        help=help_text,
    )


class LazyGroup(click.Group):
    """A click group whose subcommands (`COMMANDS`) are imported when first looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in COMMANDS:
            return found
        if cmd_name in PER_CALL:
            os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        module_name, _, attribute = COMMANDS[cmd_name].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - a wrong COMMANDS row
            raise TypeError(f"{COMMANDS[cmd_name]} is not a click command")
        self.add_command(command, cmd_name)
        return command


class MergegateGroup(LazyGroup):
    """A click group that turns `MergegateError` into its documented exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MergegateError as exc:
            click.echo(f"mergegate: error: {exc}", err=True)
            ctx.exit(int(exc.exit_code))
        except KeyboardInterrupt:  # a Ctrl-C outside a run's own handling: nothing started
            click.echo("\nmergegate: interrupted", err=True)
            ctx.exit(int(ExitCode.INTERRUPTED))


@click.group(
    cls=MergegateGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="mergegate", prog_name="mergegate")
def cli() -> None:
    """mergegate: only an authoritative, unconditional approval proceeds.

    \b
    Exit codes (every command):
      0  approved / ok
      1  a real verdict that says no (reject or fixes)
      2  usage or input error (bad arguments, unreadable or invalid file)
      3  undecidable: malformed or empty after the allowed retries; invalid handoff
      4  agent or infrastructure failure (timeout, stall, crash, CLI missing)
      5  escalated to a human (revision cap or stall reached)
      130  interrupted (Ctrl-C, SIGTERM); `mergegate resume RUN` continues a run
    """
