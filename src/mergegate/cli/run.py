"""`mergegate run`, `resume`, `status`, `runs`, `cancel`: plans executed on durable state."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from mergegate.cli._app import format_option
from mergegate.cli._interrupt import exit_now, interruptible
from mergegate.cli._progress import MODES, choose_mode, clean, model_activity
from mergegate.cli._run_view import open_run_view
from mergegate.cli._sandbox import sandbox_options, sandbox_policy
from mergegate.cli._table import table_lines
from mergegate.config import Config, StateLayout, load_config, state_dir
from mergegate.errors import RunInterruptedError, UsageError
from mergegate.plans import read_plan

if TYPE_CHECKING:
    from mergegate.engine import (
        AgentSpec,
        Answers,
        OrphanEntry,
        RunAgents,
        RunOptions,
        RunReport,
        UnitEntry,
    )

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
_FORMAT = format_option("A readable table, or one JSON object at the end.")
_FAIL_ON_ALERT = click.option(
    "--fail-on-alert/--no-fail-on-alert",
    "fail_on_alert",
    default=None,
    help="Exit 5 when the run raised an alert, even if everything merged "
    "(default: [alerts] fail_on_alert, off).",
)
_PROGRESS = click.option(
    "--progress",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Progress on stderr: rich (a live table), plain (one line per step, and one at least "
    "every 10 s while an agent works), none; auto is rich on a terminal and plain in CI.",
)
_STREAM_AGENTS = click.option(
    "--stream-agents",
    is_flag=True,
    help="Forward every agent's output to stderr as it comes, each line prefixed with its "
    "unit, task and role (implementer, reviewer, fixer, advisor, verifier); off by default. "
    "Shown only: decisions are made from the logged output as without it.",
)


def _agent(
    name: str | None, cmd: str | None, conf_name: str | None = None, conf_cmd: str | None = None
) -> AgentSpec | None:
    """Flags beat the config file as a pair."""
    from mergegate.engine import AgentSpec

    if name and cmd:
        raise UsageError(f"give a name or a command, not both: {name!r} and {cmd!r}")
    if name or cmd:
        return AgentSpec(name=name, cmd=cmd)
    if conf_name or conf_cmd:
        return AgentSpec(name=conf_name, cmd=conf_cmd)
    return None


def _options(config: Config, opts: dict[str, Any]) -> RunOptions:
    from mergegate.engine import RunOptions

    return RunOptions.from_config(
        config,
        concurrency=opts.get("concurrency"),
        phase=opts.get("phase"),
        max_rounds=opts.get("max_rounds"),
        fix_commits=opts.get("fix_commits"),
        sandbox=sandbox_policy(config, opts),
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


_RESUMABLE = ("crashed", "interrupted")


def _shown(status: str, run_id: str) -> str:
    """A status as a person reads it: a run to resume says so."""
    return f"{status} (resume {run_id})" if status in _RESUMABLE else status


def _print_report(report: RunReport) -> None:
    exit_code = "-" if report.exit_code is None else report.exit_code
    click.echo(
        f"run {report.run_id}: {_shown(report.status, report.run_id)} "
        f"(exit {exit_code}) into {report.into}"
        + (f" on {clean(report.remote, 300)}" if report.remote else "")
    )
    if report.worker:  # a queued run: the fleet worker running its phases and merges
        click.echo(f"  run held by worker {clean(report.worker, 64)}")
    for orphan in report.orphaned or []:  # a dead worker's agent on another host
        click.echo(f"  orphaned: {_orphan_line(orphan)}")
    click.echo(f"  sandbox: {clean(report.sandbox.summary, 2000)}")
    units = report.units
    header, *lines = table_lines(
        ["phase/unit", "status", "merge", "reason"], [_unit_row(u) for u in units], indent=2
    )
    click.echo(header)
    for unit, line in zip(units, lines, strict=True):  # one line a row: nothing wraps
        click.echo(line)
        _print_outputs(unit)
    for phase in report.phases:
        found = phase.verification
        if found is not None:
            click.echo(
                f"  phase {clean(phase.id, 30)} verification: {found.status} — "
                f"{clean(found.reason, 200)}"
            )
            click.echo(f"    report: {clean(found.report, 1000)}")
            if found.questions:
                click.echo(f"    open: {clean(', '.join(found.questions), 400)}")
    if report.message:
        click.echo(f"  {clean(report.message, 400)}")
    for answer in report.answers:
        note = f": {clean(answer.note, 200)}" if answer.note else ""
        click.echo(
            f"  answer {clean(answer.unit + '/' + answer.task, 80)}={answer.answer} "
            f"by {clean(answer.who, 60)} at {answer.at}{note}"
        )
    _print_observed(report)
    # the card's copy marks a host that has the run's folder (`report` elsewhere makes an
    # empty one for its page)
    if (Path(report.run_dir) / "run.json").is_file():
        click.echo(f"reports: {report.run_dir} (SUMMARY.md, and one folder per phase and unit)")
    else:  # a host with only the database URL: the reviews and summaries are rows
        click.echo(
            f"reports: not on this host; mergegate report {report.run_id} shows every review "
            "and summary from the run's database"
        )
    if report.next:
        click.echo(f"next: {clean(report.next, 1000)}")


def _orphan_line(orphan: OrphanEntry) -> str:
    """Whose agent it is, where it runs and who found it; what to do about it."""
    worker = clean(orphan.worker, 64)
    whose = (  # the worker started again elsewhere under its id found its own
        f"an earlier process of worker {worker}"
        if orphan.noted_by == orphan.worker
        else f"dead worker {worker}"
    )
    where = "another host" if orphan.host is None else f"host {clean(orphan.host, 255)}"
    found = clean(orphan.noted_by, 64) + (
        f" on {clean(orphan.noted_on, 255)}" if orphan.noted_on is not None else ""
    )
    return (
        f"{clean(orphan.program, 80)} (pid {orphan.pid}) of {whose} on {where} (found by "
        f"{found}): start {worker} again there, or kill its process group there"
    )


def _unit_row(unit: UnitEntry) -> list[str]:
    reason = clean(unit.reason, 160)
    if unit.worker:  # a queued run: the fleet worker that holds the unit now
        reason = f"[worker {clean(unit.worker, 64)}] {reason}"
    where = f"{clean(unit.phase, 30)}/{clean(unit.id, 40)}"
    return [where, unit.status, (unit.merge_commit or "-")[:12], reason]


def _print_outputs(unit: UnitEntry) -> None:
    """Seed 000: a review no verdict could be read from shows the reviewer's outputs."""
    for task in unit.tasks:
        for n, text in enumerate(task.review_outputs, start=1):
            shown = clean(text, 300) or "(no output)"
            click.echo(f'    {clean(task.id, 40)} output of attempt {n} (excerpt): "{shown}"')


def _print_observed(report: RunReport) -> None:
    """The run's numbers, its alerts and the HTML report's path (texts quote agent output)."""
    from mergegate.engine import RunCounts

    metrics = report.metrics if isinstance(report.metrics, RunCounts) else None
    if metrics is not None:
        approval = metrics.first_pass_approval_rate
        click.echo(
            f"  {metrics.tasks} task(s), {metrics.agent_attempts} agent attempt(s), "
            f"{metrics.fix_rounds} fix round(s), first-pass approval "
            f"{'-' if approval is None else f'{approval:.0%}'}, {metrics.tokens:,} tokens, "
            f"${metrics.cost_usd:.4f}"
        )
    for alert in report.alerts:
        click.echo(f"  alert {alert.rule}: {clean(alert.message, 300)}")
    if not report.alerts and metrics is not None:
        click.echo("  no alert")
    if report.report:
        click.echo(f"report: {clean(report.report, 1000)}")


def _emit(report: RunReport, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(report.dump(), indent=2, ensure_ascii=False))
    else:
        _print_report(report)


def _exit_code(report: RunReport, config: Config, fail_on_alert: bool | None) -> int:
    """The run's exit code; with --fail-on-alert, an alert makes it at least 5."""
    from mergegate.events import Alert
    from mergegate.metrics import exit_code_for

    fail = config.alerts.fail_on_alert if fail_on_alert is None else fail_on_alert
    alerts = [Alert.model_validate(a.model_dump()) for a in report.alerts]
    return exit_code_for(report.exit_code or 0, alerts, fail_on_alert=fail)


def _execute(config: Config, state: Path, run_id: str, opts: dict[str, Any]) -> RunReport:
    """The run executed here, its report. A first Ctrl-C (or SIGTERM) stops it: its report
    and how to resume are printed, and the process ends at once with 130."""
    from mergegate.engine import execute_run

    mode = choose_mode(opts["progress"], isatty=sys.stderr.isatty(), env=os.environ)
    console = Console(file=sys.stderr)
    try:
        with (
            interruptible() as stop,
            open_run_view(
                mode,
                console,
                lambda line: click.echo(line, err=True),
                model_activity,
                stream_agents=opts["stream_agents"],
            ) as (listener, tick),
        ):
            human = _ask_person if config.review.mode == "manual" else None
            return execute_run(
                state,
                run_id,
                config,
                listener=listener,
                human=human,
                tick=tick,
                stop=stop,
                stream_agents=opts["stream_agents"],
            )
    except RunInterruptedError as exc:
        from mergegate.engine import database_url_of, run_report

        with contextlib.suppress(Exception):  # the report is a courtesy: exit 130 regardless
            _emit(run_report(state, run_id, database_url_of(config)), opts["fmt"])
        click.echo(f"mergegate: {exc}", err=True)
        exit_now()
        raise  # pragma: no cover - exit_now does not return


def _agents(config: Config, opts: dict[str, Any], options: RunOptions) -> RunAgents:
    """The run's agents; `UsageError` (exit 2) naming the choices when a role is missing."""
    from mergegate.agents import backend_names
    from mergegate.engine import RunAgents

    review = config.review
    choices = ", ".join(backend_names())
    implementer = _agent(
        opts["implementer"], opts["implementer_cmd"], review.implementer, review.implementer_cmd
    )
    if implementer is None:
        raise UsageError(
            f"no implementer: pass --implementer NAME (one of {choices}) or --implementer-cmd "
            '"PROGRAM ARGS", or set [review] implementer'
        )
    reviewer = _agent(opts["reviewer"], opts["reviewer_cmd"], review.reviewer, review.reviewer_cmd)
    if reviewer is None and options.review_mode != "off":
        raise UsageError(
            f"no reviewer: pass --reviewer NAME (one of {choices}) or --reviewer-cmd "
            '"PROGRAM ARGS", or set [review] reviewer (or review.mode = off)'
        )
    return RunAgents(
        implementer=implementer,
        reviewer=reviewer,
        verifier=_agent(opts["verifier"], opts["verifier_cmd"]),
        **_advisors(config, opts),
    )


def _preflight(agents: RunAgents, config: Config) -> int:
    """Every agent of the run usable here, or `AgentError` (exit 4) in one line; how many
    backends were checked."""
    from mergegate.engine import check_agents, require_ready

    checks = check_agents(agents, config)
    require_ready(checks)
    return len(checks)


def _advisors(config: Config, opts: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The flags replace `[agents] advisors` and `advisor_cmds` together when either is given;
    every advisor is built once here, so an unknown name is a usage error before the run."""
    from mergegate.implementer import advisors_from_config

    names, cmds = tuple(opts["advisors"]), tuple(opts["advisor_cmds"])
    if not names and not cmds:
        names, cmds = config.agents.advisors, config.agents.advisor_cmds
    advisors_from_config(config, names=names, cmds=cmds)
    return {"advisors": names, "advisor_cmds": cmds}


@click.command("run")
@click.argument("plan_file", metavar="PLAN", type=click.Path(path_type=Path))
@click.option(
    "--implementer", default=None, help="Implementer backend (default: review.implementer)."
)
@click.option("--implementer-cmd", default=None, help='Implementer as a program: "PROGRAM ARGS".')
@click.option("--reviewer", default=None, help="Reviewer backend (default: review.reviewer).")
@click.option("--reviewer-cmd", default=None, help='Reviewer as a program: "PROGRAM ARGS".')
@click.option(
    "--verifier",
    default=None,
    help="Verifier agent for criteria in prose at each phase boundary (default: none; "
    "they are left to a person, never passed).",
)
@click.option("--verifier-cmd", default=None, help='Verifier as a program: "PROGRAM ARGS".')
@click.option(
    "--advisor",
    "advisors",
    multiple=True,
    metavar="NAME[:MODEL]",
    help="An advisor backend, consulted when an implementer asks for help (>>>HELP<<<); "
    "repeatable. With --advisor or --advisor-cmd, [agents] advisors and advisor_cmds are "
    "ignored. Without any advisor, a help request escalates the task.",
)
@click.option(
    "--advisor-cmd",
    "advisor_cmds",
    multiple=True,
    metavar="CMD",
    help='An advisor as a program: "PROGRAM ARGS" ({prompt_file} is the request); repeatable.',
)
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
@click.option(
    "--queue",
    is_flag=True,
    help="Enqueue the run for a fleet of `mergegate worker`s (needs [engine] database_url on "
    "Postgres) and print its id; nothing runs here.",
)
@click.option(
    "--remote",
    metavar="URL",
    default=None,
    help="With --queue, for workers on other hosts: the git remote they share, one of this "
    "repository's remotes by name (origin) or a URL (ssh://…, user@host:path, or a path; "
    "[engine] remote). The integration branch is pushed there now; each worker keeps a "
    "mirror under its --workdir, pushes unit branches there and merges there. Without it, "
    "every worker must reach this repository.",
)
@click.option(
    "--global-concurrency",
    type=click.IntRange(1, 10_000),
    default=None,
    help="With --queue: units at once across the fleet ([engine] global_concurrency). "
    "Stored once for the fleet by the first run --queue or worker that names it; another "
    "value later is refused (exit 2) with the stored one named.",
)
@sandbox_options
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Start although the work tree has uncommitted changes (the run starts from HEAD "
    "and leaves them out); without it, a dirty tree is refused with the list of paths.",
)
@_FAIL_ON_ALERT
@_REPO
@_FORMAT
@_PROGRESS
@_STREAM_AGENTS
@click.pass_context
def run(ctx: click.Context, /, plan_file: Path, **opts: Any) -> None:
    """Execute PLAN: implementer agents, a two-stage review after every task, bounded fix
    rounds, one --no-ff merge per unit into the integration branch, and a verification of
    every phase before the next one starts.

    Each implementer ends its task with an `agent-result` JSON object (asked again in the
    same session while invalid); one that writes >>>HELP<<< alone on a line is paused while
    the advisors are consulted, then resumed with their guidance (agents.max_help_requests
    per task). Command agents find MERGEGATE_RUN_ID and MERGEGATE_TASK_ID in their env.

    Every agent and task check runs in a sandbox (bubblewrap, docs/sandbox.md): its own
    workspace, a private HOME and /tmp, nothing else of yours, and nothing it starts
    outlives its step. Where none can be made the run is refused (exit 4) unless
    --no-sandbox is given; --sandbox-allow/--sandbox-read open more on purpose. Task checks
    get `verify`'s allow-listed environment (no API keys).

    PLAN is anything `mergegate plan show` reads (a GSD `.planning` tree, a superpowers or
    spectacular plan, a native YAML plan) or a JSON file of the plan model.

    The run's typed events go to its database (`mergegate stats RUN`, from any host with
    the database URL; a copy of this process's in <run dir>/events.jsonl), its alerts
    ([alerts] thresholds) are shown as they rise and listed at the end, and one
    self-contained HTML page is written to <run dir>/report.html (`mergegate report RUN`).

    \b
    Exit codes: 0 every unit merged and every phase verified; 2 usage error; 3 a review
    stayed undecidable; 4 agent failure (or cancelled); 5 escalated to a person, or waiting
    for one (a checkpoint, or a phase whose verification did not pass), or, with
    --fail-on-alert, an alert was raised.
    """
    from mergegate.engine import RunRequest, create_run, database_url_of, dry_run_lines

    if opts["remote"] is not None and not opts["queue"]:
        raise UsageError("--remote is for a run queued for a fleet: add --queue")
    if opts["global_concurrency"] is not None and not opts["queue"]:
        raise UsageError("--global-concurrency is for a run queued for a fleet: add --queue")
    config = load_config(opts["repo"])
    remote = opts["remote"] or (config.engine.remote if opts["queue"] else None)
    if remote is not None:
        from mergegate.git import remote_url

        # a remote's name resolved, an allowed protocol, no password: before anything is made
        remote = remote_url(opts["repo"], remote)
    loaded = read_plan(plan_file)
    options = _options(config, opts)
    if opts["dry_run"]:
        lines = dry_run_lines(loaded.plan, options)  # the plan's errors before the agents'
        checked = _preflight(_agents(config, opts, options), config)
        for line in lines:
            indent = len(line) - len(line.lstrip(" "))  # plan text is cleaned, the layout kept
            click.echo(" " * indent + clean(line, 2000))
        click.echo(f"preflight: {checked} agent backend(s) usable")
        ctx.exit(0)
    if opts["queue"]:
        from mergegate.engine import fleet_database_url, settle_global_concurrency

        url = fleet_database_url(config)  # a usage error before anything is made
        if config.review.mode == "manual":
            raise UsageError(
                "review.mode = manual needs a person at a terminal, and a fleet worker has "
                "none: nothing was queued. Set review.mode = auto, or run it here without --queue."
            )
        wanted = opts["global_concurrency"] or config.engine.global_concurrency
        if wanted is not None:  # stored once for the fleet; another value is refused
            settle_global_concurrency(url, wanted)
    else:
        _require_terminal_for_manual(config)
    agents = _agents(config, opts, options)
    _preflight(agents, config)  # before anything is made: a missing CLI is exit 4 now
    state = state_dir(config)
    record = create_run(
        RunRequest(
            plan=loaded.plan,
            repo=opts["repo"],
            state_dir=state,
            agents=agents,
            options=options,
            plan_path=loaded.path,
            plan_root=loaded.root,
            into=opts["into"],
            database_url=database_url_of(config),
            fleet=opts["queue"],
            remote=remote,
            allow_dirty=opts["allow_dirty"],
            config_file=config.source,
        )
    )
    if opts["queue"]:
        from mergegate.engine import enqueue_run

        enqueue_run(state, record, config)
        click.echo(record.run_id)
        ctx.exit(0)
    click.echo(f"mergegate: run {record.run_id} into {record.into}", err=True)
    report = _execute(config, state, record.run_id, opts)
    _emit(report, opts["fmt"])
    ctx.exit(_exit_code(report, config, opts["fail_on_alert"]))


_TASK_ANSWERS = ("approve", "reject", "skip", "retry")
_CRITERION_ANSWERS = ("pass", "fail")


def _answers(opts: dict[str, Any]) -> Answers:
    from mergegate.engine import Answers

    tasks, criteria = [], []
    for text in opts["answers"]:
        key, sep, answer = text.rpartition("=")
        answer = answer.strip().lower()
        if not sep or not key.strip():
            raise UsageError(
                f"--answer {text!r}: expected UNIT/TASK=approve|reject|skip|retry or ID=pass|fail"
            )
        if answer in _TASK_ANSWERS:
            tasks.append((key.strip(), answer))
        elif answer in _CRITERION_ANSWERS:
            criteria.append((key.strip(), answer))
        else:
            raise UsageError(
                f"--answer {text!r}: the answer is approve, reject, skip, retry, pass or fail"
            )
    if opts["accept_gaps"] and not (opts["reason"] or "").strip():
        raise UsageError("--accept-gaps needs --reason TEXT: say why the gaps are acceptable")
    return Answers(
        tasks=tasks,
        criteria=criteria,
        accept_gaps=opts["reason"].strip() if opts["accept_gaps"] else None,
        note=opts["note"],
        who=opts["who"] or _login(),
    )


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


@click.command("resume")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--answer",
    "answers",
    multiple=True,
    metavar="KEY=ANSWER",
    help="Repeatable. UNIT/TASK=approve|reject answers a checkpoint task. UNIT/TASK="
    "approve|skip|retry takes over the task a unit stopped at (escalated or failed): approve "
    "after you fixed and committed the unit's branch by hand (its checks run on it first; a "
    "failing check refuses), skip records it skipped and the unit goes on, retry runs it "
    "again in a fresh implementer session. ID=pass|fail answers an open criterion of the "
    "phase whose verification stopped the run. TASK alone works when no other task has that "
    "id.",
)
@click.option("--note", default="", help="A note recorded with the answers.")
@click.option("--who", default=None, help="Who answers (default: the login name).")
@click.option(
    "--accept-gaps",
    is_flag=True,
    help="Complete the stopped phase with its gaps (needs --reason; never recorded as passed).",
)
@click.option("--reason", default=None, help="Why the gaps are accepted.")
@_FAIL_ON_ALERT
@_REPO
@_FORMAT
@_PROGRESS
@_STREAM_AGENTS
@click.pass_context
def resume(ctx: click.Context, /, run_id: str, **opts: Any) -> None:
    """Continue RUN after a crash or a stop; with answers, record them first and go on from
    where the run waited for a person.

    The answers go into the run's database: a person answers only here, with `verify PLAN
    --answer`, or by `cancel` (nothing in the run's folder counts as an answer)."""
    from mergegate.engine import database_url_of, prepare_resume, recorded_card

    here = load_config(opts["repo"])
    state, url = state_dir(here), database_url_of(here)
    card = recorded_card(state, run_id, url)
    if not card.fleet:  # a queued run's agents run on the workers, not on this host
        _preflight(card.agents, load_config(Path(card.repo)))  # before any answer is recorded
    record = prepare_resume(state, run_id, _answers(opts), database_url=url)
    if record.fleet:  # the fleet's workers go on with it, from the database this host reached
        from mergegate.engine import enqueue_run

        enqueue_run(state, record, here)
        click.echo(record.run_id)
        ctx.exit(0)
    config = load_config(Path(record.repo))
    _require_terminal_for_manual(config)
    report = _execute(config, state, run_id, opts)
    _emit(report, opts["fmt"])
    ctx.exit(_exit_code(report, config, opts["fail_on_alert"]))


@click.command("status")
@click.argument("run_id", metavar="[RUN]", required=False)
@_REPO
@_FORMAT
def status(run_id: str | None, repo: Path, fmt: str) -> None:
    """Where RUN stands (default: the run started last): its units, their status and merge
    commits, the answers people gave, and what to do next (for a run queued for the fleet,
    which worker holds which unit). A run recorded as running that no process executes any
    more shows as `crashed (resume RUN)`."""
    from mergegate.engine import database_url_of, fleet_status, latest_run

    config = load_config(repo)  # the run is read from its database, never from its folder
    state = state_dir(config)
    run_id = run_id or latest_run(state, database_url_of(config))
    _emit(fleet_status(state, run_id, config), fmt)


@click.command("runs")
@_REPO
@_FORMAT
def runs(repo: Path, fmt: str) -> None:
    """Every run in this repository's state directory and every run of the configured
    database (made on any host), oldest first (`no runs` when there is none); a run that no
    process executes any more is `crashed`."""
    from mergegate.engine import database_url_of, list_runs

    config = load_config(repo)
    found = list_runs(state_dir(config), database_url_of(config))
    if fmt == "json":
        click.echo(json.dumps(found, indent=2))
        return
    if not found:
        click.echo(f"no runs (under {StateLayout(state_dir(config)).runs})")
        return
    rows = [
        [str(e["run_id"]), str(e["status"]), str(e["started"]), clean(str(e["plan"]), 80)]
        for e in found
    ]
    for line in table_lines(["run", "status", "started", "plan"], rows):
        click.echo(line)


@click.command("cancel")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--clean", "clean_", is_flag=True, help="Also remove the work trees of unfinished units."
)
@_REPO
@_FORMAT
def cancel(run_id: str, clean_: bool, repo: Path, fmt: str) -> None:
    """Stop RUN: no agent of it starts any more, its agents still running on this host are
    killed (only processes mergegate started and recorded in the run's database; a fleet
    worker kills its own at its next beat), its workflows are cancelled and it is marked
    cancelled (work trees kept)."""
    from mergegate.engine import cancel_run, database_url_of

    config = load_config(repo)
    _emit(
        cancel_run(state_dir(config), run_id, clean=clean_, database_url=database_url_of(config)),
        fmt,
    )
