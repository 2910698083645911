"""`mergegate report RUN [--output FILE]`: one self-contained HTML file for a run."""

from __future__ import annotations

from pathlib import Path

import click

from mergegate.cli._runs import load_records, load_run
from mergegate.config import load_config
from mergegate.metrics import AlertRules
from mergegate.report import write_report

__all__ = ["report"]


@click.command("report")
@click.argument("run")
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the page (default: <run dir>/report.html).",
)
def report(run: str, output: Path | None) -> None:
    """Write one self-contained HTML page for RUN and print its path.

    \b
    RUN is a run id (its events read from the database that holds the run, else under
    <state>/runs/, then <state>/reviews/) or a run directory.
    The page: the run's timeline (phases, units, tasks, one bar per agent attempt), each
    verdict with its evidence line, findings by severity, checks, verification results,
    alerts, token and cost charts, and the run's reviews and summaries from its database
    (written on whichever host ran them), and each agent log: its path on this host, or
    the copy its worker shipped, written under the run's folder here (shipped-logs/) once
    its SHA-256 checks; else its end, and where it is. No script, no network, no external
    asset; agent text is escaped and a strict Content-Security-Policy forbids anything from
    running.
    Exit codes: 0 written; 2 a run that cannot be found or read, or a file that cannot be
    written.
    """
    config = load_config()
    run_dir, stream = load_run(run, config)
    if output is None:  # a run read from its database may have no folder on this host yet
        run_dir.mkdir(parents=True, exist_ok=True)
    records, logs = load_records(run, config)
    path = write_report(
        run_dir,
        stream=stream,
        output=output,
        rules=AlertRules.from_config(config.alerts),
        records=records,
        logs=logs,
    )
    click.echo(str(path))
