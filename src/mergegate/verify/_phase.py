"""Verifying one phase: derive, run the program checks, ask the verifier, decide, record.

`verify_phase` is what `mergegate verify` and the run engine (at every phase boundary) call.
Plan paths are validated before anything runs, so a plan that points outside the tree is
rejected (exit 2) without having started a single command.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from mergegate.agents.base import Backend
from mergegate.errors import UsageError
from mergegate.ids import new_check_run_id
from mergegate.plans import Phase, Plan
from mergegate.processes import Sandbox
from mergegate.verify._advice import next_step
from mergegate.verify._criteria import coverage_note, derive_checks, find_phase, fingerprint
from mergegate.verify._environment import find_environment
from mergegate.verify._inspect import inspect
from mergegate.verify._judgement import checked
from mergegate.verify._model import (
    Answer,
    CheckKind,
    CheckSpec,
    CriterionChecks,
    CriterionKind,
    CriterionResult,
    Evidence,
    GapAcceptance,
    Outcome,
    VerificationResult,
    VerifierRun,
)
from mergegate.verify._paths import repo_path
from mergegate.verify._records import write_attempts, write_gsd_copy, write_result
from mergegate.verify._repo import phase_base, phase_diff, phase_history, tree_state
from mergegate.verify._runner import CommandRunner
from mergegate.verify._status import apply_answers, decide, question_for, summarize
from mergegate.verify._tree import TreeIndex
from mergegate.verify._verifier import (
    TEMPLATE,
    TEMPLATE_VERSION,
    AgentJudging,
    Question,
    ask_verifier,
    file_excerpts,
    merge_judgings,
    new_verification_id,
)

__all__ = ["VerifyOptions", "answers_for", "phase_text", "record", "reverify", "verify_phase"]


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class VerifyOptions:
    """How one verification runs. Defaults suit a standalone `mergegate verify`."""

    run_commands: bool = True
    """False (`--no-commands`): command checks are not run and their criteria stay
    unverified, never passed."""
    command_timeout_s: float = 600.0
    output_bytes: int = 256 << 10
    """Output kept per command stream in its log (the evidence excerpt is shorter)."""
    pass_env: tuple[str, ...] = ()
    """Extra environment variable names plan commands may see (explicit opt-in)."""
    env_cmd: str | None = None
    """`--env-cmd PREFIX`: run every command as `PREFIX COMMAND` in the project's environment
    (default: the environment found in the tree; see `mergegate.verify._environment`)."""
    sandbox: Sandbox | None = None
    """The sandbox plan commands run in (the tree read-write, see `mergegate.agents.sandbox`);
    None: none (`--no-sandbox`, or a library caller's choice)."""
    base: str | None = None
    """Git revision the phase started from: `BASE..HEAD` is the diff the verifier sees."""
    verifier_timeout_s: float = 1800.0
    verifier_stall_timeout_s: float = 300.0
    verifier_retries: int = 1
    verifier_batch: int = 8
    """Criteria per verifier call: the answer's size, and so the output budget it needs,
    grows with the criteria asked about at once."""
    answers: tuple[Answer, ...] = ()
    """People's answers (e.g. from `load_answers`); applied by criterion id and fingerprint."""
    acceptance: GapAcceptance | None = None
    gsd_phase_dir: Path | None = None
    """Also write `<NN>-VERIFICATION.md` there (GSD plans)."""
    phase_dir: Path | None = None
    """The phase's planning directory, written or not: without `base`, the phase is taken
    to start at the first commit that added a file there (its plans)."""
    exclude: tuple[str, ...] = ()
    """Tree paths (relative) left out of the tree fingerprint: mergegate's own state."""
    run_id: str | None = None
    clock: Callable[[], datetime] = _now
    new_verification_id: Callable[[], str] = new_verification_id
    extra_warnings: tuple[str, ...] = field(default=())


def verify_phase(
    plan: Plan,
    phase_id: str | None,
    repo_dir: Path,
    *,
    run_dir: Path,
    verifier: Backend | None,
    options: VerifyOptions | None = None,
) -> VerificationResult:
    """Verify phase `phase_id` of `plan` against the tree at `repo_dir`; write the records.

    Writes `VERIFICATION.md`, `verification.json`, command logs and verifier attempts into
    `run_dir` (which must not already hold a verification), and the GSD copy when
    `options.gsd_phase_dir` is set. Raises `UsageError` (exit 2) for an unknown phase and
    `PlanPathError` (exit 2) for a plan path outside the tree; never raises for what the
    checks find.
    """
    opts = options or VerifyOptions()
    phase = find_phase(plan, phase_id)
    items = derive_checks(plan, phase)
    root = repo_dir.resolve()
    _validate_paths(root, items)
    warnings = [*opts.extra_warnings, *_precheck(phase)]
    note = coverage_note(phase)
    if note is not None:
        warnings.append(note)
    base, base_how = phase_base(root, opts.base, opts.phase_dir)
    history = phase_history(root, base)
    tree = TreeIndex(root)
    if history is not None:
        tree.renames = dict(history.renames)
        tree.changed = history.changed
        if base_how != "--base":
            warnings.append(
                f"the phase's changes are read from {base_how} ({history.base[:12]}..HEAD); "
                "give --base to name its start"
            )
    environment = find_environment(root, opts.env_cmd)
    runner = CommandRunner(
        root,
        run_dir / "commands",
        timeout_s=opts.command_timeout_s,
        output_bytes=opts.output_bytes,
        pass_env=opts.pass_env,
        environment=environment,
        sandbox=opts.sandbox,
    )
    program = {item.criterion.id: _run_checks(item, tree, runner, opts) for item in items}
    items, dropped = _without_empty_scan(items, program)
    warnings += dropped
    judging = _judge(
        items,
        program,
        verifier,
        opts,
        root=root,
        phase=phase_text(plan, phase.id),
        run_dir=run_dir,
        base=history.base if history is not None else None,
        changed=tree.changed,
    )
    if tree.truncated:
        warnings.append(f"the tree has more than {len(tree.files())} files; only those were read")
    if judging is None and any(_needs_agent(i, program) for i in items):
        warnings.append("no verifier agent given: criteria in prose are left to a person")
    criteria = [
        _advised(phase, _result(item, program[item.criterion.id], judging, root)) for item in items
    ]
    state = tree_state(root, opts.exclude)
    status, reason, counts = summarize(criteria, opts.acceptance)
    result = VerificationResult(
        run_id=opts.run_id or new_check_run_id(),
        plan_title=plan.title,
        plan_format=plan.format.value,
        phase_id=phase.id,
        phase_name=phase.name,
        goal=phase.goal,
        status=status,
        reason=reason,
        verified_at=opts.clock(),
        repo=str(root),
        head=state.head,
        tree=state.fingerprint,
        criteria=tuple(criteria),
        counts=counts,
        verifier=None,
        acceptance=opts.acceptance,
        commands_run=opts.run_commands,
        environment=environment.describe(),
    )
    if opts.answers:
        result = apply_answers(result, opts.answers)
    outputs = write_attempts(run_dir, judging.attempts) if judging else ()
    verifier_run = _verifier_run(verifier, judging, outputs)
    result = result.model_copy(update={"verifier": verifier_run, "warnings": tuple(warnings)})
    return record(result, run_dir, opts.gsd_phase_dir)


def reverify(
    previous: VerificationResult,
    *,
    run_dir: Path,
    answers: Sequence[Answer] = (),
    acceptance: GapAcceptance | None = None,
    gsd_phase_dir: Path | None = None,
    clock: Callable[[], datetime] = _now,
    run_id: str | None = None,
) -> VerificationResult:
    """Apply answers (and an acceptance) to an earlier result without running anything again.

    The caller must make sure the tree is the one `previous` verified (compare
    `previous.tree` with `tree_state(repo, exclude).fingerprint`); otherwise run
    `verify_phase` again.
    """
    base = previous.model_copy(
        update={
            "run_id": run_id or new_check_run_id(),
            "verified_at": clock(),
            "acceptance": acceptance if acceptance is not None else previous.acceptance,
        }
    )
    result = apply_answers(base, [*previous.answers, *answers])
    return record(result, run_dir, gsd_phase_dir)


def answers_for(
    previous: VerificationResult,
    given: Sequence[tuple[str, str]],
    *,
    note: str,
    who: str,
    at: datetime,
) -> list[Answer]:
    """People's answers (`(criterion id, "pass"|"fail")`) to criteria of `previous`, with the
    criteria's fingerprints. `UsageError` (exit 2) for an id `previous` does not have, and for
    a criterion program evidence decided: a person cannot overrule a program."""
    by_id = {c.id: c for c in previous.criteria}
    answers = []
    for cid, verdict in given:
        criterion = by_id.get(cid)
        if criterion is None:
            open_ids = ", ".join(c.id for c in previous.questions) or "none"
            raise UsageError(f"no criterion {cid!r} in the last verification; open: {open_ids}")
        if criterion.decided_by == "program":
            raise UsageError(
                f"{cid} was decided by program evidence ({criterion.result.value}); a person "
                "cannot overrule it (accept the gaps with a reason to complete with them)"
            )
        if verdict not in ("pass", "fail"):
            raise UsageError(f"{cid}={verdict}: the answer must be pass or fail")
        answers.append(
            Answer(
                criterion_id=cid,
                result="pass" if verdict == "pass" else "fail",
                note=note,
                who=who,
                at=at,
                fingerprint=criterion.fingerprint,
            )
        )
    return answers


def record(
    result: VerificationResult, run_dir: Path, gsd_phase_dir: Path | None
) -> VerificationResult:
    """Write the GSD copy (if asked) and the run directory's records; return what was written."""
    if gsd_phase_dir is not None:
        _, why_not = write_gsd_copy(gsd_phase_dir, result)
        if why_not:
            result = result.model_copy(update={"warnings": (*result.warnings, why_not)})
    write_result(run_dir, result)
    return result


def phase_text(plan: Plan, phase_id: str) -> str:
    phase = find_phase(plan, phase_id)
    lines = [f"Phase {phase.id}" + (f": {phase.name}" if phase.name else "")]
    if plan.title:
        lines.append(f"Plan: {plan.title}")
    if phase.goal:
        lines.append(f"Goal: {phase.goal}")
    return "\n".join(lines)


# ---------------------------------------------------------------- steps


def _validate_paths(root: Path, items: Sequence[CriterionChecks]) -> None:
    for item in items:
        for spec in item.checks:
            if spec.path is not None:
                repo_path(root, spec.path, what=f"criterion {item.criterion.id}")
            if spec.kind is CheckKind.IMPORT and spec.target and "/" in spec.target:
                repo_path(root, spec.target, what=f"criterion {item.criterion.id} `to`")


def _precheck(phase: Phase) -> list[str]:
    """Seed 004 pitfall 5: verifying before every unit is complete finds "missing" work."""
    pending = [u.id for u in phase.units if not u.completed]
    if not pending:
        return []
    return [
        f"units of phase {phase.id} not recorded as complete: {', '.join(pending)}; "
        "their artifacts may simply not exist yet"
    ]


def _run_checks(
    item: CriterionChecks, tree: TreeIndex, runner: CommandRunner, opts: VerifyOptions
) -> list[Evidence]:
    evidence = []
    for spec in item.checks:
        if spec.kind is CheckKind.COMMAND:
            evidence.append(_command(spec, runner, opts))
        else:
            evidence.append(inspect(spec, tree))
    return evidence


def _command(spec: CheckSpec, runner: CommandRunner, opts: VerifyOptions) -> Evidence:
    if not opts.run_commands:
        return Evidence(
            check=CheckKind.COMMAND,
            by="program",
            outcome=Outcome.UNVERIFIED,
            detail="not run (--no-commands)",
            command=spec.command,
            argv=spec.argv,
        )
    return runner.run(spec)


def _without_empty_scan(
    items: list[CriterionChecks], program: dict[str, list[Evidence]]
) -> tuple[list[CriterionChecks], list[str]]:
    """The placeholder scan with nothing to scan is no criterion (and says why)."""
    kept, notes = [], []
    for item in items:
        found = program[item.criterion.id]
        empty = found and all(e.outcome is Outcome.SKIPPED for e in found)
        if item.criterion.kind is CriterionKind.PLACEHOLDERS and empty:
            notes.append(f"placeholder scan of the phase's files not done: {found[0].detail}")
            continue
        kept.append(item)
    return kept, notes


def _needs_agent(item: CriterionChecks, program: dict[str, list[Evidence]]) -> bool:
    """Ask the verifier only where its answer can matter: judgement needed, nothing failed."""
    found = program[item.criterion.id]
    if any(e.outcome is Outcome.FAIL for e in found):
        return False
    return item.judgement is not None or any(e.outcome is Outcome.UNCERTAIN for e in found)


def _question(item: CriterionChecks, found: Sequence[Evidence]) -> Question:
    c = item.criterion
    source = f"{c.source.file}:{c.source.line}" if c.source else None
    shown = [f"{e.check}: {e.outcome.value} — {e.detail}" for e in found]
    shown += [f"not checkable by program: {u}" for u in item.unchecked]
    return Question(c.id, c.kind.value, c.text, source, item.judgement or "", tuple(shown))


def _judge(
    items: Sequence[CriterionChecks],
    program: dict[str, list[Evidence]],
    verifier: Backend | None,
    opts: VerifyOptions,
    *,
    root: Path,
    phase: str,
    run_dir: Path,
    base: str | None,
    changed: Sequence[str] = (),
) -> AgentJudging | None:
    """Ask the verifier about the open criteria, `opts.verifier_batch` at a time: the answer
    a call needs grows with its criteria, and an answer cut off at the backend's output limit
    is lost whole."""
    asked_items = [i for i in items if _needs_agent(i, program)]
    if not asked_items or verifier is None:
        return None
    diff = phase_diff(root, base)
    size = max(1, opts.verifier_batch)
    parts: list[AgentJudging] = []
    for start in range(0, len(asked_items), size):
        batch = asked_items[start : start + size]
        parts.append(
            ask_verifier(
                verifier,
                [_question(i, program[i.criterion.id]) for i in batch],
                phase=phase,
                diff=diff,
                cwd=root,
                attempt_dir=run_dir / "verifier",
                timeout_s=opts.verifier_timeout_s,
                stall_timeout_s=opts.verifier_stall_timeout_s,
                retries=opts.verifier_retries,
                new_id=opts.new_verification_id,
                files=file_excerpts(root, batch, changed),
                first_attempt=sum(len(p.attempts) for p in parts) + 1,
            )
        )
    return merge_judgings(parts)


def _agent_evidence(cid: str, judging: AgentJudging | None, root: Path) -> list[Evidence]:
    if judging is None:
        return []
    judgement = judging.judgements.get(cid)
    if judgement is None:
        if judging.status == "ok":
            return []
        what = "malformed" if judging.status == "malformed" else "failed"
        detail = f"the verifier's answer was {what} after {len(judging.attempts)} attempt(s)"
        return [Evidence(check="agent", by="agent", outcome=Outcome.UNVERIFIED, detail=detail)]
    result, detail = checked(root, judgement)
    outcome = {"pass": Outcome.PASS, "fail": Outcome.FAIL, "uncertain": Outcome.UNCERTAIN}
    return [Evidence(check="agent", by="agent", outcome=outcome[result], detail=detail)]


def _result(
    item: CriterionChecks, found: list[Evidence], judging: AgentJudging | None, root: Path
) -> CriterionResult:
    c = item.criterion
    evidence = (*found, *_agent_evidence(c.id, judging, root))
    result, by = decide(evidence, item.judgement)
    criterion = CriterionResult(
        id=c.id,
        kind=c.kind,
        text=c.text,
        source=f"{c.source.file}:{c.source.line}" if c.source else None,
        unit=c.unit,
        task=c.task,
        result=result,
        decided_by=by,
        evidence=evidence,
        judgement=item.judgement,
        unchecked=item.unchecked,
        fingerprint=fingerprint(c.kind, c.text),
    )
    return criterion.model_copy(update={"question": question_for(criterion)})


def _advised(phase: Phase, criterion: CriterionResult) -> CriterionResult:
    step = next_step(phase, criterion)
    return criterion.model_copy(update={"next_step": step}) if step else criterion


def _verifier_run(
    verifier: Backend | None, judging: AgentJudging | None, outputs: tuple[str, ...]
) -> VerifierRun | None:
    if judging is None:
        return None
    assert verifier is not None
    return VerifierRun(
        backend=verifier.name,
        status=judging.status,
        attempts=len(judging.attempts),
        verification_id=judging.verification_id,
        template=f"{TEMPLATE}.v{TEMPLATE_VERSION}",
        template_sha256=judging.template_sha256,
        detail=judging.detail,
        outputs=outputs,
    )
