"""`mergegate hook TOOL`: the hook an agent CLI runs, and the latch's `status` and `release`.

Claude Code runs this before every Bash command, so the module imports click and the
standard library only: a shell command in a session whose latch is open is answered by
`integrations._fast` before anything heavier loads (docs/integrations.md, bench/bench_startup.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from mergegate.cli._app import format_option
from mergegate.cli._percall import answer as _answer
from mergegate.errors import UsageError

__all__ = ["hook", "marker_options"]


def marker_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--subagent-type",
            "subagent_types",
            multiple=True,
            metavar="GLOB",
            help="A subagent type that is a code reviewer (glob, case-insensitive; repeat). "
            "Default: hooks.subagent_types ('*review*').",
        ),
        click.option(
            "--prompt-marker",
            "prompt_markers",
            multiple=True,
            metavar="TEXT",
            help="A subagent whose prompt holds this text is a reviewer (repeat). "
            "Default: hooks.prompt_markers ('Ready to merge?').",
        ),
        click.option(
            "--result-marker",
            "result_markers",
            multiple=True,
            metavar="TEXT",
            help="A subagent result holding this text is a review (repeat). "
            "Default: hooks.result_markers ('Ready to merge?').",
        ),
        click.option(
            "--fix-subagent-type",
            "fix_subagent_types",
            multiple=True,
            metavar="GLOB",
            help="While the latch is closed, subagents of this type still run as fix work "
            "(glob, case-insensitive; repeat). Default: hooks.fix_subagent_types ('*fix*').",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _timeout_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--timeout",
        "timeout_s",
        type=click.FloatRange(0.1, 300.0),
        default=None,
        help="Answer 'blocked: timed out' after this many seconds (default: hooks.timeout_s, 20).",
    )(func)


@click.group("hook")
def hook() -> None:
    """The hook an agent CLI runs (installed by `mergegate hooks install TOOL`).

    \b
    mergegate hook claude-code            Claude Code's PreToolUse/PostToolUse hook
    mergegate hook claude-code status     the review latches of Claude Code sessions
    mergegate hook claude-code release    open a session's latch by hand (a person only)
    mergegate hook gemini                 Gemini CLI's AfterTool hook
    """


@hook.group("claude-code", invoke_without_command=True)
@marker_options
@_timeout_option
@click.pass_context
def claude_code(ctx: click.Context, /, *, timeout_s: float | None, **flags: Any) -> None:
    """Claude Code's hook: read its hook JSON on stdin, print the answer as JSON.

    For a review subagent (see the options) it parses the result with the verdict library:
    approve adds a confirmation to the orchestrator's context; fixes and reject block with
    the findings and close the session's latch; a malformed or empty review blocks asking ONCE
    for the verdict restated as the verdict object, and the second one in a row blocks with
    STOP and closes the latch. While the latch is closed, PreToolUse denies Bash commands that
    commit, merge, rebase, push or tag, and subagents other than review and fix work, until the
    same reviewer approves or a person releases it. Bad input, a crash, an untrusted
    configuration or a timeout also block. Everything else passes.

    \b
    Exit code: 0 with one JSON object on stdout, always (the agent CLI reads the JSON only
    on exit 0); decisions are logged in the per-user state directory (docs/integrations.md).
    """
    if ctx.invoked_subcommand is None:
        _answer("claude-code", flags, timeout_s)


@hook.command("gemini")
@marker_options
@_timeout_option
def gemini(*, timeout_s: float | None, **flags: Any) -> None:
    """Gemini CLI's AfterTool hook on invoke_agent: the review gate of `claude-code`
    (approve, block with the findings, one restatement, then STOP), without the latch.

    \b
    Exit code: 0 with one JSON object on stdout, always.
    """
    _answer("gemini", flags, timeout_s)


# ---------------------------------------------------------------- the latch, for a person
@claude_code.command("status")
@click.option("--session", "session_id", default=None, help="Show this session only.")
@format_option("Latches for people (text) or as JSON.")
def status(*, session_id: str | None, fmt: str) -> None:
    """Show the review latches of Claude Code sessions: closed ones first, with the review
    that closed each (verdict, evidence, findings) and every release (who, when, why).

    \b
    Exit code: 0; 2 for a session the hook does not know or state it cannot read.
    """
    from mergegate.integrations import admin  # noqa: PLC0415

    views = _or_usage(lambda: admin.latch_views(admin.hook_state(), session_id))
    if fmt == "json":
        click.echo(json.dumps([v.to_json() for v in views], indent=2, ensure_ascii=False))
        return
    if not views:
        click.echo("mergegate: no review latch has been closed in any session")
        return
    for view in views:
        _print_view(view)


def _print_view(view: Any) -> None:
    from mergegate.integrations import admin  # noqa: PLC0415
    from mergegate.untrusted import one_line as sanitize  # noqa: PLC0415

    latch = view.latch
    state = "CLOSED" if latch.closed else "open"
    click.echo(f"session {sanitize(view.session, 120)}: {state}")
    for key, held in latch.holds.items():
        click.echo(
            f"  {sanitize(key, 60)} said {held.decision} at {admin.when(held.at)} "
            f"({sanitize(held.evidence, 300)}) in {sanitize(held.cwd, 200) or '?'}"
        )
        for finding in held.findings:
            where = f" ({sanitize(finding.file, 120)}:{finding.line or ''})" if finding.file else ""
            click.echo(
                f"    - [{finding.severity}] {finding.id} {sanitize(finding.title, 200)}{where}"
            )
    for event in latch.history[-5:]:
        by = f" by {sanitize(event.who or '', 200)}" if event.who else ""
        why = f': "{sanitize(event.reason, 300)}"' if event.reason else ""
        actor = (
            f" ({sanitize(event.reviewer or '', 60)} {event.decision})" if event.reviewer else ""
        )
        click.echo(f"  {admin.when(event.at)} {event.action}{actor}{by}{why}")
    if latch.closed:
        click.echo(
            f"  to release it: mergegate hook claude-code release --session "
            f"{sanitize(view.session, 120)} --reason TEXT"
        )


@claude_code.command("release")
@click.option("--session", "session_id", required=True, help="The Claude Code session id.")
@click.option("--reason", required=True, help="Why the work may proceed without an approval.")
@click.option("--who", default=None, help="Your name for the record (default: your login).")
def release(*, session_id: str, reason: str, who: str | None) -> None:
    """Open a session's latch by hand: commit, merge, push and tag are allowed again.

    Only a person may: run it in your own terminal (it refuses without one, and the latch
    refuses it from the agent's Bash tool). Recorded with who, when and why; shown by status.

    \b
    Exit code: 0 released (or already open); 2 no terminal, no reason or unknown session.
    """
    if not (sys.stdin.isatty() and os.isatty(sys.stdout.fileno())):
        raise UsageError(
            "release needs a person at a terminal: run it in your own terminal, not through "
            "an agent or a pipe"
        )
    from mergegate.integrations import admin  # noqa: PLC0415
    from mergegate.untrusted import one_line as sanitize  # noqa: PLC0415

    person = admin.account()
    name = f"{who.strip()} ({person})" if who and who.strip() else person
    released = _or_usage(lambda: admin.release_latch(admin.hook_state(), session_id, name, reason))
    session = sanitize(session_id, 120)
    if released:
        click.echo(f"mergegate: released the latch of session {session} ({sanitize(name, 200)})")
    else:
        click.echo(f"mergegate: the latch of session {session} is already open")


def _or_usage(work: Callable[[], Any]) -> Any:
    """Run `work`; the hook state's own errors become usage errors (exit 2, one line)."""
    from mergegate.integrations import HookStateError  # noqa: PLC0415

    try:
        return work()
    except HookStateError as exc:
        raise UsageError(str(exc)) from exc
