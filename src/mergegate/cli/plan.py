"""`mergegate plan show|check PATH`: read a plan people already have, print it, lint it.

Thin: `mergegate.plans` imports and checks; this module prints. Plan text is untrusted (it
comes from other tools and other people): everything shown on a terminal goes through
`clean` (escape sequences and control characters removed, length capped) and, for the rich
tree, `rich.markup.escape`; JSON is written with `ensure_ascii` so no raw control character
reaches the terminal either.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from mergegate.cli._app import format_option
from mergegate.cli._progress import choose_mode, clean
from mergegate.decisions import ExitCode
from mergegate.plans import (
    CycleError,
    Phase,
    Plan,
    Severity,
    Task,
    Unit,
    check_plan,
    load_plan,
    plan_errors,
    unit_waves,
)

__all__ = ["plan"]

_FORMAT = format_option(
    "text: a tree for people (rich on a terminal); json: the plan model for tools."
)


@click.group("plan")
def plan() -> None:
    """Read plans written by GSD (and forks such as PAUL), superpowers, spectacular or by hand.

    \b
    PATH is a .planning/.paul directory (or a directory holding one), a GSD phase directory,
    a PLAN.md, a superpowers plan, a spectacular spec directory, plan.md or split plan/
    directory, or a native mergegate plan (.yaml). See docs/plans.md.
    """


@plan.command("show")
@click.argument("path", type=click.Path(exists=True, path_type=str))
@_FORMAT
@click.pass_context
def show(ctx: click.Context, path: str, fmt: str) -> None:
    """Print the plan at PATH: phases, waves, units and tasks.

    \b
    Warnings the import collected go to stderr, each with file:line. A plan that cannot run
    is never shown as if it could: every error `plan check` would report (a part that could
    not be read, a bad, repeated or look-alike id, a path outside the repository, control
    characters, unknown or circular dependencies, ...) goes to stderr with its file:line,
    the first line of the tree says "cannot run", and the exit code is 2. Input that cannot
    be read at all (a symlink out of the repository, NUL bytes, YAML nested too deep) is one
    line with file:line and exit 2, as in `plan check`.
    --format json prints {"format", "phases": [{"id", "name", "success_criteria",
    "units": [{"id", "wave", "depends_on", "must_haves", "source": {"file", "line"},
    "tasks": [{"name", "type", "files", "action", "verify", "done", "source"}]}]}]}
    (every model field; paths relative to PATH).
    Exit codes: 0 imported and runnable; 2 unknown, broken or unrunnable input.
    """
    result = load_plan(path)
    errors = [*result.errors, *plan_errors(result.plan)]
    for issue in [*(w for w in result.warnings if w.severity is not Severity.ERROR), *errors]:
        click.echo(f"mergegate: {clean(str(issue), 500)}", err=True)
    if fmt == "json":
        data = result.plan.model_dump(mode="json", by_alias=True)
        click.echo(json.dumps(data, indent=2, ensure_ascii=True))
    elif choose_mode("auto", isatty=sys.stdout.isatty(), env=os.environ) == "rich":
        Console(highlight=False, emoji=False).print(_tree(result.plan, len(errors)))
    else:
        for line in _lines(result.plan, len(errors)):
            click.echo(line)
    ctx.exit(int(ExitCode.USAGE if errors else ExitCode.OK))


@plan.command("check")
@click.argument("path", type=click.Path(exists=True, path_type=str))
@click.option("--strict", is_flag=True, help="Exit 1 when there are warnings (default: 0).")
@_FORMAT
@click.pass_context
def check(ctx: click.Context, path: str, strict: bool, fmt: str) -> None:
    """Lint the plan at PATH; every finding carries file:line.

    \b
    Errors (the plan cannot run; `run` and `verify` refuse it the same way): ids outside
    [A-Za-z0-9._-], used twice or looking like another (0/O, 1/l, case); control characters
    (NUL, escapes, bidirectional overrides) in any text; artifacts, key links, phase
    directories or source files outside the repository; dependency cycles, unknown
    dependencies or ones on later phases; units without tasks; no acceptance signal
    anywhere in the plan. Unreadable input (a symlink out of the repository, NUL bytes,
    YAML nested too deep) is one line with file:line.
    Warnings: the import's own warnings, declared waves contradicting depends_on, two units
    of one wave listing the same file, tasks without done criteria or checks, units without
    must-haves or acceptance criteria, files outside the repository a unit tells its agent
    to read or change.
    Info: checkpoint tasks (a person must act there).
    Exit codes: 0 clean (warnings allowed); 1 warnings with --strict; 2 errors or bad input.
    """
    result = load_plan(path)
    rank = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    issues = sorted([*result.warnings, *check_plan(result.plan)], key=lambda i: rank[i.severity])
    counts = {severity: sum(i.severity == severity for i in issues) for severity in Severity}
    if fmt == "json":
        payload = {
            "ok": counts[Severity.ERROR] == 0,
            "errors": counts[Severity.ERROR],
            "warnings": counts[Severity.WARNING],
            "issues": [issue.model_dump(mode="json") for issue in issues],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=True))
    else:
        for issue in issues:
            click.echo(clean(str(issue), 500))
        click.echo(
            f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), "
            f"{counts[Severity.INFO]} checkpoint(s)"
        )
    if counts[Severity.ERROR]:
        ctx.exit(int(ExitCode.USAGE))
    if strict and counts[Severity.WARNING]:
        ctx.exit(int(ExitCode.NO))


# ---------------------------------------------------------------- text rendering


def _waves(phase: Phase) -> tuple[tuple[Unit, ...], ...] | None:
    try:
        return unit_waves(phase)
    except CycleError:
        return None


def _summary(plan: Plan, errors: int) -> str:
    units = sum(1 for _ in plan.units())
    tasks = sum(1 for _ in plan.tasks())
    title = clean(plan.title, 200) or "(untitled)"
    counts = f"{len(plan.phases)} phases, {units} units, {tasks} tasks"
    refused = f" — cannot run: {errors} error(s), see stderr" if errors else ""
    return f"plan: {title} ({plan.format.value}; {counts}){refused}"


def _phase_label(phase: Phase) -> str:
    where = f"  [{clean(phase.directory, 200)}]" if phase.directory else ""
    status = (
        f"  verification: {clean(phase.verification_status, 40)}"
        if phase.verification_status
        else ""
    )
    return f"phase {clean(phase.id, 60)}: {clean(phase.name, 200)}{where}{status}"


def _unit_label(unit: Unit) -> str:
    parts = [f"unit {clean(unit.id, 80)}"]
    if unit.name:
        parts.append(clean(unit.name, 160))
    notes = []
    if unit.completed:
        notes.append("completed (SUMMARY.md)")
    if unit.depends_on:
        notes.append("after " + ", ".join(clean(d, 60) for d in unit.depends_on))
    mh = unit.must_haves
    if not mh.empty:
        notes.append(f"must-haves {len(mh.truths)}/{len(mh.artifacts)}/{len(mh.key_links)}")
    if unit.acceptance_criteria:
        notes.append(f"{len(unit.acceptance_criteria)} acceptance criteria")
    if not unit.autonomous:
        notes.append("needs a person")
    tail = f"  ({'; '.join(notes)})" if notes else ""
    return " — ".join(parts) + tail + _where(unit.source)


def _task_label(task: Task) -> str:
    checks = len(task.verify.commands) + len(task.checks)
    extra = f"  [{checks} check(s)]" if checks else ""
    head = f"task {clean(task.id, 20)} [{clean(task.type, 40)}] {clean(task.name, 200)}"
    return f"{head}{extra}{_where(task.source)}"


def _where(source: Any) -> str:
    return f"  {clean(str(source), 300)}" if source else ""


def _walk(plan: Plan, emit: Callable[[int, str], None]) -> None:
    """The plan as (depth, text) lines, shared by the plain and the rich renderers."""
    for phase in plan.phases:
        emit(0, _phase_label(phase))
        if phase.goal:
            emit(1, "goal: " + clean(phase.goal, 300))
        for criterion in phase.success_criteria:
            emit(1, "success: " + clean(criterion.text, 300))
        if not phase.units:
            emit(1, "(no units planned yet)")
            continue
        waves = _waves(phase)
        if waves is None:
            emit(1, "(dependency cycle: run order unknown; see `mergegate plan check`)")
            waves = (phase.units,)
        for number, wave in enumerate(waves, start=1):
            emit(1, f"wave {number}")
            for unit in wave:
                emit(2, _unit_label(unit))
                for task in unit.tasks:
                    emit(3, _task_label(task))


def _lines(plan: Plan, errors: int) -> list[str]:
    lines = [_summary(plan, errors)]
    _walk(plan, lambda depth, text: lines.append("  " * depth + text))
    return lines


def _tree(plan: Plan, errors: int) -> Tree:
    root = Tree(escape(_summary(plan, errors)))
    stack: list[Tree] = [root]

    def emit(depth: int, text: str) -> None:
        del stack[depth + 1 :]
        stack.append(stack[depth].add(escape(text)))

    _walk(plan, emit)
    return root
