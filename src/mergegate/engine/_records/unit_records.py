"""What a run writes for people: task review reports, a SUMMARY.md per unit, conflict packages.

Layout under `.mergegate/runs/<run-id>/`:

    plan.json                         a copy of the plan snapshot the run executes
    run.json                          a copy of the run's card (status, branch, agents)
    SUMMARY.md, summary.json          the run summary (`--format json` prints the same object)
    <phase>/<unit>/unit.json          where the unit stands (a copy)
    <phase>/<unit>/SUMMARY.md         the unit summary ("Unresolved Review Findings")
    <phase>/<unit>/<phase>-<unit>-REVIEW-T<n>.md/.json   one report per task (`task_report`)
    <phase>/<unit>/<task>/attempts/NN-<role>/            every agent attempt (prompt, output,
                                                         process record, result)
    <phase>/<unit>/<task>/checks/NN/MM/                  every check run
    <phase>/<unit>/<task>/review[.n]/                    the review loop's own reports
    <phase>/<unit>/escalation/        the package for a person (conflict: both sides, paths)

The copies are written for people and tools and never read back: the card, the plan and where
each unit and phase stands are rows of the run's database (`mergegate.store.RunRows`), written
here too. Agent text is untrusted: it is fenced or escaped wherever it lands in markdown.
"""

from __future__ import annotations

from pathlib import Path

from mergegate.atomic_files import write_atomic, write_json_atomic
from mergegate.engine._context.outcomes import (
    Merged,
    OpenFinding,
    PhaseOutcome,
    TaskOutcome,
    UnitOutcome,
)
from mergegate.engine._context.runtime import Runtime
from mergegate.git import GitRepository
from mergegate.ids import AnswerKey
from mergegate.plans import Unit
from mergegate.review.reports import fence
from mergegate.store import RecordKind, StateKind
from mergegate.untrusted import frontmatter, md_code, md_text

__all__ = [
    "phase_summary",
    "write_conflict_package",
    "write_phase_records",
    "write_unit_records",
]

_MAX_PACKAGE_PATHS = 50


def _finding_line(record: OpenFinding) -> str:
    f = record.finding
    where = f" ({md_text(f.file, 200)}:{f.line})" if f.file else ""
    stage = f" [{md_text(record.stage, 20)}]" if record.stage else ""
    severity, fid = md_text(f.severity.value, 20), md_code(f.id, 60)
    return f"- **{severity}** {fid}{stage} {md_text(f.title, 300)}{where}"


def write_unit_records(rt: Runtime, out: UnitOutcome) -> None:
    """Where the unit stands, into the run's database; and for people `unit.json` and its
    `SUMMARY.md`, rewritten as it progresses (the summary a row too,
    `RecordKind.UNIT_SUMMARY`, for any other host)."""
    summary = unit_summary(rt, out)
    rt.rows.put_with_record(
        StateKind.UNIT, RecordKind.UNIT_SUMMARY, (out.phase, out.id), out, summary
    )
    folder = rt.unit_dir(out.phase, out.id)
    write_json_atomic(folder / "unit.json", out, durable=False)
    write_atomic(folder / "SUMMARY.md", summary, durable=False)


def unit_summary(rt: Runtime, out: UnitOutcome) -> str:
    unit = rt.unit(out.phase, out.id)
    front = {
        "run_id": rt.run_id,
        "phase": out.phase,
        "unit": out.id,
        "status": out.status,
        "merge_commit": out.merge_commit or None,
    }
    lines = [
        frontmatter(front).removesuffix("\n"),
        f"# Unit {md_text(out.id, 300)}: {md_text(unit.name, 300)}",
        "",
        f"**Status:** {out.status}" + (f" — {md_text(out.reason, 500)}" if out.reason else ""),
        "",
        f"- branch: `{out.branch or '-'}`; integration branch: `{rt.record.into}`",
        f"- merge commit: `{out.merge_commit or '-'}`",
        "",
        "| task | decision | commit | reason |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {md_text(t.id, 40)} | {t.decision} | `{(t.commit or t.head or '-')[:12]}` "
        f"| {md_text(t.reason, 120)} |"
        for t in out.tasks
    ]
    unresolved = [t for t in out.tasks if t.decision not in ("approved", "waiting_for_human")]
    if unresolved:
        lines += ["", "## Unresolved Review Findings", ""]
        for t in unresolved:
            lines += [
                f"### Task {md_text(t.id, 300)}: {md_text(t.name, 300)} — {t.decision}",
                "",
                f"**Why:** {md_text(t.reason, 800)}",
                "",
            ]
            lines += ["**Open findings:**", ""] + (
                [_finding_line(f) for f in t.open_findings] or ["None recorded."]
            )
            lines += _output_lines(t)
            lines += ["", "**Implementation notes:**", "", fence(t.notes or "(none)\n")]
    lines += _aside_lines(rt, out)
    if out.escalation:
        lines += ["", f"The package for a person is in {md_code(out.escalation, 500)}."]
    return "\n".join(lines) + "\n"


def _aside_lines(rt: Runtime, out: UnitOutcome) -> list[str]:
    """What the unit skipped and why (`run.on_escalation = "skip"`): each task set aside,
    where its work is, and each task that waited for one."""
    aside = [
        t
        for t in out.tasks
        if t.decision == "needs_manual_review"
        and not t.stopped
        and rt.options.on_escalation == "skip"
    ]
    waiting = [t for t in out.tasks if t.decision == "not_run"]
    if not aside and not waiting:
        return []
    lines = ["", "## Skipped: set aside for a person", ""]
    for t in aside:
        kept = t.head == out.head
        work = "its work is on the unit's branch" if kept else f"its work is at `{t.head[:12]}`"
        lines.append(
            f"- **{md_text(t.id, 40)}** set aside: {md_text(t.reason, 500)}"
            + (f"; {work}" if t.head and t.head != t.start else "")
        )
    lines += [f"- **{md_text(t.id, 40)}** {md_text(t.reason, 500)}" for t in waiting]
    key = AnswerKey(out.id, "TASK")  # TASK: any of the tasks listed above
    answer = f"mergegate resume {rt.run_id} --answer {key}=approve|skip|retry"
    lines += [
        "",
        "The unit went on without them and stops here (not merged). Answer with "
        f"{md_code(answer, 200)}: the answer "
        "applies on top of what the unit did, and the tasks that waited run after it.",
    ]
    return lines


def _output_lines(task: TaskOutcome) -> list[str]:
    """The reviewer outputs a review could not decide from, each fenced (untrusted), with
    seed 000's guidance: nothing was made of them."""
    if not task.review_outputs:
        return []
    lines = ["", "**Reviewer outputs (excerpts; no verdict could be read from them):**", ""]
    for n, text in enumerate(task.review_outputs, start=1):
        lines += [f"Attempt {n}:", "", fence((text or "(no output)") + "\n")]
    lines.append(
        "The reviewer may not be following the template: check the reviewer and re-run. "
        "Nothing was made of these outputs (no finding, no fix)."
    )
    return lines


def phase_summary(result: PhaseOutcome) -> str:
    """A phase's summary for people: its units as they ended, and its verification."""
    lines = [f"# Phase {md_text(result.id, 300)}", "", f"- base: `{result.base or '-'}`", ""]
    lines += ["| unit | status | merge commit | reason |", "|---|---|---|---|"]
    lines += [
        f"| {md_text(u.id, 40)} | {u.status} | `{(u.merge_commit or '-')[:12]}` "
        f"| {md_text(u.reason, 120)} |"
        for u in result.units
    ]
    check = result.verification
    lines += ["", "## Verification", ""]
    if check is None:
        lines.append("Not run.")
    else:
        lines.append(
            f"**{md_text(check.status, 40)}**"
            + (f" — {md_text(check.reason, 500)}" if check.reason else "")
        )
    return "\n".join(lines) + "\n"


def write_phase_records(rt: Runtime, result: PhaseOutcome, copy: Path) -> None:
    """The phase's state into the run's database, its summary as a row for any other host
    (`RecordKind.PHASE_SUMMARY`), and its copy for people at `copy` (`phase.json`)."""
    summary = phase_summary(result)
    rt.rows.put_with_record(
        StateKind.PHASE, RecordKind.PHASE_SUMMARY, (result.id,), result, summary
    )
    write_json_atomic(copy, result.dump(), durable=False)


def _workspace_line(rt: Runtime, unit_id: str) -> str:
    if rt.remote is not None:
        return (
            f"The unit's branch is on the fleet's remote {md_code(rt.remote.url, 500)} "
            "(fetch it from there; its workspace was on a worker and is gone)."
        )
    where = md_code(rt.unit_worktree(unit_id), 500)
    return f"The unit's workspace (a repository of its own) is kept at {where}."


def write_conflict_package(rt: Runtime, phase_id: str, unit: Unit, merged: Merged) -> Path:
    """Both sides of a merge conflict and the conflicting paths, for the person who resolves it."""
    folder = rt.unit_dir(phase_id, unit.id) / "escalation"
    repo = GitRepository(rt.repo)
    paths = list(merged.conflicts)
    sides = {"ours": merged.ours, "theirs": merged.theirs, "base": merged.base}
    for side, commit in sides.items():
        for path in paths[:_MAX_PACKAGE_PATHS]:
            text = repo.read_file(commit, path)
            if text is not None:
                write_atomic(folder / side / path, text, durable=False)
    write_json_atomic(
        folder / "conflict.json",
        {
            "unit": unit.id,
            "into": rt.record.into,
            "branch": rt.unit_branch(unit.id),
            **merged.dump(),
        },
        durable=False,
    )
    readme = [
        f"# Unit {md_text(unit.id, 300)} could not be merged into `{rt.record.into}`",
        "",
        f"- ours (the integration branch): `{merged.ours}`",
        f"- theirs (the unit branch `{rt.unit_branch(unit.id)}`): `{merged.theirs}`",
        f"- merge base: `{merged.base}`",
        "",
        "## Conflicting paths",
        "",
        *(f"- {md_code(p, 500)}" for p in paths),
        "",
        "The files as each side has them are in `ours/`, `theirs/` and `base/`. Resolve by hand:",
        "",
        "```",
        f"git checkout {rt.record.into}",
        f"git merge --no-ff {rt.unit_branch(unit.id)}",
        "```",
        "",
        _workspace_line(rt, unit.id),
    ]
    write_atomic(folder / "README.md", "\n".join(readme) + "\n", durable=False)
    return folder
