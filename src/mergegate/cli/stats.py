"""`mergegate stats [RUN ...] [--since DATE]`: the metrics and alerts of runs, from their events.

Thin: `mergegate.metrics` computes, this module prints. Component names and run ids can come
from plan text and agent output (handoff types, ids): they go through `clean` and
`rich.markup.escape` before they reach a terminal; JSON is written with `ensure_ascii`.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.cli._runs import all_runs, load_run
from mergegate.config import StateLayout, load_config, state_dir
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.events import Alert, Event
from mergegate.metrics import (
    AlertRules,
    Metrics,
    compute_metrics,
    evaluate_alerts,
    exit_code_for,
    write_prometheus,
)

__all__ = ["stats"]


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"--since: not a date or time: {value!r} (use e.g. 2026-11-01 or 2026-11-01T09:00)"
        ) from None
    return moment if moment.tzinfo else moment.astimezone()


@click.command("stats")
@click.argument("runs", nargs=-1)
@click.option(
    "--since",
    "since",
    metavar="DATE",
    help="Only runs started at or after DATE "
    "(ISO 8601: 2026-11-01, 2026-11-01T09:00, local time unless an offset is given).",
)
@format_option("text: tables for people (rich); json: the metrics for tools.")
@click.option(
    "--prometheus",
    "prometheus",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the metrics in the Prometheus text format to FILE (atomically; "
    "for node-exporter's textfile collector name it *.prom).",
)
@click.option(
    "--fail-on-alert",
    is_flag=True,
    default=None,
    help="Exit 5 when an alert was raised (default: [alerts] fail_on_alert).",
)
@click.pass_context
def stats(
    ctx: click.Context,
    *,
    runs: tuple[str, ...],
    since: str | None,
    fmt: str,
    prometheus: Path | None,
    fail_on_alert: bool | None,
) -> None:
    """Metrics and alerts of runs, computed from their event streams.

    \b
    RUN is a run id (its events read from the database that holds the run, else looked up
    under <state>/runs/, then <state>/reviews/) or a run directory (its events.jsonl); a
    `mergegate review` run directory without events.jsonl is read from its records.
    Without RUN: every run under <state>/runs/ and every run the configured database holds
    (with --since: those started since).
    Per component (implementer, reviewer, fixer, advisor, verifier, handoff:<type>): success
    rate, average retries before success, retry exhaustion rate, failure types, timeouts;
    help-request rate, first-pass approval rate, fix rounds per task, tokens, cost, wall and
    agent time. Alerts use the [alerts] thresholds (see docs/observability.md).
    --format json prints {"metrics": {...}, "alerts": [...]}.
    Exit codes: 0 ok; 2 a run that cannot be found or read; 5 an alert with --fail-on-alert.
    """
    config = load_config()
    moment = _since(since)
    if runs and moment is not None:
        raise UsageError("give RUN ... or --since, not both")
    targets: list[str | Path] = list(runs) or all_runs(config, moment)
    events: list[Event] = []
    for target in targets:
        events.extend(load_run(target, config)[1].events)
    rules = AlertRules.from_config(config.alerts)
    metrics = compute_metrics(events)
    alerts = _alerts(events, rules)
    counts: dict[str, int] = {}
    for alert in alerts:
        counts[alert.rule] = counts.get(alert.rule, 0) + 1
    if prometheus is not None:
        write_prometheus(prometheus, metrics, counts)
    if fmt == "json":
        payload = {
            "metrics": metrics.model_dump(mode="json"),
            "alerts": [a.model_dump(mode="json") for a in alerts],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=True))
    else:
        _print_tables(metrics, alerts, searched=None if runs else state_dir(config))
    fail = config.alerts.fail_on_alert if fail_on_alert is None else fail_on_alert
    ctx.exit(exit_code_for(int(ExitCode.OK), alerts, fail_on_alert=fail))


def _alerts(events: list[Event], rules: AlertRules) -> list[Alert]:
    """Alerts recorded in the streams, and those the rules find now (each once)."""
    recorded = [e for e in events if isinstance(e, Alert)]
    seen = {a.key for a in recorded}
    return recorded + [a for a in evaluate_alerts(events, rules) if a.key not in seen]


def _cell(value: object, limit: int = 60) -> str:
    return escape(clean(str(value), limit))


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _print_tables(metrics: Metrics, alerts: list[Alert], searched: Path | None) -> None:
    # not a terminal (a pipe, a CI log): wide enough that the tables keep their cells whole
    width = None if sys.stdout.isatty() else 160
    console = Console(highlight=False, emoji=False, soft_wrap=False, width=width)
    if not metrics.runs:
        where = f" under {StateLayout(searched).runs}" if searched else ""
        console.print(f"No runs{_cell(where, 300)}.")
        return
    console.print(_runs_table(metrics))
    console.print(_components_table(metrics))
    console.print(_totals_table(metrics))
    if alerts:
        console.print(f"[bold]{len(alerts)} alert(s)[/bold]")
        for a in alerts:
            console.print(f"- [bold]{a.rule}[/bold] {_cell(a.run_id, 40)}: {_cell(a.message, 300)}")
    else:
        console.print("No alert.")


def _runs_table(metrics: Metrics) -> Table:
    table = Table(title="Runs", title_justify="left")
    for name in (
        "run",
        "status",
        "started",
        "wall",
        "tasks",
        "attempts",
        "tokens",
        "cost $",
        "alerts",
    ):
        table.add_column(name, justify="left" if name in ("run", "status", "started") else "right")
    for r in metrics.runs:
        started = r.started.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if r.started else "—"
        table.add_row(
            _cell(r.run_id, 40),
            _cell(r.status, 30),
            started,
            f"{r.wall_s:.1f}s",
            str(r.tasks),
            str(r.attempts),
            f"{r.tokens:,}",
            f"{r.cost_usd:.4f}",
            str(r.alerts),
        )
    return table


def _components_table(metrics: Metrics) -> Table:
    table = Table(title="Components", title_justify="left")
    for name in (
        "component",
        "ops",
        "success",
        "avg retries",
        "exhausted",
        "attempts",
        "timeouts",
        "longest",
        "failure types",
    ):
        table.add_column(
            name, justify="left" if name in ("component", "failure types") else "right"
        )
    for c in metrics.components.values():
        failures = ", ".join(f"{kind} {n}" for kind, n in c.failure_types.items())
        table.add_row(
            _cell(c.component, 40),
            str(c.operations),
            _pct(c.success_rate),
            "—" if c.average_retries is None else f"{c.average_retries:.2f}",
            _pct(c.retry_exhaustion_rate),
            str(c.attempts),
            str(c.timeouts),
            f"{c.longest_s:.1f}s",
            _cell(failures or "—", 80),
        )
    return table


def _totals_table(metrics: Metrics) -> Table:
    table = Table(title="Totals", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    u = metrics.usage
    rows: list[tuple[str, Any]] = [
        ("tasks", metrics.tasks),
        ("fix rounds (per task)", f"{metrics.fix_rounds} ({_ratio(metrics.fix_rounds_per_task)})"),
        ("first-pass approval", _pct(metrics.first_pass_approval_rate)),
        (
            "help requests (per implementer attempt)",
            f"{metrics.help_requests} ({_pct(metrics.help_request_rate)})",
        ),
        (
            "tokens in / out / cache",
            f"{u.tokens_in:,} / {u.tokens_out:,} / {u.cache_read_tokens + u.cache_write_tokens:,}",
        ),
        ("cost (attempts with a reported cost)", f"${u.cost_usd:.4f} ({u.cost_known})"),
        ("wall time / agent time", f"{metrics.wall_s:.1f}s / {u.agent_s:.1f}s"),
        ("checks passed / failed", f"{metrics.checks_passed} / {metrics.checks_failed}"),
        (
            "merges / conflicts / escalations",
            f"{metrics.merges} / {metrics.conflicts} / {metrics.escalations}",
        ),
    ]
    for what, value in rows:
        table.add_row(what, str(value))
    for role, usage in metrics.usage_by_role.items():
        table.add_row(
            f"  {role}",
            f"{usage.attempts} attempt(s), {usage.total_tokens:,} tokens, "
            f"${usage.cost_usd:.4f}, {usage.agent_s:.1f}s",
        )
    return table


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
