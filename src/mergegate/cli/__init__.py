"""The `mergegate` command line. The only package that imports click.

Subcommands load lazily (click's documented lazy-group pattern, `_app.LazyGroup`): starting
`mergegate hook claude-code` — which Claude Code runs before every shell command — imports
click and that one command's module, not the run engine, DBOS and every backend.
"""

from __future__ import annotations

from mergegate.cli._app import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="mergegate")
