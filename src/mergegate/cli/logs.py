"""`mergegate logs RUN [TASK]`: a run's agent attempts, or one attempt's whole log, read from
any host with the database URL (docs/fleet.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.cli._table import table_lines
from mergegate.config import load_config, state_dir
from mergegate.errors import UsageError
from mergegate.untrusted import one_line

__all__ = ["logs"]

_LINE_CHARS = 100_000


@click.command("logs")
@click.argument("run_id", metavar="RUN")
@click.argument("task", metavar="[TASK]", required=False)
@click.option(
    "--attempt",
    "number",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="The TASK's N-th attempt, as `mergegate logs RUN` numbers them (default: its last "
    "one, of --role if given).",
)
@click.option(
    "--role",
    default=None,
    metavar="ROLE",
    help="Only attempts of this role: implementer, reviewer, fixer, verifier, check…",
)
@format_option("A table of attempts and the log's bytes, or one JSON object.")
def logs(**opts: Any) -> None:
    """List RUN's agent attempts (each log's host, path, size, SHA-256, and whether it is on
    this host or shipped), or with TASK print one attempt's whole log to stdout.

    \b
    TASK is the start of the attempts' folder paths: PHASE/UNIT/TASK (P1/U1/T1), UNIT/TASK
    when one phase has it, or PHASE/UNIT. The log printed is the file on this host when it is
    the one the attempt wrote, else the copy its worker shipped to the database (or the
    [engine] log_store); either is printed only when its SHA-256 and size are the ones
    recorded. Piped, its exact bytes; on a terminal each line made safe to show (escape
    sequences and controls removed, whitespace folded). Needs only the database URL.
    Exit codes: 0 listed or printed; 1 the log found is not the one recorded (a copy altered,
    a file rewritten): refused, not printed; 2 an unknown run, task, role or attempt, or
    --attempt without TASK; 4 no copy of the log can be read here (not shipped, deleted by
    gc, larger than 16 MiB, a log store not mounted here), or the database cannot be reached.
    """
    from mergegate.engine import (  # noqa: PLC0415 - the engine is imported when used
        LogQuery,
        database_url_of,
        list_attempt_logs,
        read_attempt_log,
    )

    if opts["task"] is None and opts["number"] is not None:
        raise UsageError("--attempt N needs the TASK it numbers (mergegate logs RUN TASK)")
    config = load_config()
    query = LogQuery(
        state_dir=state_dir(config),
        run_id=opts["run_id"],
        database_url=database_url_of(config),
        task=opts["task"],
        role=opts["role"],
        number=opts["number"],
    )
    if opts["task"] is None:
        _list(list_attempt_logs(query), opts["fmt"])
        return
    shown = read_attempt_log(query)
    if shown.note:
        click.echo(f"mergegate: {clean(shown.note, 500)}; the shipped copy is shown", err=True)
    if opts["fmt"] == "json":
        doc = {
            **shown.attempt.as_dict(),
            "source": shown.source,
            "text": shown.data.decode("utf-8", "replace"),
        }
        click.echo(json.dumps(doc, indent=2))
        return
    _print(shown.data)
    r = shown.attempt.record
    source = "the file on this host" if shown.source == "this host" else "its shipped copy"
    click.echo(
        f"{clean(r.attempt, 300)} ({clean(r.role, 40)}, host {clean(r.host, 100)}): "
        f"{r.log_bytes} bytes, sha256 {r.log_sha256} checked, from {source}",
        err=True,
    )


def _list(found: list[Any], fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps([a.as_dict() for a in found], indent=2))
        return
    rows = [
        (
            clean(a.task, 120),
            str(a.number),
            clean(a.record.role, 40),
            clean(a.record.status, 40),
            clean(a.record.host, 60),
            str(a.record.log_bytes),
            a.record.log_sha256[:12],
            a.where,
            clean(a.record.attempt, 200),
        )
        for a in found
    ]
    headers = ("task", "#", "role", "status", "host", "bytes", "sha256", "log", "attempt")
    for line in table_lines(headers, rows, right=(1, 5)):
        click.echo(line)


def _print(data: bytes) -> None:
    """The log to stdout: its bytes when piped; on a terminal, each line without what could
    drive the terminal (an agent's output may hold escape sequences)."""
    if not sys.stdout.isatty():
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    for line in data.decode("utf-8", "replace").splitlines():
        click.echo(one_line(line, _LINE_CHARS))
