"""`mergegate parse`: decide reviewer outputs and print the verdicts."""

from __future__ import annotations

import click

from mergegate.cli._app import format_option
from mergegate.cli._parse_run import decide_files
from mergegate.errors import UsageError
from mergegate.verdicts import DIALECTS

__all__ = ["parse"]


@click.command("parse")
@click.argument("files", nargs=-1, metavar="[FILE ...|-]")
@click.option(
    "--dialect",
    type=click.Choice(DIALECTS),
    default=None,
    help="Only look for verdicts in this dialect (default: try them all).",
)
@click.option(
    "--review-id",
    default=None,
    metavar="ID",
    help="The nonce the reviewer was asked to echo: only a JSON trailer carrying it may approve.",
)
@click.option(
    "--strict",
    is_flag=True,
    help=(
        "Approve only when the prose after the verdict appraises the change (judges it, "
        "reports a check, denies problems, thanks); a plain statement there is malformed. "
        "The Claude Code hook reads this way."
    ),
)
@format_option(
    "text for people; json: one object (an array for several files); jsonl: one per line.",
    more=("jsonl",),
)
@click.pass_context
def parse(
    ctx: click.Context,
    *,
    files: tuple[str, ...],
    dialect: str | None,
    review_id: str | None,
    strict: bool,
    fmt: str,
) -> None:
    """Read reviewer output (files, or - / nothing for stdin) and print each verdict.

    \b
    Exit codes: 0 every input approves; 1 a real no (fixes or reject);
    3 malformed or empty; 2 an unreadable file (the others are still reported)
    or a bad argument (an empty --review-id).
    """
    if review_id is not None and not review_id.strip():
        raise UsageError("--review-id must not be empty: give the nonce the reviewer was asked for")
    ctx.exit(int(decide_files(files, dialect, review_id, fmt, strict=strict)))
