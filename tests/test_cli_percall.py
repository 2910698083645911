"""The per-call commands' click-free argv reader (`cli._percall`) reads what click reads.

`mergegate hook claude-code` and `mergegate parse` answer without importing click when their
arguments are plain (issue 23, start-up): the ones `mergegate hooks install` writes, files and
`--NAME VALUE` options. Every argv it takes must mean what click's own parse means, and print
the same; every other argv (help, `--opt=value`, unknown options, bad values, the latch's
subcommands) must go to click, so users see click's help and errors unchanged.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from mergegate.cli import _percall
from mergegate.cli._percall import guarded, read_hook_argv, read_parse_argv
from mergegate.cli.hook import claude_code, gemini
from mergegate.cli.hooks import _command
from mergegate.cli.parse import parse
from mergegate.config._hooks import HooksSection
from mergegate.errors import UsageError
from mergegate.integrations._hook import MAX_INPUT_BYTES

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
    call = read_hook_argv(argv)
    assert call is not None
    params = _click_params(argv)
    assert call.tool == argv[1]
    assert call.timeout_s == params.pop("timeout_s")
    assert call.flags == params


@pytest.mark.parametrize("argv", TO_CLICK, ids=lambda argv: " ".join(argv) or "(none)")
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert read_hook_argv(argv) is None


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
        call = read_hook_argv(argv)
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
        ["parse", "--help"],
        ["parse", "--format", "yaml"],
        ["parse", "--review-id", ""],
        ["parse", "--dialect", "nope", "-"],
    ],
    ids=" ".join,
)
def test_help_and_errors_are_clicks_own(args: list[str]) -> None:
    """The console script's help and usage errors match click's, byte for byte."""
    script = _run([str(BIN / "mergegate"), *args])
    assert script == _run([sys.executable, "-c", _CLICK, *args])
    assert script[0] in (0, 2)


PARSE_PLAIN = [
    ["parse"],
    ["parse", "-"],
    ["parse", "a.md", "-", "b.md"],
    ["parse", "--format", "json", "a.md"],
    ["parse", "a.md", "--format", "jsonl", "b.md", "--format", "text"],
    ["parse", "--dialect", "superpowers", "--review-id", "r-1", "-"],
]
PARSE_TO_CLICK = [
    ["parse", "--help"],
    ["parse", "-h"],
    ["parse", "--format=json"],
    ["parse", "--format", "yaml"],
    ["parse", "--format"],
    ["parse", "--dialect", "no-such-dialect"],
    ["parse", "--review-id", " "],
    ["parse", "--review-id", "--format"],
    ["parse", "--", "-x.md"],
    ["parse", "-x.md"],
    ["parse", "--quiet", "a.md"],
    ["parsed"],
]


@pytest.mark.parametrize("argv", PARSE_PLAIN, ids=" ".join)
def test_plain_parse_argv_reads_as_click_reads_it(argv: list[str]) -> None:
    call = read_parse_argv(argv)
    assert call is not None
    params = parse.make_context("parse", argv[1:]).params
    assert call._asdict() == params


@pytest.mark.parametrize("argv", PARSE_TO_CLICK, ids=" ".join)
def test_any_other_parse_argv_goes_to_click(argv: list[str]) -> None:
    assert read_parse_argv(argv) is None


def test_parse_prints_and_exits_as_the_click_command_does(tmp_path: Path) -> None:
    """Text, JSON and JSON lines; several files, an unreadable one, stdin; exit codes."""
    approve = tmp_path / "approve.md"
    approve.write_text("### Assessment\n\n**Ready to merge? Yes**\n\nAll criteria met.\n")
    fixes = tmp_path / "fixes.md"
    fixes.write_text("**Ready to merge?** With fixes\n\n#### Important\n1. **Bug** (a.py:3) x\n")
    hostile = tmp_path / "hostile.md"
    hostile.write_text("Ready to merge? Yes\u202e\x1b[31m\n\nwait, no: \u200bnot yet\n")
    stdin = b"**Ready to merge? No**\n\n#### Critical\n1. **Data loss** (b.py:9) y\n"
    files = [str(approve), str(fixes), str(hostile)]
    for args in (
        ["parse", *files],
        ["parse", *files, str(tmp_path / "missing.md"), "--format", "json"],
        ["parse", "--format", "jsonl", "-", str(fixes)],
        ["parse", str(approve)],
        ["parse", "--format", "json", str(hostile)],
        ["parse"],
        ["parse", "--dialect", "superpowers", "--review-id", "r-1", str(approve)],
    ):
        script = _run([str(BIN / "mergegate"), *args], stdin)
        assert script == _run([sys.executable, "-c", _CLICK, *args], stdin), args
        assert read_parse_argv(args) is not None


def _run(argv: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    proc = subprocess.run(argv, input=stdin, capture_output=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def test_errors_become_exit_codes_as_the_click_group_makes_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`guarded` is `_app.MergegateGroup.invoke`'s contract: one line, the error's code."""

    def usage() -> int:
        raise UsageError("bad input")

    def interrupted() -> int:
        raise KeyboardInterrupt

    assert guarded(usage) == 2
    assert capsys.readouterr().err == "mergegate: error: bad input\n"
    assert guarded(interrupted) == 130
    assert capsys.readouterr().err == "\nmergegate: interrupted\n"
    assert guarded(lambda: 3) == 3


def test_the_readers_copies_of_the_commands_options_are_the_commands_own() -> None:
    """`_percall` repeats a few facts of the click commands and the hook (importing them
    would load what it exists to avoid); each copy must stay what it copies."""
    assert _percall._MAX_INPUT_BYTES == MAX_INPUT_BYTES
    assert HooksSection().timeout_s == _percall._DEFAULT_TIMEOUT_S
    for command in (claude_code, gemini):
        params = {p.name: p for p in command.params}
        timeout = params["timeout_s"]
        assert isinstance(timeout.type, click.FloatRange)
        assert (timeout.type.min, timeout.type.max) == _percall._TIMEOUT_RANGE
        lists = {p.opts[0]: p.name for p in command.params if p.multiple}
        assert lists == _percall._LISTS
    assert set(_percall._TOOLS) == {claude_code.name, gemini.name}
    fmt = next(p for p in parse.params if p.name == "fmt" or "--format" in p.opts)
    assert isinstance(fmt.type, click.Choice)
    assert tuple(fmt.type.choices) == _percall._PARSE_FORMATS
