"""GSD-compatible `SUMMARY.md` and `VERIFICATION.md`, rendered from typed values (pure).

GSD reads these files to decide what happened: a `<plan-id>-SUMMARY.md` beside a plan marks it
executed, and a phase's `<id>-VERIFICATION.md` frontmatter `status` says whether its goal was
met. mergegate writes the same shapes (the frontmatter keys of GSD's `templates/summary.md`
and of its verifier's reports, as seen in real trees) so GSD and mergegate can take turns on
one plan. Provenance is recorded (`generator: mergegate`); GSD ignores keys it does not know.
The frontmatter is `mergegate.untrusted.frontmatter`'s: JSON-quoted scalars, so a plan's
words cannot end the block or add a key.

A verification's `status` must agree with its content: `passed` only with every truth
verified and nothing left for a person; `gaps_found` only with a failed truth or a gap. The
values refuse anything else, so no report can say more than its evidence.
"""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from mergegate.untrusted import frontmatter

__all__ = [
    "CommandResult",
    "Gap",
    "GapArtifact",
    "HumanCheck",
    "PhaseVerification",
    "TaskRecord",
    "TruthResult",
    "UnitSummary",
    "render_summary",
    "render_verification",
]

GENERATOR = "mergegate"


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TaskRecord(_Value):
    """One task as executed: its name and the commit that holds it."""

    name: str
    commit: str | None = None
    kind: str | None = None
    """Conventional-commit type (`feat`, `fix`, `test`, `refactor`, ...)."""


class UnitSummary(_Value):
    """What one unit's run did, in the terms of GSD's SUMMARY.md frontmatter and body."""

    phase: str
    """The phase as GSD names it: the directory name (`04-project-detection`)."""
    plan: str
    """The plan number as written (`02`)."""
    one_liner: str
    completed: datetime.datetime
    started: datetime.datetime | None = None
    subsystem: str = ""
    tags: tuple[str, ...] = ()
    provides: tuple[str, ...] = ()
    affects: tuple[str, ...] = ()
    tech_added: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    files_created: tuple[str, ...] = ()
    files_modified: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    requirements_completed: tuple[str, ...] = ()
    tasks: tuple[TaskRecord, ...] = ()
    deviations: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()
    """Review findings left open when a task escalated (seed 004: "Unresolved Review
    Findings"); a unit with any has not passed its review."""


class TruthResult(_Value):
    """One must-have (truth, success criterion) and what verification found."""

    truth: str
    status: Literal["verified", "failed", "partial", "uncertain"]
    evidence: str = ""


class GapArtifact(_Value):
    path: str
    issue: str


class Gap(_Value):
    """A must-have that does not hold, in GSD's `gaps:` shape."""

    truth: str
    status: Literal["failed", "partial"]
    reason: str
    artifacts: tuple[GapArtifact, ...] = ()
    missing: tuple[str, ...] = ()


class HumanCheck(_Value):
    """Something only a person can verify, in GSD's `human_verification:` shape."""

    test: str
    expected: str
    why_human: str


class CommandResult(_Value):
    """A check mergegate ran itself and its exit code."""

    command: str
    exit_code: int
    expected_exit: int = 0

    @property
    def passed(self) -> bool:
        return self.exit_code == self.expected_exit


class PhaseVerification(_Value):
    """A phase-level verification report (GSD `<id>-VERIFICATION.md`)."""

    phase: str
    verified: datetime.datetime
    status: Literal["passed", "gaps_found", "human_needed"]
    goal: str = ""
    truths: tuple[TruthResult, ...] = ()
    gaps: tuple[Gap, ...] = ()
    human_verification: tuple[HumanCheck, ...] = ()
    commands: tuple[CommandResult, ...] = ()
    re_verification: bool = False

    @property
    def score(self) -> str:
        verified = sum(t.status == "verified" for t in self.truths)
        return f"{verified}/{len(self.truths)} must-haves verified"

    @model_validator(mode="after")
    def _status_matches_evidence(self) -> PhaseVerification:
        failing = [t for t in self.truths if t.status in ("failed", "partial")]
        failing_commands = [c for c in self.commands if not c.passed]
        if self.status == "passed":
            if not self.truths:
                raise ValueError("a passed verification needs at least one verified truth")
            if any(t.status != "verified" for t in self.truths) or self.gaps:
                raise ValueError("`passed` with a truth that is not verified or with gaps")
            if self.human_verification or failing_commands:
                raise ValueError("`passed` with checks left for a person or failing commands")
        if self.status == "gaps_found" and not (failing or self.gaps or failing_commands):
            raise ValueError("`gaps_found` without a failed truth, a gap or a failing command")
        if self.status == "human_needed" and not self.human_verification:
            raise ValueError("`human_needed` without a human_verification item")
        return self


def _stamp(value: datetime.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC)
    return value.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_summary(summary: UnitSummary) -> str:
    """`<plan-id>-SUMMARY.md` for one unit, GSD's frontmatter keys and body sections."""
    front: dict[str, object] = {
        "phase": summary.phase,
        "plan": summary.plan,
        "subsystem": summary.subsystem,
        "tags": list(summary.tags),
        "provides": list(summary.provides),
        "affects": list(summary.affects),
        "tech-stack": {"added": list(summary.tech_added), "patterns": list(summary.patterns)},
        "key-files": {
            "created": list(summary.files_created),
            "modified": list(summary.files_modified),
        },
        "key-decisions": list(summary.decisions),
        "requirements-completed": list(summary.requirements_completed),
        "duration": _duration(summary),
        "completed": summary.completed.date().isoformat(),
        "generator": GENERATOR,
    }
    lines = [
        f"# Phase {summary.phase} Plan {summary.plan}: Summary",
        "",
        f"**{_one_line(summary.one_liner)}**",
        "",
        "## Performance",
        "",
        f"- **Duration:** {_duration(summary)}",
    ]
    if summary.started is not None:
        lines.append(f"- **Started:** {_stamp(summary.started)}")
    lines += [
        f"- **Completed:** {_stamp(summary.completed)}",
        f"- **Tasks:** {len(summary.tasks)}",
        f"- **Files modified:** {len(summary.files_created) + len(summary.files_modified)}",
        "",
        "## Task Commits",
        "",
    ]
    for n, task in enumerate(summary.tasks, start=1):
        commit = f" - `{task.commit}`" if task.commit else ""
        kind = f" ({task.kind})" if task.kind else ""
        lines.append(f"{n}. **{_one_line(task.name)}**{commit}{kind}")
    lines += ["", "## Files Created/Modified", ""]
    lines += [f"- `{path}` (created)" for path in summary.files_created]
    lines += [f"- `{path}` (modified)" for path in summary.files_modified]
    lines += ["", "## Decisions Made", ""]
    lines += [f"- {_one_line(d)}" for d in summary.decisions] or [
        "None - followed plan as specified"
    ]
    lines += ["", "## Deviations from Plan", ""]
    lines += [f"- {_one_line(d)}" for d in summary.deviations] or [
        "None - plan executed as written"
    ]
    lines += ["", "## Issues Encountered", ""]
    lines += [f"- {_one_line(i)}" for i in summary.issues] or ["None"]
    if summary.unresolved:
        lines += ["", "## Unresolved Review Findings", ""]
        lines += [f"- {_one_line(finding)}" for finding in summary.unresolved]
    lines += ["", "---", f"*Phase: {summary.phase}*", f"*Completed: {summary.completed.date()}*"]
    return frontmatter(front) + "\n" + "\n".join(lines) + "\n"


def _duration(summary: UnitSummary) -> str:
    if summary.started is None:
        return "unknown"
    seconds = max(0, int((summary.completed - summary.started).total_seconds()))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}min {rest}s" if minutes else f"{rest}s"


def render_verification(report: PhaseVerification) -> str:
    """`<phase-id>-VERIFICATION.md`: GSD's frontmatter (status, score, gaps, ...) and tables."""
    front: dict[str, object] = {
        "phase": report.phase,
        "verified": _stamp(report.verified),
        "status": report.status,
        "score": report.score,
    }
    if report.re_verification:
        front["re_verification"] = True
    if report.gaps:
        front["gaps"] = [gap.model_dump(mode="json") for gap in report.gaps]
    if report.human_verification:
        front["human_verification"] = [h.model_dump(mode="json") for h in report.human_verification]
    front["generator"] = GENERATOR
    lines = [f"# Phase {report.phase}: Verification Report", ""]
    if report.goal:
        lines += [f"**Phase Goal:** {_one_line(report.goal)}", ""]
    lines += [
        f"**Verified:** {_stamp(report.verified)}",
        "",
        f"**Status:** {report.status}",
        "",
        "## Goal Achievement",
        "",
        "### Observable Truths",
        "",
        "| # | Truth | Status | Evidence |",
        "|---|-------|--------|----------|",
    ]
    for n, truth in enumerate(report.truths, start=1):
        cells = (_cell(truth.truth), truth.status.upper(), _cell(truth.evidence))
        lines.append(f"| {n} | {cells[0]} | {cells[1]} | {cells[2]} |")
    lines += ["", f"**Score:** {report.score}", ""]
    if report.commands:
        lines += ["## Commands Run", "", "| Command | Exit | Result |", "|---|---|---|"]
        for command in report.commands:
            result = "PASS" if command.passed else "FAIL"
            lines.append(f"| `{_cell(command.command)}` | {command.exit_code} | {result} |")
        lines.append("")
    if report.human_verification:
        lines += ["## Human Verification Required", ""]
        for check in report.human_verification:
            lines.append(f"- **{_one_line(check.test)}** — expected: {_one_line(check.expected)}")
        lines.append("")
    return frontmatter(front) + "\n" + "\n".join(lines)


def _cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|").replace("`", "'")
