"""The suite-wide check that no CLI test shows a console traceback (issue 24) sees one: a
command that lets an exception escape in-process, and a `mergegate` child whose stderr holds
a traceback."""

from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner


def test_the_check_sees_an_escaped_exception_and_a_child_s_traceback(
    console_tracebacks: list[str],
) -> None:
    @click.command()
    def boom() -> None:
        raise RuntimeError("boom")

    CliRunner().invoke(boom, [])
    assert len(console_tracebacks) == 1
    assert "RuntimeError('boom')" in console_tracebacks[0]
    script = "import sys; print('Traceback (most recent call last):', file=sys.stderr)"
    subprocess.run(
        [sys.executable, "-c", script, "-m", "mergegate"], capture_output=True, check=False
    )
    assert len(console_tracebacks) == 2
    console_tracebacks.clear()  # seen: this test passes


def test_text_that_merely_mentions_a_traceback_on_stdout_is_fine(
    console_tracebacks: list[str],
) -> None:
    @click.command()
    def quote() -> None:
        click.echo("the agent wrote: Traceback (most recent call last):")

    CliRunner().invoke(quote, [])
    assert console_tracebacks == []
