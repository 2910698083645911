"""`mergegate verify`: a phase's deliverables checked against its criteria, in code."""

from __future__ import annotations

import getpass
import json
import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from mergegate.agents import preflight, require_ready
from mergegate.agents.base import Backend
from mergegate.agents.registry import get_backend
from mergegate.agents.sandbox import SandboxedBackend, SandboxPolicy, starts_processes
from mergegate.cli._app import format_option
from mergegate.cli._progress import clean
from mergegate.cli._sandbox import sandbox_options, sandbox_policy
from mergegate.config import Config, ensure_state_dir, load_config, state_dir
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.git import object_dirs, remove_tree
from mergegate.ids import new_check_run_id
from mergegate.plans import LoadedPlan, Phase, find_phase, read_plan, require_valid
from mergegate.plans import load_plan as import_plan
from mergegate.processes import Sandbox
from mergegate.verify import (
    Answer,
    CriterionChecks,
    GapAcceptance,
    PhaseDir,
    Result,
    VerificationResult,
    VerificationStatus,
    VerifyOptions,
    answers_for,
    current_phase,
    derive_checks,
    gsd_phase_dir,
    latest_result,
    load_answers,
    phase_state_dir,
    record_answer,
    reverify,
    tree_state,
    verify_phase,
)

__all__ = ["load_plan", "verify"]


load_plan = read_plan
"""Kept for callers of `mergegate.cli.verify.load_plan`: `mergegate.plans.read_plan`."""


def _verifier(name: str | None, cmd: str | None, config: Config) -> Backend | None:
    if name and cmd:
        raise UsageError("give --verifier NAME or --verifier-cmd CMD, not both")
    if cmd:
        return get_backend("command", cmd=cmd)
    if name:
        return get_backend(name, **config.agents.backends.get(name, {}))
    return None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "phase"


def _who(given: str | None) -> str:
    if given:
        return given
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


# ---------------------------------------------------------------- dry run


def _dry_run_dict(phase: Phase, items: Sequence[CriterionChecks]) -> dict[str, Any]:
    commands = list(dict.fromkeys(shlex.join(s.argv) for i in items for s in i.checks if s.argv))
    checked = sum(1 for i in items if i.checks)
    alone = sum(1 for i in items if i.checks and i.judgement is None)
    return {
        "phase": phase.id,
        "name": phase.name,
        "commands": commands,
        "criteria": [
            {
                "id": i.criterion.id,
                "kind": i.criterion.kind.value,
                "source": _source(i),
                "text": i.criterion.text,
                "checks": [s.model_dump(mode="json", exclude_defaults=True) for s in i.checks],
                "judgement": i.judgement,
                "unchecked": list(i.unchecked),
            }
            for i in items
        ],
        "summary": {
            "criteria": len(items),
            "with_program_check": checked,
            "decided_by_program_alone": alone,
            "without_program_check": len(items) - checked,
            "share_with_program_check": round(checked / len(items), 4) if items else 0.0,
        },
    }


def _source(item: CriterionChecks) -> str | None:
    src = item.criterion.source
    return f"{src.file}:{src.line}" if src else None


def _print_dry_run(data: dict[str, Any]) -> None:
    click.echo(f"Phase {clean(data['phase'], 60)}: {clean(data['name'], 120)} (dry run)")
    click.echo(f"\nCommands a real run would start ({len(data['commands'])}):")
    for command in data["commands"]:
        click.echo(f"  $ {clean(command, 300)}")
    click.echo("\nCriteria:")
    for c in data["criteria"]:
        click.echo(f"  {clean(c['id'], 80)} [{c['kind']}] {clean(c['source'] or '', 120)}")
        click.echo(f"      {clean(c['text'], 160)}")
        for check in c["checks"]:
            click.echo(f"      - {check['kind']}: {clean(check['description'], 200)}")
        if not c["checks"]:
            click.echo("      - no program check")
        for note in c["unchecked"]:
            click.echo(f"      - not checkable by program: {clean(note, 200)}")
        if c["judgement"]:
            click.echo(f"      - needs judgement: {clean(c['judgement'], 200)}")
    s = data["summary"]
    click.echo(
        f"\n{s['with_program_check']} of {s['criteria']} criteria "
        f"({s['share_with_program_check']:.0%}) have a program check; "
        f"{s['decided_by_program_alone']} are decided by program checks alone; "
        f"{s['without_program_check']} without one are left to the verifier agent or a person."
    )


# ---------------------------------------------------------------- results


def _result_dict(result: VerificationResult, report: Path) -> dict[str, Any]:
    data = result.model_dump(mode="json")
    criteria = data.pop("criteria")
    return {
        "status": data["status"],
        "exit_code": int(result.exit_code),
        "reason": data["reason"],
        "phase": data["phase_id"],
        "counts": data["counts"],
        "criteria": criteria,
        "questions": [c.id for c in result.questions],
        "warnings": data["warnings"],
        "report": str(report),
        "run_id": data["run_id"],
    }


_SIGN = {Result.PASS: "✓", Result.FAIL: "✗", Result.UNCERTAIN: "?", Result.UNVERIFIED: "?"}


def _print_result(result: VerificationResult, report: Path) -> None:
    click.echo(f"{result.status.value.upper()}: {clean(result.reason, 400)}")
    for c in result.criteria:
        by = f" ({c.decided_by}-judged)" if c.decided_by in ("agent", "person") else ""
        click.echo(f"  {_SIGN[c.result]} {clean(c.id, 80)} [{c.kind.value}] {c.result.value}{by}")
        if c.result is Result.FAIL:
            for e in c.evidence:
                if e.outcome.value == "fail":
                    click.echo(f"      {clean(e.detail, 300)}")
            if c.next_step:
                click.echo(f"      next step: {clean(c.next_step, 400)}")
        elif c.question:
            click.echo(f"      {clean(c.question, 300)}")
    for warning in result.warnings:
        click.echo(f"warning: {clean(warning, 400)}", err=True)
    click.echo(f"report: {clean(str(report), 1000)}")


def _emit(result: VerificationResult, report: Path, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(_result_dict(result, report), indent=2, ensure_ascii=False))
    else:
        _print_result(result, report)


# ---------------------------------------------------------------- answers


def _parse_answers(values: Sequence[str]) -> list[tuple[str, str]]:
    parsed = []
    for value in values:
        cid, sep, verdict = value.partition("=")
        if not sep or verdict.strip().lower() not in ("pass", "fail") or not cid.strip():
            raise UsageError(f"--answer {value!r}: write ID=pass or ID=fail")
        parsed.append((cid.strip(), verdict.strip().lower()))
    return parsed


def _answers_for(
    previous: VerificationResult, given: Sequence[tuple[str, str]], note: str, who: str
) -> list[Answer]:
    return answers_for(previous, given, note=note, who=who, at=_now())


def _ask_on_tty(result: VerificationResult, who: str) -> list[Answer]:
    """Ask each open question, one by one; an empty answer skips it."""
    answers = []
    click.echo(f"\n{len(result.questions)} question(s) for a person (empty answer skips):")
    for c in result.questions:
        click.echo(f"\n{clean(c.id, 80)} [{c.kind.value}] {clean(c.source or '', 120)}")
        click.echo(f"  {clean(c.text, 600)}")
        click.echo(f"  {clean(c.question or '', 600)}")
        verdict = click.prompt(
            "  pass, fail or skip",
            type=click.Choice(["pass", "fail", "skip"]),
            default="skip",
            show_choices=False,
        )
        if verdict == "skip":
            continue
        note = click.prompt("  note (optional)", default="", show_default=False)
        answers.append(
            Answer(
                criterion_id=c.id,
                result=verdict,
                note=note,
                who=who,
                at=_now(),
                fingerprint=c.fingerprint,
            )
        )
    return answers


# ---------------------------------------------------------------- the command


@dataclass(frozen=True)
class _Context:
    loaded: LoadedPlan
    phase: Phase
    repo: Path
    base_dir: Path
    state_root: Path
    policy: SandboxPolicy
    homes: Path
    """The verifier's private HOMEs (a temporary folder, removed at the end)."""

    @property
    def hidden(self) -> tuple[Path, ...]:
        """What no sandbox shows: mergegate's state and this verification's records."""
        return (self.state_root, self.base_dir)

    def objects(self) -> tuple[Path, ...]:
        return object_dirs(self.repo) if self.policy.enabled else ()

    def command_sandbox(self) -> Sandbox | None:
        """Where plan commands run: the tree read-write (its `.git` read-only), the network
        shared, mergegate's state hidden; None with --no-sandbox."""
        found = self.policy.sandbox(
            self.repo,
            writable=True,
            home=None,
            objects=self.objects(),
            read_only_inside=(".git",),
            hidden=self.hidden,
        )
        return None if found is None else found.model_copy(update={"network": True})

    def sandboxed(self, verifier: Backend | None) -> Backend | None:
        if verifier is None or not self.policy.enabled:
            return verifier
        objects = self.objects()
        return SandboxedBackend(
            verifier, self.policy, self.homes, objects=lambda _r: objects, hidden=self.hidden
        )


def _new_run(ctx: _Context) -> tuple[str, Path]:
    run_id = new_check_run_id()
    return run_id, PhaseDir(ctx.base_dir).run(run_id)


def _exclude(ctx: _Context, gsd: Path | None) -> tuple[str, ...]:
    """Tree paths mergegate itself writes to: its state, the plan, the GSD report copy."""
    excluded = []
    for path in (ctx.state_root, ctx.loaded.root, *([gsd] if gsd else [])):
        try:
            excluded.append(path.resolve().relative_to(ctx.repo.resolve()).as_posix())
        except ValueError:
            continue
    return tuple(e for e in excluded if e != ".")


def _options(ctx: _Context, opts: dict[str, Any], **extra: Any) -> VerifyOptions:
    phase_dir = gsd_phase_dir(ctx.loaded.plan, ctx.phase, ctx.loaded.root)
    gsd = None if opts["no_gsd_copy"] else phase_dir
    warnings = tuple(extra.pop("extra_warnings", ()))
    if not ctx.policy.enabled:
        warnings += (f"sandbox {ctx.policy.describe()}",)
    return VerifyOptions(
        phase_dir=phase_dir,
        run_commands=not opts["no_commands"],
        command_timeout_s=opts["command_timeout"],
        pass_env=tuple(opts["pass_env"]),
        env_cmd=opts["env_cmd"],
        base=opts["base"],
        gsd_phase_dir=gsd,
        exclude=_exclude(ctx, gsd),
        sandbox=ctx.command_sandbox(),
        extra_warnings=warnings,
        **extra,
    )


def _follow_up(
    ctx: _Context, opts: dict[str, Any], config: Config, answers: list[Answer]
) -> tuple[VerificationResult, Path]:
    """Apply answers or an acceptance: to the last result when the tree is unchanged, else by
    verifying again (recorded answers apply to unchanged criteria)."""
    ledger = PhaseDir(ctx.base_dir).answers
    for answer in answers:
        record_answer(ledger, answer)
    if answers and not opts["report_dir"]:
        _answer_runs(ctx, config, answers)
    acceptance = _acceptance(opts)
    previous = latest_result(PhaseDir(ctx.base_dir).runs)
    run_id, run_dir = _new_run(ctx)
    recorded = tuple(load_answers(ledger))
    options = _options(ctx, opts, answers=recorded, acceptance=acceptance, run_id=run_id)
    same_tree = (
        previous is not None
        and previous.tree is not None
        and tree_state(ctx.repo, options.exclude).fingerprint == previous.tree
    )
    if previous is not None and same_tree:
        result = reverify(
            previous,
            run_dir=run_dir,
            answers=recorded,
            acceptance=acceptance,
            gsd_phase_dir=options.gsd_phase_dir,
            run_id=run_id,
        )
        return result, run_dir
    note = "the tree changed since the last verification (or there was none): verified again"
    options = _options(
        ctx, opts, answers=recorded, acceptance=acceptance, run_id=run_id, extra_warnings=(note,)
    )
    return _full_run(ctx, opts, config, run_dir, options), run_dir


def _answer_runs(ctx: _Context, config: Config, answers: list[Answer]) -> None:
    """The same answers for the runs of this plan that wait at this phase: recorded in each
    run's database (a run reads a person's answers only from there), then `mergegate resume
    RUN` goes on."""
    # the engine (and DBOS, ~0.3 s to import) only when there are answers to record
    from mergegate.engine import (  # noqa: PLC0415
        Answers,
        database_url_of,
        record_plan_answers,
    )

    given = Answers(
        criteria=[(a.criterion_id, a.result) for a in answers],
        note=answers[0].note,
        who=answers[0].who,
    )
    for run_id in record_plan_answers(
        ctx.state_root, ctx.loaded.path, ctx.phase.id, given, database_url_of(config)
    ):
        click.echo(f"mergegate: the answers are recorded for run {run_id} too", err=True)


def _acceptance(opts: dict[str, Any]) -> GapAcceptance | None:
    if not opts["accept_gaps"]:
        return None
    reason = (opts["reason"] or "").strip()
    if not reason:
        raise UsageError("--accept-gaps needs --reason TEXT: say why the gaps are acceptable")
    return GapAcceptance(reason=reason, who=_who(opts["who"]), at=_now())


def _full_run(
    ctx: _Context, opts: dict[str, Any], config: Config, run_dir: Path, options: VerifyOptions
) -> VerificationResult:
    verifier = ctx.sandboxed(_verifier(opts["verifier"], opts["verifier_cmd"], config))
    return verify_phase(
        ctx.loaded.plan, ctx.phase.id, ctx.repo, run_dir=run_dir, verifier=verifier, options=options
    )


def _interactive(opts: dict[str, Any]) -> bool:
    return (
        opts["fmt"] == "text"
        and not opts["no_input"]
        and sys.stdin.isatty()
        and sys.stdout.isatty()
    )


@click.command("verify")
@click.argument("plan_path", metavar="PLAN", type=click.Path(path_type=Path))
@click.option(
    "--phase",
    "phase_id",
    default=None,
    help="The phase to verify (default: the current one: GSD's STATE.md, else the first "
    "phase not yet verified; the choice is printed).",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The integrated tree to verify (checks and commands run here).",
)
@click.option("--verifier", default=None, help="Verifier agent backend for criteria in prose.")
@click.option("--verifier-cmd", default=None, help='Verifier as a program: "PROGRAM ARGS".')
@click.option(
    "--base", default=None, help="Revision the phase started from: the verifier sees BASE..HEAD."
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="List every criterion, its checks and every command; run nothing.",
)
@format_option(
    "Result on stdout: readable lines, or one JSON object (status, criteria[] with id, "
    "source, kind, result, evidence)."
)
@click.option(
    "--no-commands", is_flag=True, help="Do not run command checks; their criteria stay unverified."
)
@click.option(
    "--command-timeout",
    type=click.FloatRange(min=1),
    default=600.0,
    show_default=True,
    help="Seconds each command check may run.",
)
@click.option(
    "--pass-env",
    multiple=True,
    metavar="NAME",
    help="Let plan commands see this environment variable (repeatable; none by default).",
)
@click.option(
    "--env-cmd",
    metavar="PREFIX",
    default=None,
    help='Run every plan command as PREFIX COMMAND (e.g. "uv run", "nix develop -c"); '
    "default: the project's own environment found in the tree (.venv, uv, poetry, hatch, "
    "node_modules/.bin).",
)
@click.option(
    "--answer",
    "answers",
    multiple=True,
    metavar="ID=pass|fail",
    help="Record a person's answer to an open criterion (repeatable).",
)
@click.option("--note", default="", help="A note stored with --answer.")
@click.option("--who", default=None, help="Who answers or accepts (default: the login name).")
@click.option(
    "--accept-gaps", is_flag=True, help="Complete the phase with its gaps (needs --reason)."
)
@click.option("--reason", default=None, help="Why the gaps are accepted.")
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep runs and answers under DIR/<phase>/ (default: the state directory, one "
    "folder per plan and phase).",
)
@click.option(
    "--no-gsd-copy",
    is_flag=True,
    help="Do not write <NN>-VERIFICATION.md into a GSD phase directory.",
)
@click.option("--no-input", is_flag=True, help="Never ask questions, even on a terminal.")
@sandbox_options
@click.pass_context
def verify(ctx: click.Context, /, **opts: Any) -> None:
    """Verify a phase of PLAN against the tree with checks mergegate runs itself.

    PLAN is a plan `mergegate plan show` reads (a GSD .planning tree, a superpowers or
    spectacular plan, a native YAML plan) or a JSON file of the plan model. Commands run in
    the project's own environment (.venv, uv, poetry, hatch, node_modules/.bin, or
    --env-cmd); one that cannot run there is "unverified: environment", never a gap. See
    docs/verify.md for the exact rules.

    Plan commands and a verifier that runs as a program run in a sandbox (bubblewrap,
    docs/sandbox.md): commands see the tree read-write (its .git read-only), the verifier
    read-only; neither sees your HOME or mergegate's state. Where no sandbox can be made,
    verify is refused (exit 4) unless --no-sandbox is given.

    \b
    Exit codes: 0 passed (or complete_with_gaps after --accept-gaps); 1 gaps found;
    2 usage or plan error (a path outside the repository); 5 human needed or not verifiable.
    """
    config = load_config(opts["repo"])
    if opts["phase_id"] is None:
        opts["phase_id"] = _pick_phase(opts["plan_path"])
    loaded = read_plan(opts["plan_path"], only_phase=opts["phase_id"])
    phase = find_phase(loaded.plan, opts["phase_id"])
    require_valid(loaded.plan, phase=phase.id)  # the validation `run` and `plan check` share
    for note in loaded.skipped:
        click.echo(f"warning: {clean(note, 400)}", err=True)
    verifier = _verifier(opts["verifier"], opts["verifier_cmd"], config)
    if verifier is not None:  # before anything is made, and in a dry run too
        require_ready([preflight(verifier, label=f"verifier {verifier.name}")])
    if opts["dry_run"]:
        data = _dry_run_dict(phase, derive_checks(loaded.plan, phase))
        if opts["fmt"] == "json":
            click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            _print_dry_run(data)
        ctx.exit(int(ExitCode.OK))
    policy = sandbox_policy(config, opts)
    if _runs_programs(opts, config):
        policy.require()  # before anything is written
    root = ensure_state_dir(state_dir(config))
    base_dir = (
        opts["report_dir"] / _slug(phase.id)
        if opts["report_dir"]
        else phase_state_dir(root, loaded.path, phase.id)
    )
    homes = Path(tempfile.mkdtemp(prefix="mergegate-homes-"))
    context = _Context(loaded, phase, opts["repo"], base_dir, root, policy, homes)
    try:
        result, run_dir = _verify_or_follow_up(context, opts, config)
        _emit(result, run_dir / "VERIFICATION.md", opts["fmt"])
        if (
            result.status is VerificationStatus.HUMAN_NEEDED
            and result.questions
            and _interactive(opts)
        ):
            answers = _ask_on_tty(result, _who(opts["who"]))
            if answers:
                follow = {**opts, "accept_gaps": False}
                result, run_dir = _follow_up(context, follow, config, answers)
                _emit(result, run_dir / "VERIFICATION.md", opts["fmt"])
    finally:
        remove_tree(homes)
    ctx.exit(int(result.exit_code))


def _pick_phase(path: Path) -> str:
    """Seed 004: without --phase, the current phase (GSD's STATE.md, else the first not yet
    verified); says which on stderr."""
    # errors of the import are judged once the phase is known (read_plan, only_phase=…)
    plan = read_plan(path).plan if path.suffix == ".json" else import_plan(path).plan
    if not plan.phases:
        raise UsageError(f"{path}: the plan has no phases")
    root = path if path.is_dir() else path.parent
    phase, why = current_phase(plan, root)
    if len(plan.phases) > 1:
        click.echo(
            f"verifying phase {clean(phase.id, 60)} ({why}; --phase picks another)", err=True
        )
    return phase.id


def _runs_programs(opts: dict[str, Any], config: Config) -> bool:
    """Whether this verification starts processes: plan commands, or a verifier program."""
    if not opts["no_commands"] or opts["verifier_cmd"]:
        return True
    verifier = _verifier(opts["verifier"], None, config)
    return verifier is not None and starts_processes(verifier)


def _verify_or_follow_up(
    ctx: _Context, opts: dict[str, Any], config: Config
) -> tuple[VerificationResult, Path]:
    given = _parse_answers(opts["answers"])
    if given or opts["accept_gaps"]:
        previous = latest_result(PhaseDir(ctx.base_dir).runs)
        if given and previous is None:
            raise UsageError("no earlier verification of this phase to answer: run verify first")
        who = _who(opts["who"])
        answers = _answers_for(previous, given, opts["note"], who) if previous else []
        return _follow_up(ctx, opts, config, answers)
    run_id, run_dir = _new_run(ctx)
    recorded = tuple(load_answers(PhaseDir(ctx.base_dir).answers))
    options = _options(ctx, opts, answers=recorded, run_id=run_id)
    return _full_run(ctx, opts, config, run_dir, options), run_dir
