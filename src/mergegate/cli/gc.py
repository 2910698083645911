"""`mergegate gc`: the unit and progress branches and the shipped agent logs of finished runs
deleted (docs/fleet.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.config import load_config, state_dir
from mergegate.errors import UsageError

__all__ = ["gc"]


@click.command("gc")
@click.argument("run_id", metavar="RUN", required=False)
@click.option(
    "--finished-before",
    type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]),
    default=None,
    metavar="DATE",
    help="Instead of RUN: every run here that finished (completed or cancelled) before DATE "
    "(YYYY-MM-DD[THH:MM:SS], UTC); runs not finished are skipped.",
)
@click.option(
    "--remote",
    metavar="NAME",
    default=None,
    help="The remote to delete them on too: one of this repository's remotes by name, or a "
    "URL (default: the remote a run was queued with, run --queue --remote; none: here only).",
)
@click.option(
    "--include-integration",
    is_flag=True,
    help="Also delete the run's integration branch mergegate/<run> (never a branch given "
    "with run --into).",
)
@click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The git repository (its .mergegate/ holds the runs).",
)
@format_option("One line per branch and log, or one JSON list of runs.")
def gc(**opts: Any) -> None:
    """Delete the branches of a finished RUN (completed or cancelled), or of every run
    finished before --finished-before DATE: its unit branches mergegate-unit/<run>/<unit> and
    progress branches mergegate-wip/<run>/<unit>, in this repository and on the remote, each
    only if it still points where it was listed. The integration branch only with
    --include-integration. And the run's agent logs shipped to the database (or to the
    [engine] log_store directory), except a copy another run not collected shares.

    \b
    Exit codes: 0 done (or listed); 2 usage error (no RUN nor --finished-before, both, or a
    run that is not finished: nothing deleted); 4 the remote or the database cannot be
    reached.
    """
    from mergegate.engine import GcRequest, database_url_of, gc_runs

    run_id, finished_before = opts["run_id"], opts["finished_before"]
    if (run_id is None) == (finished_before is None):
        raise UsageError("name one RUN, or give --finished-before DATE (not both)")
    config = load_config(opts["repo"])
    dry_run = opts["dry_run"]
    found = gc_runs(
        GcRequest(
            state_dir=state_dir(config),
            repo=opts["repo"],
            database_url=database_url_of(config),
            run_id=run_id,
            finished_before=finished_before,
            remote=opts["remote"],
            include_integration=opts["include_integration"],
            dry_run=dry_run,
        )
    )
    if opts["fmt"] == "json":
        click.echo(json.dumps([r.as_dict() for r in found], indent=2))
        return
    verb = "would delete" if dry_run else "deleted"
    for run in found:
        for name in run.local:
            click.echo(f"{run.run_id}: {verb} {name}")
        for name in run.remote:
            click.echo(f"{run.run_id}: {verb} {name} on {clean(run.remote_url or '', 200)}")
        for name in run.kept:
            click.echo(f"{run.run_id}: kept {name} (checked out in a work tree)")
        for log in run.logs:
            where = clean(log.location, 300) if log.location else "in the database"
            click.echo(f"{run.run_id}: {verb} log {log.sha256} ({log.size} bytes, {where})")
            if log.problem:
                click.echo(f"{run.run_id}: log {log.sha256}: {clean(log.problem, 300)}")
    total = sum(len(r.local) + len(r.remote) for r in found)
    logs = sum(len(r.logs) for r in found)
    done = "to delete (a dry run: nothing deleted)" if dry_run else "deleted"
    click.echo(f"{len(found)} run(s), {total} branch(es) and {logs} log(s) {done}", err=True)
