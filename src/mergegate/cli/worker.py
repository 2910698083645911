"""`mergegate worker` and `mergegate workers recover`: the fleet (docs/fleet.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.cli._table import table_lines
from mergegate.config import StateLayout, load_config, state_dir
from mergegate.errors import UsageError

if TYPE_CHECKING:
    from mergegate.engine import RunEvent

__all__ = ["worker", "workers"]

_EXECUTOR_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _checked_id(executor_id: str) -> str:
    """A worker id as `[engine] executor_id` allows it (it names folders and log lines)."""
    if not _EXECUTOR_ID.fullmatch(executor_id):
        raise UsageError(
            f"not a worker id: {clean(executor_id, 80)!r} (letters, digits, '.', '_', '-'; "
            "at most 64, starting with a letter or digit)"
        )
    return executor_id


def _print_event(executor_id: str) -> Callable[[str, RunEvent], None]:
    def listener(run_id: str, event: RunEvent) -> None:
        where = "/".join(p for p in (event.phase, event.unit, event.task) if p)
        line = f"[{executor_id}] {run_id} {event.kind} {where}: {event.message}"
        click.echo(clean(line, 400), err=True)

    return listener


@click.command("worker")
@click.option(
    "--id",
    "executor_id",
    default=None,
    help="This worker's stable id (default: [engine] executor_id). A worker started again "
    "with the same id recovers the units it held.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=None,
    help="Units at once on this worker ([engine] worker_concurrency, else run.concurrency); "
    "each worker keeps its own number.",
)
@click.option(
    "--global-concurrency",
    type=click.IntRange(1, 10_000),
    default=None,
    help="Units at once across the fleet ([engine] global_concurrency). Stored once for the "
    "fleet by the first run --queue or worker that names it, and read from there by the "
    "workers that name none (no cap when none was); another value is refused (exit 2).",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where this worker keeps its units' workspaces (default: <state>/workers/<id>).",
)
@click.option(
    "--recover-silent-after",
    "recover_after",
    type=click.FloatRange(min=10.0),
    default=None,
    metavar="SECONDS",
    help="Recover, by itself, the work of any worker silent for longer than this (its last "
    "beat, every 2 s, by the database's clock), as `workers recover` does by hand. A worker "
    "only cut off for longer would run its units twice: choose minutes. Default: [engine] "
    "recover_silent_after_s, else never.",
)
def worker(
    executor_id: str | None,
    concurrency: int | None,
    global_concurrency: int | None,
    workdir: Path | None,
    recover_after: float | None,
) -> None:
    """Take runs and units from the fleet's queues (Postgres, [engine] database_url or
    MERGEGATE_DATABASE_URL) until stopped with SIGTERM or Ctrl-C.

    \b
    Exit codes: 0 stopped; 2 usage error (no Postgres database configured, or a
    --global-concurrency other than the fleet's stored one); 4 the database cannot be reached.
    """
    from mergegate.engine import Worker, WorkerOptions

    config = load_config(Path.cwd())
    name = _checked_id(executor_id or config.engine.executor_id)
    options = WorkerOptions(
        executor_id=name,
        workdir=(workdir or StateLayout(state_dir(config)).worker(name)).resolve(),
        concurrency=concurrency or config.engine.worker_concurrency or config.run.concurrency,
        global_concurrency=global_concurrency or config.engine.global_concurrency,
        polling_interval_s=config.engine.polling_interval_s,
        recover_silent_after_s=recover_after or config.engine.recover_silent_after_s,
    )
    running = Worker(options, config, _print_event(name))

    def _stop(_signum: int, _frame: FrameType | None) -> None:
        running.stop()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    running.serve(
        ready=lambda: click.echo(
            f"mergegate: worker {name} ready (work directory {options.workdir})", err=True
        )
    )
    click.echo(f"mergegate: worker {name} stopped", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # The threads of units in flight belong to a DBOS that is shut down: they can record
    # nothing more (their units stay pending for this id, as after a crash) and never finish;
    # a normal exit would wait for them forever.
    os._exit(0)


_FORMAT = format_option("A readable text, or JSON.")


@click.group("workers")
def workers() -> None:
    """Look after the fleet's workers."""


@workers.command("list")
@_FORMAT
def list_workers(fmt: str) -> None:
    """Every worker of the fleet: its last beat, state, host and pid, and how many pending
    workflows it holds. A `running` worker silent for long that still holds work is likely
    dead: `mergegate workers recover ID`."""
    from mergegate.engine import fleet_workers

    found = fleet_workers(load_config(Path.cwd()))
    if fmt == "json":
        click.echo(json.dumps([w._asdict() for w in found], indent=2))
        return
    rows = [
        [
            clean(w.executor_id, 24),
            w.state,
            "never" if w.silent_s is None else f"{w.silent_s:.0f} s ago",
            str(w.holds),
            f"{clean(w.host, 60)} ({w.pid})" if w.host else "-",
        ]
        for w in found
    ]
    headers = ["worker", "state", "last beat", "holds", "host (pid)"]
    for line in table_lines(headers, rows, right=[3]):
        click.echo(line)


@workers.command("recover")
@click.argument("executor_id", metavar="ID")
@_FORMAT
def recover(executor_id: str, fmt: str) -> None:
    """Give the units of worker ID, which is gone for good, to the live workers: kill the
    agent processes it left on this host, and put its pending work back on the queues.

    Only for a worker that is really dead: one still running would run its units twice.
    A worker that comes back with the same id recovers its own units by itself.
    """
    from mergegate.engine import recover_worker

    done = recover_worker(load_config(Path.cwd()), _checked_id(executor_id))
    if fmt == "json":
        found = {
            "executor_id": executor_id,
            "killed_groups": done.killed,
            "recovered": done.recovered,
            "orphaned": done.orphaned,
        }
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(
        f"worker {clean(executor_id, 80)}: {len(done.recovered)} workflow(s) back on the "
        f"queues, {done.killed} process group(s) killed"
        + (
            f", {done.orphaned} on another host recorded as orphaned (mergegate status)"
            if done.orphaned
            else ""
        )
    )
