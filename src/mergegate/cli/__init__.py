"""The `mergegate` command line. The only package that imports click."""

from __future__ import annotations

from mergegate.cli._app import cli
from mergegate.cli.model_server import model_server

__all__ = ["cli", "main"]

cli.add_command(model_server)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="mergegate")
