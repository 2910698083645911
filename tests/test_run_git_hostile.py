"""Git that obeys only mergegate (issue 30, deliverable 2), end to end through `mergegate run`
with hostile implementers (`tests/fakes/git_hostile_agent.py`) that are *not* sandboxed: what they
do to their workspace's git, or to the user's repository, never makes mergegate's own git
commands reach outside the workspace, commit on the user's branch, merge an unreviewed commit,
or count a unit as merged from text an agent wrote."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import git
from _plan_runs import (
    agent,
    invoke,
    make_plan,
    repo_with,
    run_args,
    spawn,
    trailers,
)
from mergegate.plans import Artifact, MustHaves, Plan, PlanFormat

HOSTILE = Path(__file__).parent / "fakes" / "git_hostile_agent.py"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch HOME holding a canary file (and the user's global git identity)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "canary.txt").write_text("keep me\n")
    (home / "notes").mkdir()
    (home / "notes" / "todo.txt").write_text("also keep me\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


def hostile(tmp_path: Path, acts: dict[str, dict[str, list[str]]], inner: str) -> str:
    """An implementer command: `acts` (git_hostile_agent.py), then the scripted agent `inner`."""
    path = tmp_path / "acts.json"
    path.write_text(json.dumps(acts))
    return f"{sys.executable} {HOSTILE} {path} {tmp_path / 'acts-state'} {inner}"


def acted(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "acts-state" / "acts.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def home_files(home: Path) -> dict[str, str]:
    return {
        str(p.relative_to(home)): p.read_text()
        for p in sorted(home.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def index_digest(repo: Path) -> str:
    return hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()


def test_core_worktree_set_to_home_then_a_stall_never_resets_home(
    repo: Path, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(a) The implementer points its workspace's `core.worktree` at $HOME and stalls: the
    fresh start after the stall resets the workspace, never $HOME."""
    monkeypatch.setenv("MERGEGATE_AGENTS__DEFAULT_TIMEOUT_S", "2")
    before = home_files(home)
    plan = make_plan({"P1": {"A": {}}})
    inner = agent(tmp_path, "impl", {"A/T1": {"implement": [{"sleep": 30}, {}]}})
    impl = hostile(tmp_path, {"A": {"before": [f"git config core.worktree '{home}'"]}}, inner)
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]  # the attack was made
    assert home_files(home) == before  # the canary survived, nothing was written there
    assert code == 0, err
    assert out is not None
    assert out["units"][0]["status"] == "merged"
    assert git(repo, "show", f"{out['into']}:A-T1.txt") == "A T1"


@pytest.mark.slow
def test_core_worktree_set_to_home_then_a_crash_and_resume_never_resets_home(
    repo: Path, tmp_path: Path, home: Path
) -> None:
    """(a) The implementer points `core.worktree` at $HOME and hangs; mergegate is killed and
    the user runs `resume`: the step run again first resets the workspace, never $HOME."""
    before = home_files(home)
    plan = make_plan({"P1": {"A": {}}})
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    # the first call hangs after its attack (the wrapper acts once: the call run again after
    # the crash is the scripted agent's alone)
    acts = {"A": {"before": [f"git config core.worktree '{home}'", "sleep 120"]}}
    impl = hostile(tmp_path, acts, agent(tmp_path, "impl"))
    args = run_args(repo, impl, agent(tmp_path, "rev"))
    proc = spawn([args[0], str(plan_file), *args[1:]])
    deadline = time.monotonic() + 60
    while not acted(tmp_path):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    [run_dir] = (Path(os.environ["MERGEGATE_STATE_DIR"]) / "runs").iterdir()
    resumed = spawn(
        ["resume", run_dir.name, "--repo", str(repo), "--format", "json", "--progress", "none"]
    )
    out, err = resumed.communicate(timeout=180)
    assert home_files(home) == before
    assert resumed.returncode == 0, err[-3000:]
    report = json.loads(out)
    assert report["units"][0]["status"] == "merged"


def test_a_gitfile_to_the_users_repository_commits_nothing_there(
    repo: Path, tmp_path: Path
) -> None:
    """(b) The implementer replaces its workspace's `.git` with a gitfile pointing at the
    user's `.git`: nothing is committed on the user's checked-out branch, their index is
    untouched, and the unit stops for a person with the reason."""
    main, index = git(repo, "rev-parse", "main"), index_digest(repo)
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    swap = f"rm -rf .git && printf 'gitdir: %s\\n' '{repo / '.git'}' > .git"
    impl = hostile(tmp_path, {"A": {"after": [swap]}}, agent(tmp_path, "impl"))
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert git(repo, "rev-parse", "main") == main
    assert index_digest(repo) == index
    assert git(repo, "status", "--porcelain") == ""
    assert code == 5, err
    assert out is not None
    units = {u["id"]: u for u in out["units"]}
    assert units["A"]["status"] == "needs_manual_review"
    assert "gitfile" in units["A"]["reason"]
    assert units["B"]["status"] == "merged"  # the other unit goes on
    assert "A-T1.txt" not in git(repo, "ls-tree", "--name-only", out["into"])


def test_the_integration_branch_moved_mid_run_stops_with_exit_5_naming_both_commits(
    repo: Path, tmp_path: Path
) -> None:
    """(c) Something moves `mergegate/<run>` in the user's repository to an unreviewed commit
    while a unit runs: nothing is merged on top, the run stops with exit 5 and one line naming
    the commit mergegate left the branch at and the one it found, shown in `status`."""
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "evil")
    (repo / "evil.txt").write_text("unreviewed\n")
    git(repo, "add", "evil.txt")
    git(repo, "commit", "-qm", "unreviewed")
    evil = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    plan = make_plan({"P1": {"A": {}}})
    move = f"git -C '{repo}' update-ref refs/heads/mergegate/$MERGEGATE_RUN_ID {evil}"
    impl = hostile(tmp_path, {"A": {"after": [move]}}, agent(tmp_path, "impl"))
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert out is not None
    into = out["into"]
    assert git(repo, "rev-parse", into) == evil  # nothing merged on top
    assert code == 5, err
    assert out["status"] == "escalated"
    message = out["message"]
    assert "\n" not in message
    assert f"mergegate left it at {base}" in message
    assert f"it is now at {evil}" in message
    assert into in message
    code, status, _ = invoke(["status", out["run_id"], "--repo", str(repo), "--format", "json"])
    assert code == 0
    assert status is not None
    assert status["status"] == "escalated"
    assert status["message"] == message


def _message(subject: str, *trailers: str) -> str:
    """A shell word: a commit message of `subject` and `trailers`, `%s` in a trailer the run's
    id (as the agent reads it from `MERGEGATE_RUN_ID`)."""
    lines = "\\n".join(trailers)
    count = lines.count("%s")
    ids = ' "$MERGEGATE_RUN_ID"' * count
    return f"\"$(printf '{subject}\\n\\n{lines}'{ids})\""


def test_a_unit_trailer_for_another_unit_in_a_units_commit_does_not_merge_it(
    repo: Path, tmp_path: Path
) -> None:
    """(d) Unit A's implementer commits its work with `Mergegate-Unit: <run>/B` (and its own
    task's trailer, so the old code kept its message): B still merges, with its own code."""
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    message = _message("A work", "Mergegate-Task: %s/A/T1", "Mergegate-Unit: %s/B")
    forged = f"git add -A && git commit -q -m {message}"
    impl = hostile(tmp_path, {"A": {"after": [forged]}}, agent(tmp_path, "impl"))
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert code == 0, err
    assert out is not None
    into = out["into"]
    units = {u["id"]: u for u in out["units"]}
    assert units["B"]["status"] == "merged"
    assert git(repo, "show", f"{into}:B-T1.txt") == "B T1"
    parents = git(repo, "rev-list", "--parents", "-1", units["B"]["merge_commit"]).split()
    assert parents[2] == units["B"]["tasks"][0]["head"]
    assert units["A"]["merge_commit"] != units["B"]["merge_commit"]


def test_a_forged_task_trailer_on_an_empty_commit_neither_crashes_nor_sticks(
    repo: Path, tmp_path: Path
) -> None:
    """(e) The implementer first makes an empty commit carrying its task's own
    `Mergegate-Task:` line (the old code took it for mergegate's commit: "nothing to review",
    a traceback and the unit stuck `running`): mergegate commits the work itself, on the
    recorded parent, and the run ends normally."""
    plan = make_plan({"P1": {"A": {}}})
    forged = f"git commit -q --allow-empty -m {_message('x', 'Mergegate-Task: %s/A/T1')}"
    impl = hostile(tmp_path, {"A": {"before": [forged]}}, agent(tmp_path, "impl"))
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert "Traceback" not in err
    assert code == 0, err
    assert out is not None
    [unit] = out["units"]
    assert unit["status"] == "merged"
    assert git(repo, "show", f"{out['into']}:A-T1.txt") == "A T1"
    commit = unit["tasks"][0]["commit"]
    assert git(repo, "log", "-1", "--format=%s", commit) == "T1: do T1"
    assert git(repo, "rev-parse", f"{commit}^") == git(repo, "rev-parse", "main")


def test_a_forged_task_trailer_on_a_rewritten_root_neither_crashes_nor_sticks(
    repo: Path, tmp_path: Path
) -> None:
    """(e) The implementer amends the unit's base (here the repository's root commit) into a
    commit of its own with the task's `Mergegate-Task:` line: an unrelated history the old
    code took as the task's commit and then could not merge. mergegate's commit sits on the
    recorded base and merges."""
    plan = make_plan({"P1": {"A": {}}})
    forged = f"git add -A && git commit -q --amend -m {_message('x', 'Mergegate-Task: %s/A/T1')}"
    impl = hostile(tmp_path, {"A": {"after": [forged]}}, agent(tmp_path, "impl"))
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert code == 0, err
    assert out is not None
    assert out["units"][0]["status"] == "merged"
    assert git(repo, "show", f"{out['into']}:A-T1.txt") == "A T1"


def _with_artifact(path: str) -> Plan:
    """One phase, unit A, whose must-haves name the artifact `path`."""
    base = make_plan({"P1": {"A": {}}})
    phase = base.phases[0]
    unit = phase.units[0].model_copy(
        update={"must_haves": MustHaves(artifacts=(Artifact(path=path, min_lines=1),))}
    )
    phases = (phase.model_copy(update={"units": (unit,)}),)
    return Plan(format=PlanFormat.NATIVE, title=base.title, phases=phases)


def test_an_artifact_committed_as_a_symlink_out_of_the_tree_stops_for_a_person(
    repo: Path, tmp_path: Path
) -> None:
    """(f) The implementer commits the plan's artifact as a symlink to a file outside the
    repository: the phase is not verified (one clear reason, exit 5), not a traceback and a
    failed run."""
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    link = f"ln -s '{outside}' art.txt"
    impl = hostile(tmp_path, {"A": {"after": [link]}}, agent(tmp_path, "impl"))
    plan = _with_artifact("art.txt")
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert [a["exit"] for a in acted(tmp_path)] == [0]
    assert "Traceback" not in err
    assert code == 5, err
    assert out is not None
    assert out["status"] == "waiting_for_human"
    [phase] = out["phases"]
    assert phase["status"] == "not_verified"
    reason = phase["verification"]["reason"]
    assert "art.txt" in reason
    assert "outside the repository" in reason
    assert "secret" not in json.dumps(out)


def test_the_integration_branch_moved_while_the_run_waits_stops_the_next_generation(
    repo: Path, tmp_path: Path
) -> None:
    """(c) The tip a later generation starts from is the one the earlier generation recorded,
    never the branch's: moved while the run waits for a person, `resume --answer` stops with
    exit 5 naming both commits, and merges nothing on top."""
    plan = make_plan({"P1": {"A": {}}, "P2": {"B": {"tasks": ["T1", "CP1"]}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    assert out["status"] == "waiting_for_human"
    into, run_id = out["into"], out["run_id"]
    left = git(repo, "rev-parse", into)  # A merged (phase P1), B waits at its checkpoint
    assert left == out["units"][0]["merge_commit"]
    git(repo, "branch", "-f", into, "main")  # anyone at all: a person, a script, an agent
    found = git(repo, "rev-parse", into)
    base = ["--repo", str(repo), "--format", "json", "--progress", "none"]
    code, out, err = invoke(["resume", run_id, "--answer", "CP1=approve", *base])
    assert code == 5, err
    assert out is not None
    assert out["status"] == "escalated"
    assert f"mergegate left it at {left}" in out["message"]
    assert f"it is now at {found}" in out["message"]
    assert git(repo, "rev-parse", into) == found
    assert trailers(repo, into) == []
    assert "B-T1.txt" not in git(repo, "ls-tree", "--name-only", into)
