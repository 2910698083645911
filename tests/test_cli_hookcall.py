"""The hook's click-free argv reader (`cli._hookcall`) reads exactly what click reads.

`mergegate hook claude-code` answers without importing click when its arguments are the plain
ones `mergegate hooks install` writes (issue 23, start-up). Every argv it takes must mean what
click's own parse means; every other argv (help, `--opt=value`, unknown options, bad values,
the latch's subcommands) must go to click, so users see click's help and errors unchanged.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mergegate.cli._hookcall import read_argv
from mergegate.cli.hook import claude_code, gemini
from mergegate.cli.hooks import _command

BIN = Path(sys.executable).parent

PLAIN = [
    ["hook", "claude-code"],
    ["hook", "gemini"],
    ["hook", "claude-code", "--timeout", "5"],
    ["hook", "claude-code", "--timeout", "0.1"],
    ["hook", "claude-code", "--timeout", "300", "--timeout", "7"],
    ["hook", "claude-code", "--subagent-type", "*review*", "--subagent-type", "qa"],
    ["hook", "claude-code", "--prompt-marker", "Ready to merge?", "--result-marker", "LGTM"],
    ["hook", "claude-code", "--fix-subagent-type", "*fix*", "--timeout", "20"],
    ["hook", "gemini", "--result-marker", "", "--timeout", "1e1"],
    ["hook", "claude-code", "--subagent-type", "status"],
    ["hook", "gemini", "--fix-subagent-type", "*fix*"],
]
"""Argv the reader takes: the installed forms, repeated options, a last `--timeout` that wins."""

TO_CLICK = [
    ["hook"],
    ["hook", "claude-code", "--help"],
    ["hook", "claude-code", "-h"],
    ["hook", "claude-code", "--timeout=5"],
    ["hook", "claude-code", "--timeout"],
    ["hook", "claude-code", "--timeout", "0"],
    ["hook", "claude-code", "--timeout", "301"],
    ["hook", "claude-code", "--timeout", "nan"],
    ["hook", "claude-code", "--timeout", "soon"],
    ["hook", "claude-code", "--subagent-type", "--help"],
    ["hook", "claude-code", "--subagent", "x"],
    ["hook", "claude-code", "status"],
    ["hook", "claude-code", "status", "--format", "json"],
    ["hook", "claude-code", "release", "--session", "s", "--reason", "x", "--who"],
    ["hook", "codex"],
    ["parse", "-"],
    ["--help"],
    [],
]
"""Argv the reader leaves to click, even where click accepts it."""


def _click_params(argv: list[str]) -> dict[str, object]:
    command = claude_code if argv[1] == "claude-code" else gemini
    ctx = command.make_context("claude-code", argv[2:])
    return dict(ctx.params)


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_plain_hook_argv_reads_as_click_reads_it(argv: list[str]) -> None:
    call = read_argv(argv)
    assert call is not None
    params = _click_params(argv)
    assert call.tool == argv[1]
    assert call.timeout_s == params.pop("timeout_s")
    assert call.flags == params


@pytest.mark.parametrize("argv", TO_CLICK, ids=lambda argv: " ".join(argv) or "(none)")
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert read_argv(argv) is None


@pytest.mark.parametrize("tool", ["claude-code", "gemini"])
def test_every_installed_command_line_is_read_without_click(tool: str) -> None:
    """`mergegate hooks install`'s command (`hooks._command`), with every option it writes."""
    flags = {
        "subagent-type": ("*review*", "qa agent"),
        "prompt-marker": ("Ready to merge?",),
        "result-marker": ("LGTM",),
        "fix-subagent-type": ("*fix*",) if tool == "claude-code" else (),
    }
    for timeout_s in (None, 45.0, 0.5):
        argv = shlex.split(_command("mergegate", tool, flags, timeout_s))[1:]
        call = read_argv(argv)
        assert call is not None, argv
        params = _click_params(argv)
        assert call.timeout_s == params.pop("timeout_s") == timeout_s
        assert call.flags == params
        assert call.flags["subagent_types"] == ("*review*", "qa agent")


_CLICK = "import sys; from mergegate.cli._app import cli; cli(sys.argv[1:], prog_name='mergegate')"
"""The click group itself, without the console script's own reading of argv."""


@pytest.mark.parametrize(
    "args",
    [
        ["hook", "claude-code", "--help"],
        ["hook", "claude-code", "--timeout", "900"],
        ["hook", "claude-code", "--timeout=0"],
        ["hook", "gemini", "--subagent"],
    ],
    ids=" ".join,
)
def test_help_and_errors_are_clicks_own(args: list[str]) -> None:
    """The console script's help and usage errors match click's, byte for byte."""

    def run(argv: list[str]) -> tuple[int, bytes, bytes]:
        proc = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, check=False)
        return proc.returncode, proc.stdout, proc.stderr

    script = run([str(BIN / "mergegate"), *args])
    assert script == run([sys.executable, "-c", _CLICK, *args])
    assert script[0] in (0, 2)
