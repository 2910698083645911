"""A task's review report in seed 004's shape: `<phase>-<unit>-REVIEW-T<n>.md` and its twin.

Frontmatter a tool can read (`reviewed`, `status: passed | issues_found`, the spec and quality
finding counts, the critical / warnings / info counts), then one section per review stage —
**Spec Compliance** and **Code Quality**, never merged — with each stage's verdict (its
one-line summary and confidence) and its findings (severity, requirement, file, issue,
suggestion, status), the checks, every reviewer attempt, and a summary table.

mergegate's severities are seed 004's under other names: critical → critical, important →
warning, minor → info. Everything a reviewer wrote is untrusted: it goes through `inline`
(escaped, one line, bounded) wherever it lands in markdown, and into the frontmatter only as
counts and values mergegate made.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from mergegate.atomic_files import write_atomic, write_json_atomic
from mergegate.engine._context.outcomes import TaskOutcome, VerdictEntry
from mergegate.engine._context.plan_views import report_stem
from mergegate.engine._context.runtime import Runtime
from mergegate.plans import Phase, Unit
from mergegate.review import FindingRecord
from mergegate.store import RecordKind
from mergegate.untrusted import frontmatter, md_code, md_text

__all__ = ["SEED_SEVERITY", "render_task_report", "write_task_report"]

SEED_SEVERITY = {"critical": "critical", "important": "warning", "minor": "info"}
"""mergegate's severity → the word seed 004's reports use."""

_STAGES = (
    ("spec", "Spec Compliance", "spec compliance"),
    ("quality", "Code Quality", "code quality"),
)


def write_task_report(rt: Runtime, phase_id: str, unit: Unit, task: TaskOutcome) -> Path:
    """`<phase>-<unit>-REVIEW-T<n>.md` plus its JSON twin, in the unit's folder of the run;
    and the same report as a row of the run's database (`RecordKind.TASK_REVIEW`: the task's
    outcome with its verdicts and findings, and the markdown), for any other host."""
    phase = rt.phase(phase_id)
    stem = report_stem(phase, unit, task.number)
    folder = rt.unit_dir(phase_id, unit.id)
    markdown = render_task_report(rt.run_id, phase, unit, task)
    rt.rows.put_record(
        RecordKind.TASK_REVIEW, (phase_id, unit.id, str(task.number)), task, markdown
    )
    write_atomic(folder / f"{stem}.md", markdown, durable=False)
    write_json_atomic(folder / f"{stem}.json", {"report": stem, **task.dump()}, durable=False)
    return folder / f"{stem}.md"


def render_task_report(run_id: str, phase: Phase, unit: Unit, task: TaskOutcome) -> str:
    """The report's markdown; it follows from its arguments alone (a GSD write-back commits
    the same text on every retry)."""
    counts = _counts(task.findings)
    status = "passed" if task.decision == "approved" else "issues_found"
    lines = _frontmatter(run_id, phase, unit, task, status=status, counts=counts)
    lines += [
        f"# Review: Phase {md_text(phase.id, 300)} Plan {md_text(unit.id, 300)} Task {task.number} "
        f"({md_text(task.id, 300)})",
        "",
        f"**Decision:** `{task.decision}` — {md_text(task.reason, 500) or 'no reason recorded'}",
        "",
        f"- task commit: `{task.commit or '-'}`; final head: `{task.head or '-'}`",
        f"- review: {task.review_status or 'not reviewed'} in {task.rounds} round(s); "
        f"tokens: {task.tokens}",
    ]
    for stage, title, words in _STAGES:
        lines += _stage_lines(task, stage, title, words)
    lines += _check_lines(task)
    lines += _attempt_lines(task)
    lines += _summary_lines(counts, status)
    lines += ["", "## Review records", ""]
    lines += [f"- {md_text(path, 500)}/summary.md" for path in task.reports] or ["None."]
    return "\n".join(lines) + "\n"


def _counts(findings: list[FindingRecord]) -> dict[str, int]:
    reviewed = [f for f in findings if f.stage in ("spec", "quality")]
    seeds = [SEED_SEVERITY.get(f.finding.severity.value, "info") for f in reviewed]
    return {
        "spec_findings": sum(1 for f in reviewed if f.stage == "spec"),
        "quality_findings": sum(1 for f in reviewed if f.stage == "quality"),
        "critical": seeds.count("critical"),
        "warnings": seeds.count("warning"),
        "info": seeds.count("info"),
    }


def _frontmatter(
    run_id: str,
    phase: Phase,
    unit: Unit,
    task: TaskOutcome,
    *,
    status: str,
    counts: dict[str, int],
) -> list[str]:
    reviewed = (
        datetime.fromtimestamp(task.reviewed_at, UTC).isoformat(timespec="seconds")
        if task.reviewed_at is not None
        else None
    )
    values: dict[str, object] = {
        "run_id": run_id,
        "phase": phase.id,
        "plan": unit.id,
        "unit": unit.id,
        "task": task.number,
        "task_id": task.id,
        "reviewed": reviewed,
        "status": status,
        "decision": task.decision,
        **counts,
        "rounds": task.rounds,
        "open_findings": len(task.open_findings),
    }
    # the block's lines and the empty one after it; its scalars are JSON-quoted, so ids
    # from a plan cannot break it
    return frontmatter(values).split("\n")


def _stage_lines(task: TaskOutcome, stage: str, title: str, words: str) -> list[str]:
    lines = ["", f"## {title}", ""]
    verdict = _last_verdict(task.verdicts, stage)
    if verdict is None:
        return [*lines, f"Not reviewed ({words} stage did not run or gave no verdict)."]
    confidence = verdict.confidence
    shown = "—" if confidence is None else f"{confidence:g}"
    summary = md_text(verdict.summary, 300) or "no summary"
    lines += [f"**Verdict:** `{verdict.decision}` — {summary} (confidence {shown})", ""]
    findings = [f for f in task.findings if f.stage == stage]
    if not findings:
        return [*lines, f"No {words} issues found."]
    for n, finding in enumerate(findings, start=1):
        lines += _finding_block(n, finding)
    return lines


def _last_verdict(verdicts: list[VerdictEntry], stage: str) -> VerdictEntry | None:
    valid = [v for v in verdicts if v.stage == stage and v.decision in _VERDICTS]
    return valid[-1] if valid else None


_VERDICTS = ("approve", "fixes", "reject")


def _finding_block(n: int, record: FindingRecord) -> list[str]:
    f = record.finding
    severity = SEED_SEVERITY.get(f.severity.value, "info")
    lines = [
        f"### Finding {n}: {md_text(f.title, 300)}",
        f"- **Severity:** {severity}",
    ]
    if f.requirement:
        lines.append(f"- **Requirement:** {md_text(f.requirement, 300)}")
    if f.file:
        where = md_text(f.file, 300) + (f":{f.line}" if f.line else "")
        lines.append(f"- **File:** {where}")
    lines.append(f"- **Issue:** {md_text(f.detail or f.title, 800)}")
    if f.suggestion:
        lines.append(f"- **Suggestion:** {md_text(f.suggestion, 800)}")
    lines += [
        f"- **Status:** {md_text(record.status.value, 20)} ({md_code(f.id, 60)})",
        "",
    ]
    return lines


def _check_lines(task: TaskOutcome) -> list[str]:
    lines = ["", "## Checks", ""]
    return lines + (
        [
            f"- {md_code(c.run, 200)}: exit {c.exit} ({'passed' if c.passed else 'FAILED'})"
            for c in task.checks
        ]
        or ["None."]
    )


def _attempt_lines(task: TaskOutcome) -> list[str]:
    if not task.verdicts:
        return []
    lines = [
        "",
        "## Reviewer attempts",
        "",
        "| review | round | stage | attempt | decision | summary | confidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in task.verdicts:
        confidence = "—" if v.confidence is None else f"{v.confidence:g}"
        lines.append(
            f"| {v.review} | {v.round} | {md_text(v.stage, 20)} "
            f"| {v.attempt} | {md_text(v.decision, 20)} "
            f"| {md_text(v.summary, 200)} | {confidence} |"
        )
    return lines


def _summary_lines(counts: dict[str, int], status: str) -> list[str]:
    rows: Iterable[tuple[str, str]] = (
        ("Spec findings", "spec_findings"),
        ("Quality findings", "quality_findings"),
        ("Critical", "critical"),
        ("Warnings", "warnings"),
        ("Info", "info"),
    )
    lines = ["", "## Summary", "", "| Metric | Count |", "|--------|-------|"]
    lines += [f"| {label} | {counts[key]} |" for label, key in rows]
    return [*lines, "", f"**Status:** {status}"]
