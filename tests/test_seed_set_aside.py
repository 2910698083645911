"""Seeds 003 and 004 on exhausted revisions (issue 25 item 8): the task is recorded
`needs_manual_review` and set aside, its unit goes on with the tasks that do not depend on it
(declared or through their files) and stops at its own end, the plan boundary; the unit's
SUMMARY.md says what was skipped and why. `run.on_escalation = "continue"` keeps the earlier
behaviour (the unit stops at the task)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import git
from _plan_runs import agent, invoke, repo_with, run_args, with_fixes
from mergegate.plans import Check, Phase, Plan, PlanFormat, Task, Unit


def _task(tid: str, *, files: tuple[str, ...] = (), needs: tuple[str, ...] = ()) -> Task:
    extra: dict[str, Any] = {"depends_on": list(needs)} if needs else {}
    return Task(
        id=tid,
        name=f"do {tid}",
        action=f"Make A {tid}.",
        files=files,
        checks=(Check(run="true"),),
        extra=extra,
    )


PLAN = Plan(
    format=PlanFormat.NATIVE,
    title="set aside",
    phases=(
        Phase(
            id="P1",
            name="phase P1",
            units=(
                Unit(
                    id="A",
                    name="unit A",
                    tasks=(
                        _task("T1"),
                        _task("T2", files=("shared.txt",)),
                        _task("T3"),
                        _task("T4", files=("later.txt", "b.txt")),
                        _task("T5", needs=("T2",)),
                    ),
                ),
                Unit(id="B", name="unit B", tasks=(_task("T1"),)),
            ),
        ),
    ),
)
# T2 writes b.txt (a file T4 names) and its review always asks for fixes: the cap escalates it
IMPL = {"A/T2": {"implement": [{"write": {"b.txt": "from T2\n"}}]}}
REV = {"A/T2": {"review": [with_fixes("Missing test")]}}


def _run(tmp_path: Path, *extra: str) -> tuple[Path, dict[str, Any], str]:
    repo = repo_with(tmp_path / "repo")
    impl, rev = agent(tmp_path, "impl", IMPL), agent(tmp_path, "rev", REV)
    args = [*run_args(repo, impl, rev, *extra), "--max-rounds", "1"]
    code, out, err = invoke(args, PLAN, tmp_path)
    assert code == 5, err
    assert out is not None
    return repo, out, err


def _unit(out: dict[str, Any], uid: str) -> dict[str, Any]:
    found: dict[str, Any] = next(u for u in out["units"] if u["id"] == uid)
    return found


def test_an_escalated_task_is_set_aside_and_its_unit_goes_on(tmp_path: Path) -> None:
    """Seed 003 ("if (REQUEST_CHANGES && revisionCount >= maxRevisions): Mark task as 'Needs
    Manual Review' ... Skip task with reason") and seed 004 Discretion 4 ("Continue to the
    next task in the current plan (the findings may be task-specific)"; "stop at plan
    boundary"; "Log the findings in the executor's SUMMARY.md"): T2 is recorded
    needs_manual_review and skipped; T3 runs; T4 (it names a file T2 changed) and T5 (it
    declares T2) are not run, with the reason; the unit is not merged and its SUMMARY.md says
    what was skipped and why; the independent unit B merges."""
    repo, out, err = _run(tmp_path)
    a = _unit(out, "A")
    decisions = [(t["id"], t["decision"]) for t in a["tasks"]]
    assert decisions == [
        ("T1", "approved"),
        ("T2", "needs_manual_review"),
        ("T3", "approved"),
        ("T4", "not_run"),
        ("T5", "not_run"),
    ], err
    reasons = {t["id"]: t["reason"] for t in a["tasks"]}
    assert "revision cap reached" in reasons["T2"]
    assert "depends on T2 through its files (b.txt)" in reasons["T4"]
    assert "depends on T2 (declared)" in reasons["T5"]
    assert a["status"] == "needs_manual_review"
    assert a["merge_commit"] is None
    assert "T2 set aside" in a["reason"]
    assert _unit(out, "B")["status"] == "merged"
    summary = Path(a["summary"]).read_text()
    assert "## Skipped: set aside for a person" in summary
    assert "**T2** set aside: revision cap reached" in summary
    assert "**T4** not run: depends on T2" in summary
    assert "Missing test" in summary  # its open findings, under Unresolved Review Findings
    # the unit went on without T2's work: T3 was made on T2's start
    branch = a["branch"]
    files = set(git(repo, "ls-tree", "-r", "--name-only", branch).splitlines())
    assert {"A-T1.txt", "A-T3.txt"} <= files
    assert "b.txt" not in files


def test_an_answer_at_the_units_end_lets_the_waiting_tasks_run(tmp_path: Path) -> None:
    """Seed 004 Discretion 4 ("suggest /mz:review for manual review" at the plan boundary):
    a person's `skip` of the set-aside task, given with `resume`, applies on top of what the
    unit did; the tasks that waited for it run, and the unit merges."""
    repo, out, _ = _run(tmp_path)
    before = [(t["id"], t["decision"]) for t in _unit(out, "A")["tasks"]]
    assert before[2] == ("T3", "approved")  # done before anyone answered
    args = [*("resume", out["run_id"], "--repo", str(repo), "--format", "json")]
    code, again, err = invoke([*args, "--progress", "none", "--answer", "A/T2=skip"])
    assert code == 0, err
    assert again is not None
    a = _unit(again, "A")
    assert [(t["id"], t["decision"]) for t in a["tasks"]] == [
        ("T1", "approved"),
        ("T2", "skipped"),
        ("T3", "approved"),
        ("T4", "approved"),
        ("T5", "approved"),
    ]
    assert a["status"] == "merged"
    files = set(git(repo, "ls-tree", "-r", "--name-only", again["into"]).splitlines())
    assert {"A-T1.txt", "A-T3.txt", "A-T4.txt", "A-T5.txt"} <= files
    assert "b.txt" not in files


@pytest.mark.parametrize("mode", ["continue", "stop"])
def test_on_escalation_continue_and_stop_keep_the_unit_at_the_task(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 8: skipping is the default (`run.on_escalation = "skip"`, recorded on
    the run's card); `"stop"` (and `"continue"`) keep the earlier behaviour: the unit stops at
    the escalated task, nothing after it runs."""
    _, out, _ = _run(tmp_path / "default")
    card = json.loads((Path(out["run_dir"]) / "run.json").read_text())
    assert card["options"]["on_escalation"] == "skip"
    monkeypatch.setenv("MERGEGATE_RUN__ON_ESCALATION", mode)
    _, out, _ = _run(tmp_path / mode)
    a = _unit(out, "A")
    assert [(t["id"], t["decision"]) for t in a["tasks"]] == [
        ("T1", "approved"),
        ("T2", "needs_manual_review"),
    ]
    card = json.loads((Path(out["run_dir"]) / "run.json").read_text())
    assert card["options"]["on_escalation"] == mode
