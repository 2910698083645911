"""Taking over an escalation (issue 24, item 4), through the CLI: `mergegate resume RUN
--answer UNIT/TASK=approve|skip|retry [--note …]`. `approve` after a person fixed the unit's
branch by hand (the task's checks run on it first; a failing check refuses), `skip` (recorded
skipped, the unit goes on, its dependants follow), `retry` (a fresh implementer session).
Every answer is recorded with who and when and shown by `status`; every run ends with one
`next:` line.

These tests take over the task a unit *stopped at* (`run.on_escalation = "continue"`); a task
set aside while its unit goes on (the default, `"skip"`) is answered at the unit's end:
`tests/test_seed_set_aside.py`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import git
from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args, trailers
from mergegate.cli import cli


@pytest.fixture(autouse=True)
def _units_stop_at_an_escalation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERGEGATE_RUN__ON_ESCALATION", "continue")


def _plan_file(tmp_path: Path) -> Path:
    """A/T1's check wants `fixed.txt`, which the implementer never writes (so A/T1 escalates
    after one fix round); B depends on A."""
    plan = make_plan(
        {
            "P1": {
                "A": {"tasks": ["T1", "T2"], "checks": {"T1": ["test -f fixed.txt"]}},
                "B": {"depends_on": ["A"]},
            }
        }
    )
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json(by_alias=True))
    return path


def _escalated(tmp_path: Path, impl_script: dict[str, Any] | None = None) -> tuple[Path, str]:
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl", impl_script)
    rev = agent(tmp_path, "rev")
    args = [*run_args(repo, impl, rev, str(_plan_file(tmp_path))), "--max-rounds", "1"]
    code, out, err = invoke(args)
    assert code == 5, err
    assert out is not None
    assert out["status"] == "escalated"
    a = next(u for u in out["units"] if u["id"] == "A")
    assert a["status"] == "needs_manual_review"
    assert a["tasks"][-1]["id"] == "T1"
    b = next(u for u in out["units"] if u["id"] == "B")
    assert b["status"] == "skipped"  # a dependant of an escalated unit waits
    assert "--answer A/T1=approve|skip|retry" in out["next"]
    return repo, out["run_id"]


def _resume(repo: Path, run_id: str, *answers: str, note: str = "") -> tuple[int, Any, str]:
    args = ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"]
    for answer in answers:
        args += ["--answer", answer]
    args += ["--note", note, "--who", "alice"] if note else ["--who", "alice"]
    return invoke(args)


def _files(repo: Path, branch: str) -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", branch).splitlines())


def test_approve_after_a_fix_by_hand_runs_the_checks_first(tmp_path: Path) -> None:
    repo, run_id = _escalated(tmp_path)
    # approving what the agent left: the check still fails there, so the approval is refused
    code, out, err = _resume(repo, run_id, "A/T1=approve")
    assert code == 5, err
    a = next(u for u in out["units"] if u["id"] == "A")
    assert a["status"] == "needs_manual_review"
    assert "refused" in a["reason"]
    assert "test -f fixed.txt" in a["reason"]
    # the person fixes the unit's branch by hand and commits
    branch = a["branch"]
    git(repo, "switch", "-q", branch)
    (repo / "fixed.txt").write_text("by hand\n")
    git(repo, "add", "fixed.txt")
    git(repo, "commit", "-qm", "fix by hand")
    fixed = git(repo, "rev-parse", "HEAD")
    git(repo, "switch", "-q", "main")
    code, out, err = _resume(repo, run_id, "A/T1=approve", note="fixed the missing file")
    assert code == 0, err
    assert out["status"] == "completed"
    a = next(u for u in out["units"] if u["id"] == "A")
    t1 = a["tasks"][0]
    assert t1["decision"] == "approved"
    assert "alice" in t1["reason"]
    assert a["tasks"][1]["decision"] == "approved"  # T2 ran after it, from the fixed commit
    into = out["into"]
    assert {"fixed.txt", "A-T2.txt", "B-T1.txt"} <= _files(repo, into)
    assert git(repo, "merge-base", "--is-ancestor", fixed, into) == ""
    assert sorted(trailers(repo, into)) == sorted(
        [f"Mergegate-Unit: {run_id}/A", f"Mergegate-Unit: {run_id}/B"]
    )
    answers = out["answers"]
    assert [(x["unit"], x["task"], x["answer"], x["who"]) for x in answers] == [
        ("A", "T1", "approve", "alice"),
        ("A", "T1", "approve", "alice"),
    ]
    assert answers[1]["note"] == "fixed the missing file"
    assert answers[1]["head"] == fixed
    assert all(x["at"] for x in answers)
    assert out["next"].startswith("merge the integration branch")
    status = CliRunner().invoke(cli, ["status", run_id, "--repo", str(repo)])
    assert "answer A/T1=approve by alice at " in status.stdout
    assert "fixed the missing file" in status.stdout


def test_skip_records_the_task_skipped_and_the_unit_goes_on(tmp_path: Path) -> None:
    repo, run_id = _escalated(tmp_path)
    code, out, err = _resume(repo, run_id, "A/T1=skip", note="not needed")
    # every unit merged; the phase's verification still runs the skipped task's check, and
    # says so: a skip is never recorded as the criterion passing
    assert code == 5, err
    assert out["status"] == "waiting_for_human"
    assert out["phases"][0]["verification"]["status"] == "gaps_found"
    assert "--accept-gaps" in out["next"]
    a = next(u for u in out["units"] if u["id"] == "A")
    assert [t["decision"] for t in a["tasks"]] == ["skipped", "approved"]
    assert a["status"] == "merged"
    b = next(u for u in out["units"] if u["id"] == "B")
    assert b["status"] == "merged"  # its dependency merged: the plan's rule lets it run
    files = _files(repo, out["into"])
    assert "A-T1.txt" not in files  # the skipped task's work is left out
    assert {"A-T2.txt", "B-T1.txt"} <= files
    assert out["answers"][0]["answer"] == "skip"
    code, out, err = invoke(
        [
            *("resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"),
            *("--accept-gaps", "--reason", "T1 skipped on purpose"),
        ]
    )
    assert code == 0, err
    assert out["status"] == "completed"


def test_retry_runs_the_task_again_in_a_fresh_session(tmp_path: Path) -> None:
    # the first implementer attempt of A/T1 never writes fixed.txt; the retry's does
    script = {
        "A/T1": {
            "implement": [
                {"write": {"A-T1.txt": "first\n"}},
                {"write": {"A-T1.txt": "second\n", "fixed.txt": "ok\n"}},
            ],
            "fix": [{"write": {"A-T1.txt": "still\n"}}],
        }
    }
    repo, run_id = _escalated(tmp_path, script)
    code, out, err = _resume(repo, run_id, "A/T1=retry")
    assert code == 0, err
    a = next(u for u in out["units"] if u["id"] == "A")
    assert a["tasks"][0]["decision"] == "approved"
    assert "retried for alice" in a["tasks"][0]["reason"]
    assert "fixed.txt" in _files(repo, out["into"])
    implements = [
        e
        for e in events(tmp_path, "impl")
        if e["event"] == "start" and e["kind"] == "implement" and e["unit"] == "A"
        if e["task"] == "T1"
    ]
    assert len({e["attempt"] for e in implements}) >= 2
    first, retried = implements[0]["session"], implements[-1]["session"]
    assert first != retried  # a fresh implementer session, not the escalated one resumed


def test_answers_that_cannot_be_taken_are_refused_and_nothing_is_recorded(
    tmp_path: Path,
) -> None:
    repo, run_id = _escalated(tmp_path)
    for answer, words in (
        ("A/T2=approve", "does not wait for a person"),  # not where the unit stopped
        ("A/T1=reject", "approve (after fixing"),  # reject is a checkpoint's answer
        ("Z/T9=skip", "no task"),
        ("A/T1=maybe", "the answer is"),
    ):
        code, _, err = _resume(repo, run_id, answer)
        assert code == 2, (answer, err)
        assert words in err, (answer, err)
    status = json.loads(
        CliRunner().invoke(cli, ["status", run_id, "--repo", str(repo), "--format", "json"]).stdout
    )
    assert status["answers"] == []
    assert status["status"] == "escalated"


def test_skip_of_a_later_task_with_independent_units_merged_completes(tmp_path: Path) -> None:
    """`--answer A/T1=skip` where A's T0 was approved before T1 escalated and the other units
    (independent of A) merged in the first run, one unit at a time: the resume publishes A
    from T0's commit and goes on (it once exhausted the `publish` step's retries, exit 4)."""
    plan = make_plan(
        {
            "P1": {
                "A": {"tasks": ["T0", "T1"], "checks": {"T1": ["test -f fixed.txt"]}},
                "B": {},
                "C": {},
            }
        }
    )
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    repo = repo_with(tmp_path / "repo")
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    args = [*run_args(repo, impl, rev, str(plan_file)), "--max-rounds", "1", "--concurrency", "1"]
    code, out, err = invoke(args)
    assert code == 5, err
    a = next(u for u in out["units"] if u["id"] == "A")
    assert a["status"] == "needs_manual_review"
    assert all(u["status"] == "merged" for u in out["units"] if u["id"] != "A")
    code, out, err = _resume(repo, out["run_id"], "A/T1=skip")
    assert code == 5, err  # the skipped task's check is a gap in the phase's verification
    assert out["status"] == "waiting_for_human"
    a = next(u for u in out["units"] if u["id"] == "A")
    assert [t["decision"] for t in a["tasks"]] == ["approved", "skipped"]
    assert a["status"] == "merged"
    files = _files(repo, out["into"])
    assert {"A-T0.txt", "B-T1.txt", "C-T1.txt"} <= files
    assert "A-T1.txt" not in files
