"""`mergegate review`: the review gate and, with --fix, the revision loop."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mergegate.agents.base import Backend
from mergegate.agents.git import GitRepository
from mergegate.agents.registry import get_backend
from mergegate.config import Config, load_config, state_dir
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.review import GatePolicy, ReviewLoop, ReviewOptions, ReviewOutcome
from mergegate.review.render import render_outcome_text


def _backend(name: str | None, cmd: str | None, role: str, config: Config) -> Backend:
    if cmd:
        return get_backend("command", cmd=cmd)
    if not name:
        raise UsageError(f"no {role}: pass --{role} NAME or --{role}-cmd, or set review.{role}")
    return get_backend(name, **config.agents.backends.get(name, {}))


def _progress(fmt: str) -> object:
    def emit(message: str) -> None:
        if fmt == "text":
            click.echo(f"mergegate: {message}", err=True)

    return emit


@click.command("review")
@click.option("--base", default=None, help="Base ref of the change (default: HEAD~1).")
@click.option("--head", default=None, help="Head ref of the change (default: HEAD).")
@click.option("--spec", "spec_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Task text and acceptance criteria; enables the spec-compliance stage.")
@click.option("--reviewer", default=None, help="Reviewer backend name (e.g. claude, codex, local).")
@click.option("--reviewer-cmd", default=None, help='Reviewer as a program: "PROGRAM ARGS".')
@click.option("--fix", is_flag=True, help="Drive fix rounds until approval or a cap.")
@click.option("--implementer", default=None, help="Implementer backend name for --fix.")
@click.option("--implementer-cmd", default=None, help='Implementer as a program: "PROGRAM ARGS".')
@click.option("--max-rounds", type=click.IntRange(1, 20), default=None,
              help="Cap on review rounds (default 3).")
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where reports go (default: .mergegate/reviews).")
@click.option("--repo", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=Path("."), show_default=True, help="The git repository.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.pass_context
def review_command(ctx: click.Context, **opts: object) -> None:
    """Review a change and decide, in code, whether it may merge.

    \b
    Exit codes: 0 approved; 1 changes requested or rejected; 2 usage error;
    3 reviewer output undecidable after the retry; 4 agent failure; 5 escalated
    to a person (revision cap or stall).
    """
    raise NotImplementedError
