"""`mergegate run`, `resume`, `status`, `runs`, `cancel`: plans executed on durable state."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from mergegate.atomic_files import read_json_validated
from mergegate.cli._progress import MODES, choose_mode, clean
from mergegate.cli._run_view import open_run_view
from mergegate.config import Config, load_config, state_dir
from mergegate.errors import UsageError
from mergegate.plans import Plan

if TYPE_CHECKING:
    from mergegate.engine import RunOptions

# The engine (and DBOS, ~0.3 s to import) is imported inside the commands, so every other
# mergegate command starts as fast as before.

__all__ = ["cancel", "resume", "run", "runs", "status"]

_REPO = click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The git repository (its .mergegate/ holds the runs).",
)
_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="A readable table, or one JSON object at the end.",
)
_PROGRESS = click.option(
    "--progress",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Progress on stderr: rich (a live table), plain (one line per step), none; auto is "
    "rich on a terminal and plain in CI.",
)


def load_plan(path: Path) -> Plan:
    """PLAN → the typed plan. (Until the importers land this reads the plan model as JSON;
    the importers' `load_plan(path)` replaces this one function.)"""
    if not path.is_file():
        raise UsageError(f"no plan file at {path}")
    return read_json_validated(path, Plan)


def _agent(
    name: str | None, cmd: str | None, conf_name: str | None, conf_cmd: str | None
) -> dict[str, Any] | None:
    """Flags beat the config file as a pair."""
    if name or cmd:
        return {"name": name, "cmd": cmd}
    if conf_name or conf_cmd:
        return {"name": conf_name, "cmd": conf_cmd}
    return None


def _options(config: Config, opts: dict[str, Any]) -> RunOptions:
    from mergegate.engine import RunOptions

    run, review, agents = config.run, config.review, config.agents
    return RunOptions(
        concurrency=opts.get("concurrency") or run.concurrency,
        review_mode=review.mode,
        on_escalation=run.on_escalation,
        fix_commits=opts.get("fix_commits") or run.fix_commits,
        max_rounds=opts.get("max_rounds") or review.max_rounds,
        phase=opts.get("phase"),
        agent_timeout_s=agents.default_timeout_s,
        stall_timeout_s=agents.default_stall_timeout_s,
        check_timeout_s=run.check_timeout_s,
        run_wall_s=run.max_wall_s,
        task_wall_s=run.task_wall_s,
        max_tokens=run.max_tokens,
        max_cost_usd=run.max_cost_usd,
    )


def _require_terminal_for_manual(config: Config) -> None:
    if config.review.mode == "manual" and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "review.mode = manual needs a person at a terminal, and there is none here: "
            "nothing was run. Run it in a terminal, or set review.mode = auto."
        )


def _ask_person(text: str) -> bool:
    click.echo(
        clean(text, 4000)
        if "\n" not in text
        else "\n".join(clean(t, 400) for t in text.splitlines())
    )
    return click.confirm("Approve this task?", default=False)


def _print_report(report: dict[str, Any]) -> None:
    click.echo(
        f"run {report['run_id']}: {report['status']} (exit {report['exit_code']}) "
        f"into {report['into']}"
    )
    for unit in report["units"]:
        merge = (unit.get("merge_commit") or "-")[:12]
        reason = clean(unit.get("reason") or "", 160)
        click.echo(
            f"  {clean(unit['phase'], 30)}/{clean(unit['id'], 40)}  "
            f"{unit['status']:<20} {merge:<12} {reason}".rstrip()
        )
    click.echo(f"reports: {report['run_dir']}")


def _emit(report: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_report(report)


def _execute(config: Config, state: Path, run_id: str, opts: dict[str, Any]) -> dict[str, Any]:
    from mergegate.engine import execute_run

    mode = choose_mode(opts["progress"], isatty=sys.stderr.isatty(), env=os.environ)
    console = Console(file=sys.stderr)
    with open_run_view(mode, console, lambda line: click.echo(line, err=True)) as (listener, tick):
        human = _ask_person if config.review.mode == "manual" else None
        return execute_run(state, run_id, config, listener=listener, human=human, tick=tick)


@click.command("run")
@click.argument("plan_file", metavar="PLAN", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--implementer", default=None, help="Implementer backend (default: review.implementer)."
)
@click.option("--implementer-cmd", default=None, help='Implementer as a program: "PROGRAM ARGS".')
@click.option("--reviewer", default=None, help="Reviewer backend (default: review.reviewer).")
@click.option("--reviewer-cmd", default=None, help='Reviewer as a program: "PROGRAM ARGS".')
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=None,
    help="Units at once in a wave (run.concurrency, 2).",
)
@click.option("--phase", default=None, help="Run only this phase (by id).")
@click.option(
    "--into", default=None, help="Integration branch (default: mergegate/<run-id>, made from HEAD)."
)
@click.option(
    "--max-rounds",
    type=click.IntRange(1, 50),
    default=None,
    help="Revision rounds per task (review.max_rounds, 3).",
)
@click.option(
    "--fix-commits",
    type=click.Choice(["separate", "amend"]),
    default=None,
    help="Fix commits apart, or folded into the task commit.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print what would run (phases, waves, units, tasks, checks); run nothing.",
)
@_REPO
@_FORMAT
@_PROGRESS
@click.pass_context
def run(ctx: click.Context, /, plan_file: Path, **opts: Any) -> None:
    """Execute PLAN: implementer agents, a two-stage review after every task, bounded fix
    rounds, and one --no-ff merge per unit into the integration branch.

    \b
    Exit codes: 0 every unit merged; 2 usage error; 3 a review stayed undecidable;
    4 agent failure (or cancelled); 5 escalated to a person, or waiting for one.
    """
    from mergegate.engine import RunRequest, create_run, dry_run_lines

    config = load_config(opts["repo"])
    plan = load_plan(plan_file)
    options = _options(config, opts)
    if opts["dry_run"]:
        for line in dry_run_lines(plan, options):
            click.echo(line)
        ctx.exit(0)
    _require_terminal_for_manual(config)
    review = config.review
    implementer = _agent(
        opts["implementer"], opts["implementer_cmd"], review.implementer, review.implementer_cmd
    )
    if implementer is None:
        raise UsageError("no implementer: pass --implementer NAME or --implementer-cmd")
    reviewer = _agent(opts["reviewer"], opts["reviewer_cmd"], review.reviewer, review.reviewer_cmd)
    state = state_dir(config)
    record = create_run(
        RunRequest(
            plan=plan,
            repo=opts["repo"],
            state_dir=state,
            implementer=implementer,
            reviewer=reviewer,
            options=options,
            plan_path=str(plan_file),
            into=opts["into"],
        )
    )
    click.echo(f"mergegate: run {record.run_id} into {record.into}", err=True)
    report = _execute(config, state, record.run_id, opts)
    _emit(report, opts["fmt"])
    ctx.exit(int(report["exit_code"] or 0))


def _parse_answer(text: str) -> tuple[str, str]:
    key, sep, answer = text.rpartition("=")
    if not sep or not key:
        raise UsageError(f"--answer {text!r}: expected TASK=approve|reject")
    return key, answer


@click.command("resume")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--answer",
    "answers",
    multiple=True,
    help="A checkpoint's answer: TASK=approve|reject (or UNIT/TASK=...).",
)
@click.option("--note", default="", help="A note recorded with the answers.")
@_REPO
@_FORMAT
@_PROGRESS
@click.pass_context
def resume(ctx: click.Context, /, run_id: str, **opts: Any) -> None:
    """Continue RUN after a crash or a stop, or answer its checkpoint tasks and go on."""
    from mergegate.engine import answer_checkpoints

    state = state_dir(load_config(opts["repo"]))
    parsed = [(*_parse_answer(a), opts["note"]) for a in opts["answers"]]
    record = answer_checkpoints(state, run_id, parsed)
    config = load_config(Path(record.repo))
    _require_terminal_for_manual(config)
    report = _execute(config, state, run_id, opts)
    _emit(report, opts["fmt"])
    ctx.exit(int(report["exit_code"] or 0))


@click.command("status")
@click.argument("run_id", metavar="RUN")
@_REPO
@_FORMAT
def status(run_id: str, repo: Path, fmt: str) -> None:
    """Where RUN stands: its units, their status and merge commits."""
    from mergegate.engine import run_report

    _emit(run_report(state_dir(load_config(repo)), run_id), fmt)


@click.command("runs")
@_REPO
@_FORMAT
def runs(repo: Path, fmt: str) -> None:
    """Every run in this repository's state directory, oldest first."""
    from mergegate.engine import list_runs

    found = list_runs(state_dir(load_config(repo)))
    if fmt == "json":
        click.echo(json.dumps(found, indent=2))
        return
    for entry in found:
        click.echo(
            f"{entry['run_id']}  {entry['status']:<18} {entry['started']}  "
            f"{clean(str(entry['plan']), 80)}"
        )


@click.command("cancel")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--clean", "clean_", is_flag=True, help="Also remove the work trees of unfinished units."
)
@_REPO
@_FORMAT
def cancel(run_id: str, clean_: bool, repo: Path, fmt: str) -> None:
    """Stop RUN: kill its agents, cancel its workflows, mark it cancelled (work trees kept)."""
    from mergegate.engine import cancel_run

    _emit(cancel_run(state_dir(load_config(repo)), run_id, clean=clean_), fmt)
