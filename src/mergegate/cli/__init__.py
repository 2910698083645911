"""The `mergegate` command line. The only package that imports click."""

from __future__ import annotations

from mergegate.cli._app import cli
from mergegate.cli.agent import agent

cli.add_command(agent)

__all__ = ["cli", "main"]


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="mergegate")
