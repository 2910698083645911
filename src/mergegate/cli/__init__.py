"""The `mergegate` command line. The only package that imports click."""

from __future__ import annotations

from mergegate.cli._app import cli
from mergegate.cli.agent import agent
from mergegate.cli.handoff import handoff, schema
from mergegate.cli.hooks import hook, hooks
from mergegate.cli.model_server import model_server
from mergegate.cli.parse import parse
from mergegate.cli.plan import plan
from mergegate.cli.report import report
from mergegate.cli.review import review
from mergegate.cli.run import cancel, resume, run, runs, status
from mergegate.cli.stats import stats
from mergegate.cli.verify import verify
from mergegate.cli.worker import worker, workers

cli.add_command(agent)
cli.add_command(handoff)
cli.add_command(hook)
cli.add_command(hooks)
cli.add_command(model_server)
cli.add_command(parse)
cli.add_command(plan)
cli.add_command(report)
cli.add_command(review)
cli.add_command(schema)
for _command in (run, resume, status, runs, cancel):
    cli.add_command(_command)
cli.add_command(stats)
cli.add_command(verify)
cli.add_command(worker)
cli.add_command(workers)

__all__ = ["cli", "main"]


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="mergegate")
