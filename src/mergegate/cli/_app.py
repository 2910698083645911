"""The `mergegate` command group and the one place errors become exit codes.

Commands live in their own modules (one per command or command group) and are attached in
`mergegate.cli.__init__`. They are thin: parse arguments, call the library, print, exit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mergegate import __version__
from mergegate.agents.sandbox import SandboxPolicy
from mergegate.config import Config
from mergegate.errors import MergegateError, UsageError


def format_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format text|json` (as `fmt`, default text): the same flag on every command that
    has both a view for people and one for tools."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help=help_text,
    )


_SANDBOX_OPTIONS = (
    click.option(
        "--no-sandbox",
        is_flag=True,
        help="Run agents and task checks without a sandbox: they see and can change all you "
        "can (recorded, and shown in status). Needed only where bubblewrap or user namespaces "
        "are missing; see docs/sandbox.md.",
    ),
    click.option(
        "--sandbox-allow",
        multiple=True,
        metavar="PATH",
        help="Let every agent and task check read and write PATH (repeatable; adds to "
        "[sandbox] allow).",
    ),
    click.option(
        "--sandbox-read",
        multiple=True,
        metavar="PATH",
        help="Let every agent and task check read PATH, e.g. a toolchain outside the system's "
        "directories (repeatable; adds to [sandbox] read).",
    ),
)


def sandbox_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--no-sandbox`, `--sandbox-allow PATH`, `--sandbox-read PATH` (as `no_sandbox`,
    `sandbox_allow`, `sandbox_read`): the same flags on every command that runs agents."""
    for option in reversed(_SANDBOX_OPTIONS):
        func = option(func)
    return func


def sandbox_policy(config: Config, opts: dict[str, Any]) -> SandboxPolicy:
    """The sandbox policy of `[sandbox]` and the flags of `sandbox_options`."""
    opened = tuple(opts.get("sandbox_allow") or ()) + tuple(opts.get("sandbox_read") or ())
    if opts.get("no_sandbox") and opened:
        raise UsageError(
            "--no-sandbox opens everything: --sandbox-allow and --sandbox-read say nothing"
        )
    return SandboxPolicy.from_config(
        config.sandbox,
        disabled=bool(opts.get("no_sandbox")),
        allow=tuple(opts.get("sandbox_allow") or ()),
        read=tuple(opts.get("sandbox_read") or ()),
    )


class MergegateGroup(click.Group):
    """A click group that turns `MergegateError` into its documented exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MergegateError as exc:
            click.echo(f"mergegate: error: {exc}", err=True)
            ctx.exit(int(exc.exit_code))


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
    """
