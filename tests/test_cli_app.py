from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner

from mergegate import __version__
from mergegate.cli import cli
from mergegate.cli._reference import command_tree


def test_help_lists_exit_codes() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.output
    assert "escalated to a human" in result.output


def test_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_unknown_command_is_usage_error() -> None:
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2


def test_python_dash_m_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mergegate", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert "mergegate" in proc.stdout


def test_every_format_option_is_the_shared_one() -> None:
    """Issue 26: `--format` is `format_option` everywhere, `text|json` (and a command's extras),
    default text, passed as `fmt`; no command spells its own."""

    seen = 0
    for entry in command_tree():
        for param in entry.command.params:
            if not isinstance(param, click.Option):
                continue
            choices = getattr(param.type, "choices", ())
            if "--format" in param.opts or {"text", "json"} <= set(choices):
                seen += 1
                assert param.opts == ["--format"], entry.name
                assert param.name == "fmt", entry.name
                assert list(choices)[:2] == ["text", "json"], entry.name
                assert param.default == "text", entry.name
    assert seen >= 10
