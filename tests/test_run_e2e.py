"""End to end: `mergegate run` on real temporary repositories with scripted agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from _gitrepo import git
from _plan_runs import (
    agent,
    approve,
    events,
    invoke,
    make_plan,
    repo_with,
    run_args,
    trailers,
    with_fixes,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def test_two_parallel_units_then_phase_two(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {}}, "P2": {"C": {"depends_on": ["A", "B"]}}})
    script = {"*": {"implement": [{"sleep": 0.8}]}}
    script["A/T1"] = {"implement": [{"sleep": 0.8, "write": {"a.txt": "a\n"}}]}
    script["B/T1"] = {"implement": [{"sleep": 0.8, "write": {"b.txt": "b\n"}}]}
    script["C/T1"] = {"implement": [{"write": {"c.txt": "c\n"}}]}
    impl, rev = agent(tmp_path, "impl", script), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert out["status"] == "completed"
    assert [(u["id"], u["status"]) for u in out["units"]] == [
        ("A", "merged"),
        ("B", "merged"),
        ("C", "merged"),
    ]
    into = out["into"]
    assert into == f"mergegate/{out['run_id']}"
    assert sorted(trailers(repo, into)) == sorted(
        f"Mergegate-Unit: {out['run_id']}/{u}" for u in "ABC"
    )
    assert git(repo, "show", f"{into}:a.txt") == "a"
    assert git(repo, "show", f"{into}:c.txt") == "c"
    log = [e for e in events(tmp_path, "impl") if e["kind"] == "implement"]
    spans = {}
    for e in log:
        spans.setdefault(e["unit"], {})[e["event"]] = e["time"]
    # A and B ran at the same time, C only after both were merged.
    assert spans["A"]["start"] < spans["B"]["end"]
    assert spans["B"]["start"] < spans["A"]["end"]
    a_merge = git(
        repo, "log", "-1", "--format=%ct", f"--grep=Mergegate-Unit: {out['run_id']}/B", into
    )
    assert spans["C"]["start"] >= max(spans["A"]["end"], spans["B"]["end"])
    assert int(a_merge) <= spans["C"]["start"] + 1
    # each unit in its own work tree (the agent's cwd), removed after the merge
    cwds = {e["unit"] for e in log}
    assert cwds == {"A", "B", "C"}
    assert git(repo, "worktree", "list").count("\n") == 0  # workspaces are not worktrees
    assert not any(Path(u["workspace"]).exists() for u in out["units"])
    # one commit per task, merged with --no-ff (two parents)
    merge = out["units"][0]["merge_commit"]
    assert len(git(repo, "rev-list", "--parents", "-1", merge).split()) == 3
    assert out["units"][0]["tasks"][0]["decision"] == "approved"
    reports = out["units"][0]["tasks"][0]["reports"]
    assert any(r.endswith("P1-A-REVIEW-T1.md") for r in reports)
    run_dir = Path(out["run_dir"])
    assert (run_dir / "plan.json").is_file()
    assert (run_dir / "SUMMARY.md").is_file()
    assert (run_dir / "P1" / "A" / "SUMMARY.md").read_text().count("merged") >= 1


def test_fix_then_approve(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}}})
    impl = agent(tmp_path, "impl")
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [with_fixes(), approve()]}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    task = out["units"][0]["tasks"][0]
    assert task["decision"] == "approved"
    kinds = [(e["task"], e["kind"]) for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert kinds == [("T1", "implement"), ("T1", "fix"), ("T2", "implement")]
    log = git(repo, "log", "--format=%s", out["into"])
    assert "mergegate: fix round 1" in log
    assert "T1: do T1" in log
    assert "T2: do T2" in log


def test_cap_escalates_skips_dependants_and_merges_the_independent_unit(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {"depends_on": ["A"]}, "C": {}}, "P2": {"D": {}}})
    impl = agent(tmp_path, "impl")
    # round 1: two findings; round 2: one is left (converging, so the cap, not the stall, ends it)
    reviews = [with_fixes("Missing test", "Bad name"), with_fixes("Missing test")]
    rev = agent(tmp_path, "rev", {"A/T1": {"review": reviews}})
    code, out, _ = invoke(run_args(repo, impl, rev, "--max-rounds", "2"), plan, tmp_path)
    assert code == 5
    assert out is not None
    assert out["status"] == "escalated"
    units = {u["id"]: u for u in out["units"]}
    assert units["A"]["status"] == "needs_manual_review"
    assert "revision cap reached" in units["A"]["reason"]
    assert units["B"]["status"] == "skipped"
    assert "depends on A" in units["B"]["reason"]
    assert units["C"]["status"] == "merged"
    assert units["D"]["status"] == "skipped"  # the run stopped at the phase boundary
    assert "phase P1" in units["D"]["reason"]
    summary = Path(units["A"]["summary"]).read_text()
    assert "## Unresolved Review Findings" in summary
    assert "Missing test" in summary
    assert "Implementation notes" in summary
    assert trailers(repo, out["into"]) == [f"Mergegate-Unit: {out['run_id']}/C"]
    # the escalated unit's workspace is kept for a person, its commits on its branch
    assert Path(units["A"]["workspace"]).is_dir()
    assert git(repo, "rev-parse", units["A"]["branch"]) == units["A"]["tasks"][0]["head"]


def test_a_merge_conflict_escalates_the_later_unit(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    script = {
        "A/T1": {"implement": [{"write": {"same.txt": "from A\n"}}]},
        "B/T1": {"implement": [{"write": {"same.txt": "from B\n"}}]},
    }
    impl, rev = agent(tmp_path, "impl", script), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    units = {u["id"]: u for u in out["units"]}
    assert units["A"]["status"] == "merged"
    assert units["B"]["status"] == "needs_manual_review"
    assert "merge conflict" in units["B"]["reason"]
    package = Path(units["B"]["escalation"])
    assert (package / "ours" / "same.txt").read_text() == "from A\n"
    assert (package / "theirs" / "same.txt").read_text() == "from B\n"
    assert "same.txt" in (package / "README.md").read_text()
    assert git(repo, "show", f"{out['into']}:same.txt") == "from A"


def test_review_off_merges_on_implementer_success_with_one_notice(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_REVIEW__MODE", "off")
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}, "B": {}}})
    impl = agent(tmp_path, "impl")
    args = run_args(repo, impl, None)
    args[args.index("--progress") + 1] = "plain"
    code, out, err = invoke(args, plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert [u["status"] for u in out["units"]] == ["merged", "merged"]
    assert err.count("review is off") == 1
    assert not any(e["kind"] == "review" for e in events(tmp_path, "impl"))


def test_manual_review_without_a_terminal_stops_before_any_reviewer(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_REVIEW__MODE", "manual")
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 2
    assert out is None
    assert "needs a person at a terminal" in err
    assert events(tmp_path, "impl") == []
    assert events(tmp_path, "rev") == []


def test_checkpoint_waits_for_a_person_then_resume_answers(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "CP1", "T2"]}}, "P2": {"B": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    assert out["status"] == "waiting_for_human"
    unit = out["units"][0]
    assert unit["status"] == "waiting_for_human"
    assert [t["decision"] for t in unit["tasks"]] == ["approved", "waiting_for_human"]
    run_id = out["run_id"]
    base = ["--repo", str(repo), "--format", "json", "--progress", "none"]
    code, out, _ = invoke(
        ["resume", run_id, "--answer", "CP1=approve", "--note", "looks right", *base]
    )
    assert code == 0, out and out["message"]
    assert out is not None
    assert out["status"] == "completed"
    tasks = out["units"][0]["tasks"]
    assert [t["decision"] for t in tasks] == ["approved", "approved", "approved"]
    assert "looks right" in tasks[1]["reason"]
    # T1 was not implemented or reviewed again
    starts = [
        (e["unit"], e["task"], e["kind"]) for e in events(tmp_path, "impl") if e["event"] == "start"
    ]
    assert starts.count(("A", "T1", "implement")) == 1
    reviews = [e for e in events(tmp_path, "rev") if e["event"] == "start" and e["unit"] == "A"]
    assert [e["task"] for e in reviews] == ["T1", "T1", "T2", "T2"]  # spec + quality, once each
    assert len(trailers(repo, out["into"])) == 2
    code, status, _ = invoke(["status", run_id, "--repo", str(repo), "--format", "json"])
    assert code == 0
    assert status is not None
    assert status["status"] == "completed"


def test_runs_lists_every_run(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    _, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert out is not None
    from click.testing import CliRunner

    from mergegate.cli import cli

    result = CliRunner().invoke(cli, ["runs", "--repo", str(repo), "--format", "json"])
    import json

    listed = json.loads(result.stdout)
    assert listed == [
        {
            "run_id": out["run_id"],
            "status": "completed",
            "started": listed[0]["started"],
            "plan": "test plan",
        }
    ]


def test_failing_check_is_fed_to_a_fix_round_then_amend_folds_it(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {"checks": {"T1": ["grep -q fixed A-T1.txt"]}}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev, "--fix-commits", "amend"), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    kinds = [e["kind"] for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert kinds == ["implement", "fix"]
    fix_prompt = (tmp_path / "impl-state" / "log.jsonl").exists()
    assert fix_prompt
    task = out["units"][0]["tasks"][0]
    assert task["decision"] == "approved"
    # amend: the fix is folded into the one task commit
    commits = git(repo, "log", "--format=%s", f"{out['into']}^2", "--not", f"{out['into']}^1")
    assert commits.splitlines() == ["T1: do T1"]
    assert git(repo, "show", f"{out['into']}:A-T1.txt").startswith("A T1 fixed")


def test_a_check_that_keeps_failing_the_same_way_escalates(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"checks": {"T1": ["echo broken; exit 3"]}}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    unit = out["units"][0]
    assert unit["status"] == "needs_manual_review"
    assert "stalled" in unit["reason"]
    assert events(tmp_path, "rev") == []  # no reviewer for a change whose checks fail
    summary = Path(unit["summary"]).read_text()
    assert "CHECK-1" in summary


def test_task_wall_budget_stops_cleanly(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_RUN__TASK_WALL_S", "1")
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl")
    rev = agent(tmp_path, "rev", {"*": {"review": [{"sleep": 1.5, "text": "APPROVE"}]}})
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    unit = out["units"][0]
    assert unit["status"] == "needs_manual_review"
    assert "budget" in unit["reason"]


def test_dry_run_prints_the_plan_and_runs_nothing(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"checks": {"T1": ["pytest -q"]}}, "B": {"depends_on": ["A"]}}})
    impl = agent(tmp_path, "impl")
    from click.testing import CliRunner

    from mergegate.cli import cli

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json())
    rev = agent(tmp_path, "rev")
    result = CliRunner().invoke(
        cli,
        [
            *("run", str(plan_file), "--repo", str(repo), "--dry-run"),
            *("--implementer-cmd", impl, "--reviewer-cmd", rev),
        ],
    )
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "  wave 1 (up to 2 at once)" in lines
    assert "    unit B: unit B after A" in lines
    assert "        check: pytest -q" in lines
    assert events(tmp_path, "impl") == []
    assert "mergegate/" not in git(repo, "branch", "--list")


@pytest.mark.parametrize(
    ("phases", "message"),
    [
        ({"P1": {"A": {"depends_on": ["Z"]}}}, "no unit of this plan"),
        ({"P1": {"A": {"depends_on": ["B"]}, "B": {"depends_on": ["A"]}}}, "cycle"),
        ({"P1": {"A": {"depends_on": ["B"]}}, "P2": {"B": {}}}, "later phase"),
    ],
)
def test_a_plan_the_engine_cannot_run_is_a_usage_error(
    repo: Path, tmp_path: Path, phases: dict[str, object], message: str
) -> None:
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, _, err = invoke(run_args(repo, impl, rev), make_plan(phases), tmp_path)  # type: ignore[arg-type]
    assert code == 2
    assert message in err


def test_into_a_checked_out_branch_is_refused(repo: Path, tmp_path: Path) -> None:
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    plan = make_plan({"P1": {"A": {}}})
    code, _, err = invoke(run_args(repo, impl, rev, "--into", "main"), plan, tmp_path)
    assert code == 2
    assert "checked out" in err


def test_cancel_kills_agents_and_keeps_work_trees_unless_clean(repo: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import time

    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 60}]}})
    rev = agent(tmp_path, "rev")
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json())
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mergegate",
            *run_args(repo, impl, rev)[:1],
            str(plan_file),
            *run_args(repo, impl, rev)[1:],
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    deadline = time.monotonic() + 30
    while not any(e["event"] == "start" for e in events(tmp_path, "impl")):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    run_id = next((state / "runs").iterdir()).name
    code, out, _ = invoke(["cancel", run_id, "--repo", str(repo), "--format", "json"])
    assert code == 0
    assert out is not None
    assert out["killed_groups"] >= 1
    stdout, _ = proc.communicate(timeout=60)
    final = __import__("json").loads(stdout)
    assert final["status"] == "cancelled"
    assert proc.returncode == 4
    assert final["units"][0]["status"] == "cancelled", final["units"][0]
    workspace = Path(final["units"][0]["workspace"])
    assert workspace.is_dir()  # kept for inspection
    code, out, _ = invoke(["cancel", run_id, "--repo", str(repo), "--clean", "--format", "json"])
    assert out is not None
    assert out["removed_worktrees"] == [str(workspace)]
    assert not workspace.exists()
