"""`mergegate review`: the review gate and, with --fix, the revision loop."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from mergegate.agents import Backend, preflight, require_ready
from mergegate.agents.sandbox import SandboxedBackend, SandboxPolicy, starts_processes
from mergegate.cli._app import format_option
from mergegate.cli._progress import MODES, choose_mode, clean, model_activity, open_renderer
from mergegate.cli._sandbox import sandbox_options, sandbox_policy
from mergegate.config import ensure_state_dir, state_dir
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.git import GitRepository, object_dirs, remove_tree
from mergegate.review import (
    ReviewAgents,
    ReviewLoop,
    ReviewOptions,
    ReviewOutcome,
    report_root,
    review_config,
)
from mergegate.review.options import DEFAULT_SCOPE

__all__ = ["review"]


def _print_text(outcome: ReviewOutcome) -> None:
    """The outcome for a person. Reviewer text (titles, ids, outputs) goes through `clean`."""
    message = clean(outcome.message, 1000)
    click.echo(f"{outcome.decision.value.upper()} ({outcome.status.value}): {message}")
    for record in outcome.findings:
        finding = record.finding
        severity, fid, status = (
            clean(v, 40) for v in (finding.severity.value, finding.id, record.status.value)
        )
        title = clean(finding.title, 200)
        click.echo(f"  [{severity}] {fid} {status}: {title}")
    for i, text in enumerate(outcome.outputs, start=1):
        excerpt = clean(text, 300) or "(no output)"
        click.echo(f'  output of attempt {i} (excerpt): "{excerpt}"')
    click.echo(f"reports: {clean(str(outcome.report_dir), 1000)}")


def _scope(scope: str) -> str:
    if not 0 < len(scope) <= 200 or not scope.isprintable() or scope != scope.strip():
        raise UsageError("--scope must be 1-200 printable characters, without outer spaces")
    return scope


def _read_spec(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read --spec {path}: {exc}") from exc


class _Sandboxes:
    """The review's agents in the sandbox: the reviewer read-only in its throwaway checkout,
    the fixer in the person's repository with `.git` read-only; mergegate's state and the
    review's records shown empty; private HOMEs in a temporary folder removed at the end."""

    def __init__(self, policy: SandboxPolicy, repo: GitRepository, hidden: Sequence[Path]):
        self.policy = policy
        self.homes = Path(tempfile.mkdtemp(prefix="mergegate-homes-"))
        objects = object_dirs(repo.root) if policy.enabled else ()
        self.objects = tuple(objects)
        self.hidden = tuple(hidden)

    def wrap(self, backend: Backend | None, *, fixer: bool) -> Backend | None:
        if backend is None or not self.policy.enabled:
            return backend
        return SandboxedBackend(
            backend,
            self.policy,
            self.homes,
            objects=lambda _request: self.objects,
            git_read_only=fixer,
            hidden=self.hidden,
        )

    def close(self) -> None:
        remove_tree(self.homes)


def _confirm_on_tty(outcome: ReviewOutcome) -> bool:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("review.mode = manual needs a person at a terminal (no TTY here)")
    _print_text(outcome)
    return click.confirm("Accept this change?", default=False)


@click.command("review")
@click.option("--base", default=None, help="Base ref of the change (default: HEAD~1).")
@click.option("--head", default=None, help="Head ref of the change (default: HEAD).")
@click.option(
    "--spec",
    "spec_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Task text and acceptance criteria; enables the spec-compliance stage.",
)
@click.option(
    "--scope",
    default=DEFAULT_SCOPE,
    show_default=True,
    help="What the change is (a task, unit or phase id): every reviewer's verdict object must "
    "name it in its `scope`.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Read mergegate's configuration from this file. Default: the mergegate.toml (or "
    "pyproject.toml [tool.mergegate]) of the BASE revision - never the change under review's.",
)
@click.option("--reviewer", default=None, help="Reviewer backend (default: review.reviewer).")
@click.option("--reviewer-cmd", default=None, help='Reviewer as a program: "PROGRAM ARGS".')
@click.option("--fix", is_flag=True, help="Drive fix rounds until approval or a cap.")
@click.option(
    "--force",
    is_flag=True,
    help="Review even when review.mode = off (an on-demand review; the mode's off switch "
    "only stops reviews nobody asked for).",
)
@click.option("--implementer", default=None, help="Implementer backend for --fix.")
@click.option("--implementer-cmd", default=None, help='Implementer as a program: "PROGRAM ARGS".')
@click.option(
    "--max-rounds", type=click.IntRange(1, 50), default=None, help="Cap on review rounds (3)."
)
@click.option(
    "--rereview",
    type=click.Choice(["scoped", "full"]),
    default=None,
    help="Later rounds re-review only the fix diff (scoped) or the whole change (full) "
    "(default: review.rereview, scoped).",
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where runs go, one directory per run (default: review.report_dir, else "
    ".mergegate/reviews).",
)
@click.option(
    "--run-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="This run's own directory, for every record of the run (it must be new or empty); "
    "instead of a new directory under --report-dir.",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The git repository to review.",
)
@format_option(
    "Result on stdout: a readable summary, or one JSON object (decision, exit_code, "
    "rounds, findings, report_dir, outputs, usage)."
)
@click.option(
    "--progress",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Progress on stderr: rich (live spinner and results), plain (one 'mergegate: ...' "
    "line per step, and one at least every 10 s while an agent works, for logs), none; auto "
    "is rich on a terminal and plain when stderr is not a TTY, CI is set or TERM=dumb.",
)
@sandbox_options
@click.pass_context
def review(ctx: click.Context, /, **opts: Any) -> None:
    """Review a change and decide, in code, whether it may merge.

    Agents that run as programs run in a sandbox (bubblewrap, docs/sandbox.md): a reviewer
    sees its throwaway checkout read-only, a --fix implementer your repository with its .git
    read-only; neither sees your HOME, mergegate's state or the review's records. Where no
    sandbox can be made the review is refused (exit 4) unless --no-sandbox is given.

    Every reviewer answers with one verdict object (`mergegate schema verdict`), through its
    backend's structured output where it has one; only an object that approves this review
    (its review_id and --scope), lists no condition and no blocking finding approves.

    mergegate's own configuration comes from the base revision (or --config), never from the
    change under review: a change cannot name its own reviewer or weaken its own gate.

    \b
    Exit codes: 0 approved; 1 changes requested or rejected; 2 usage error;
    3 reviewer output undecidable after the retry; 4 agent failure;
    5 escalated to a person (revision cap or stall).
    """
    overrides = {"review.max_rounds": opts["max_rounds"], "review.rereview": opts["rereview"]}
    trusted = review_config(
        opts["repo"],
        opts["base"] or "HEAD~1",
        config_file=opts["config_file"],
        overrides=overrides,
    )
    if trusted.ignored is not None:
        click.echo(
            f"mergegate: configuration from {clean(trusted.source, 300)}; "
            f"{clean(trusted.ignored, 300)} in the change under review is not used",
            err=True,
        )
    config = trusted.config
    if config.review.mode == "off" and not opts["force"]:
        click.echo(
            "mergegate: review is off (review.mode = off); not reviewing (--force reviews anyway)",
            err=True,
        )
        ctx.exit(int(ExitCode.OK))
    agents = ReviewAgents.from_config(
        config,
        reviewer=opts["reviewer"],
        reviewer_cmd=opts["reviewer_cmd"],
        implementer=opts["implementer"],
        implementer_cmd=opts["implementer_cmd"],
    )
    if opts["fix"] and agents.implementer is None:
        raise UsageError("--fix needs --implementer NAME or --implementer-cmd")
    # before anything is made: a missing CLI is exit 4 in one line, never a MALFORMED review
    used = [agents.reviewer, *([agents.implementer] if opts["fix"] and agents.implementer else [])]
    require_ready([preflight(b) for b in used])
    policy = sandbox_policy(config, opts)
    fixers = (agents.implementer, agents.fresh_implementer) if opts["fix"] else ()
    if any(starts_processes(b) for b in (agents.reviewer, *fixers) if b is not None):
        policy.require()  # before anything is written
    options = ReviewOptions.from_config(
        config,
        base=opts["base"] or "HEAD~1",
        head=opts["head"] or "HEAD",
        spec=_read_spec(opts["spec_file"]),
        fix=bool(opts["fix"]),
        scope=_scope(opts["scope"]),
    ).model_copy(update={"sandbox": policy})
    if opts["run_dir"] is not None and opts["report_dir"] is not None:
        raise UsageError("give --run-dir or --report-dir, not both")
    run_dir = opts["run_dir"].resolve() if opts["run_dir"] is not None else None
    root = report_root(config, opts["report_dir"])
    state = state_dir(config)
    repo = GitRepository(opts["repo"], exclude=[run_dir or root, state])
    sandboxes = _Sandboxes(policy, repo, [state, root, *([run_dir] if run_dir else [])])
    mode = choose_mode(opts["progress"], isatty=sys.stderr.isatty(), env=os.environ)
    try:
        with open_renderer(
            mode, sys.stderr, lambda line: click.echo(line, err=True), model_activity
        ) as on_event:
            reviewer = sandboxes.wrap(agents.reviewer, fixer=False)
            assert reviewer is not None
            loop = ReviewLoop(
                repo,
                reviewer,
                options,
                report_root=root,
                run_dir=run_dir,
                implementer=sandboxes.wrap(agents.implementer, fixer=True),
                fresh_implementer=sandboxes.wrap(agents.fresh_implementer, fixer=True),
                events=on_event,
            )
            outcome = loop.run()
    finally:
        sandboxes.close()
    if state.is_dir():  # the review wrote its records there: the state ignores itself
        ensure_state_dir(state)
    code = outcome.exit_code
    if config.review.mode == "manual":
        code = ExitCode.OK if _confirm_on_tty(outcome) else ExitCode.NO
    if opts["fmt"] == "json":
        click.echo(json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False))
    elif config.review.mode != "manual":
        _print_text(outcome)
    ctx.exit(int(code))
