"""The `mergegate` command group and the one place errors become exit codes.

Commands live in their own modules (one per command or command group) and are attached in
`mergegate.cli.__init__`. They are thin: parse arguments, call the library, print, exit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mergegate import __version__
from mergegate.decisions import ExitCode
from mergegate.errors import MergegateError


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


class MergegateGroup(click.Group):
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
@click.version_option(__version__, prog_name="mergegate")
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
