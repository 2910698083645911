"""The `mergegate` command line. The only package that imports click.

Subcommands load lazily (click's documented lazy-group pattern, `_app.LazyGroup`): starting
a command imports click and that one command's module, not the run engine, DBOS and every
backend. `mergegate hook claude-code`, which Claude Code runs on every tool call, and
`mergegate parse` do not import click at all when their arguments are plain ones (`_percall`:
the ones `mergegate hooks install` writes, files and `--NAME VALUE` options); so this module
imports click (`_app`) only when `cli` is used.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mergegate.cli._app import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Console-script entry point."""
    from mergegate.cli._percall import dispatch  # noqa: PLC0415 - click-free: per-call commands

    code = dispatch(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from mergegate.cli._app import cli  # noqa: PLC0415 - every other command: click

    cli(prog_name="mergegate")


def __getattr__(name: str) -> Any:
    """`cli`, the click group, imported on first use (so `main` may answer without it)."""
    if name == "cli":
        from mergegate.cli._app import cli  # noqa: PLC0415

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
