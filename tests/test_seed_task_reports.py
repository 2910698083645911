"""Seed 004's per-task review reports from `mergegate run` (issue 25 items 7 and 10): the
report's frontmatter and sections as the seed gives them, each stage's verdict with its
one-line summary and confidence, written into a GSD plan's own phase directory (committed
with the unit's code) as well as the run's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _gitrepo import git
from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from _verdict_object import finding, verdict_object
from mergegate.plans import load_plan
from test_run_gsd import PLANNING, WRITES, gsd_run_args

SPEC_OBJECT = verdict_object(
    "approve",
    [finding("S-1", "minor", "greeting wording", requirement="Task 1", suggestion="say hi")],
    summary="the task is done as specified",
    confidence=0.8,
)
QUALITY_OBJECT = verdict_object(
    "approve",
    [finding("Q-1", "minor", "no trailing newline check", file="greet.txt", line=1)],
    summary="small and correct",
    confidence=0.65,
)


def frontmatter(text: str) -> dict[str, object]:
    block = text.split("---\n")[1]
    return {k: json.loads(v) for k, v in (line.split(": ", 1) for line in block.splitlines())}


@pytest.fixture
def gsd_run(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    repo = repo_with(tmp_path / "repo", PLANNING)
    script = {"01-01/1": {"review": [{"text": SPEC_OBJECT}, {"text": QUALITY_OBJECT}]}}
    code, out, err = invoke(
        gsd_run_args(repo, agent(tmp_path, "impl", WRITES), agent(tmp_path, "rev", script))
    )
    assert code == 0, err
    assert out is not None
    return repo, out


def test_a_gsd_task_review_report_is_committed_into_the_plans_phase_directory(
    gsd_run: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    """Seed 004, Pattern 5 "Review Report Persistence" (`{phase_dir}/{padded}-{plan}-REVIEW-
    T{task_num}.md`; frontmatter `reviewed`, `status: passed | issues_found`, `spec_findings`,
    `quality_findings`, `critical`, `warnings`, `info`; `## Spec Compliance`, `## Code
    Quality`, `## Summary` with its Metric/Count table) and Locked decision "Reports persisted
    as markdown files in the phase directory (audit trail)": the report travels with the
    unit's code onto the integration branch, and the run's folder has the same text."""
    repo, out = gsd_run
    into = str(out["into"])
    committed = git(repo, "show", f"{into}:.planning/phases/01-greet/01-01-REVIEW-T1.md") + "\n"
    meta = frontmatter(committed)
    assert meta["status"] == "passed"
    assert isinstance(meta["reviewed"], str)
    assert meta["reviewed"].startswith("20")
    counts = {k: meta[k] for k in ("spec_findings", "quality_findings", "critical", "warnings")}
    assert counts == {"spec_findings": 1, "quality_findings": 1, "critical": 0, "warnings": 0}
    assert meta["info"] == 2
    for heading in ("## Spec Compliance", "## Code Quality", "## Summary"):
        assert heading in committed
    assert committed.index("## Spec Compliance") < committed.index("## Code Quality")
    spec = committed.split("## Spec Compliance")[1].split("## Code Quality")[0]
    assert "### Finding 1: greeting wording" in spec
    assert "- **Severity:** info" in spec
    assert "- **Requirement:** Task 1" in spec
    assert "- **Suggestion:** say hi" in spec
    assert "| Metric | Count |" in committed
    assert "| Quality findings | 1 |" in committed
    assert "**Status:** passed" in committed
    run_copy = Path(str(out["run_dir"])) / "01" / "01-01" / "01-01-REVIEW-T1.md"
    assert run_copy.read_text() == committed
    # GSD still reads the tree: the report is not mistaken for a plan or a summary
    checkout = tmp_path / "checkout"
    git(repo, "worktree", "add", "-q", "--detach", str(checkout), into)
    assert [u.completed for _, u in load_plan(checkout / ".planning").plan.units()] == [
        True,
        True,
    ]


def test_each_stages_verdict_summary_and_confidence_are_shown(
    gsd_run: tuple[Path, dict[str, object]],
) -> None:
    """Seed 003 (`ReviewVerdict`: "String summary; // one-line summary", "double confidence;
    // 0.0-1.0 (optional)"): the task's report shows each stage's verdict with its summary and
    confidence, its record (the JSON twin) keeps every attempt's, and the run's HTML report
    shows them."""
    _, out = gsd_run
    run_dir = Path(str(out["run_dir"]))
    report = (run_dir / "01" / "01-01" / "01-01-REVIEW-T1.md").read_text()
    assert "**Verdict:** `approve` — the task is done as specified (confidence 0.8)" in report
    assert "**Verdict:** `approve` — small and correct (confidence 0.65)" in report
    twin = json.loads((run_dir / "01" / "01-01" / "01-01-REVIEW-T1.json").read_text())
    shown = [(v["stage"], v["summary"], v["confidence"]) for v in twin["verdicts"]]
    assert shown == [
        ("spec", "the task is done as specified", 0.8),
        ("quality", "small and correct", 0.65),
    ]
    html = (run_dir / "report.html").read_text()
    assert "the task is done as specified" in html
    assert "0.65" in html


def test_a_task_that_escalates_reports_issues_found_with_counts(tmp_path: Path) -> None:
    """Seed 004, Pattern 5 (`status: issues_found`; "critical: {count}", "warnings:
    {count}"): a task whose review keeps asking for fixes is reported `issues_found` with its
    blocking findings counted by the seed's severity words."""
    repo = repo_with(tmp_path / "repo")
    blocking = verdict_object(
        "request_changes",
        [finding("C-1", "critical", "crashes on empty input"), finding("W-1", "important", "x")],
    )
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": blocking}]}})
    plan = make_plan({"P1": {"A": {}}})
    code, out, err = invoke(run_args(repo, agent(tmp_path, "impl"), rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    report = (Path(out["run_dir"]) / "P1" / "A" / "P1-A-REVIEW-T1.md").read_text()
    meta = frontmatter(report)
    assert (meta["status"], meta["critical"], meta["warnings"]) == ("issues_found", 1, 1)
    assert "- **Severity:** critical" in report
    assert "- **Severity:** warning" in report
