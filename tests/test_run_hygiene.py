"""The state and the work tree a run leaves and refuses (issue 24, item 5), through the CLI:
`.mergegate/` ignores itself, a dirty work tree is refused with its paths unless
`--allow-dirty`, a second `run` of a plan whose run is active on the same repository is
refused with that run's id (a lease in the durable state), a run nobody executes any more
shows as crashed, `runs` prints a header or `no runs`, `status` without an id shows the
latest run, and every run ends with one `next:` line."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from _gitrepo import git
from _plan_runs import agent, invoke, make_plan, repo_with, run_args, spawn


def _plan(tmp_path: Path, name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_text(make_plan({"P1": {"A": {}}}).model_dump_json(by_alias=True))
    return path


def _branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)").splitlines()


def test_a_dirty_work_tree_is_refused_with_its_paths(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo", {"README.md": "base\n", "app.py": "x = 1\n"})
    (repo / "app.py").write_text("x = 2\n")  # modified
    (repo / "notes.txt").write_text("new\n")  # untracked
    git(repo, "add", "notes.txt")
    (repo / "scratch.txt").write_text("new\n")  # untracked
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    args = [*run_args(repo, impl, rev), str(_plan(tmp_path))]
    code, out, err = invoke(args)
    assert code == 2, err
    assert out is None
    for path in ("app.py", "notes.txt", "scratch.txt"):
        assert path in err
    assert "--allow-dirty" in err
    assert _branches(repo) == ["main"]  # nothing was made
    state = tmp_path / ".mergegate-state"
    assert not (state / "runs").exists()
    code, out, err = invoke([*args, "--allow-dirty"])
    assert code == 0, err
    assert out is not None
    assert out["status"] == "completed"
    assert (repo / "app.py").read_text() == "x = 2\n"  # the person's changes are left alone


def test_state_ignores_itself_and_the_next_run_is_not_dirty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MERGEGATE_STATE_DIR")  # the state goes to <repo>/.mergegate
    monkeypatch.chdir(tmp_path)
    repo = repo_with(tmp_path / "repo")
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, _, err = invoke([*run_args(repo, impl, rev), str(_plan(tmp_path))])
    assert code == 0, err
    assert (repo / ".mergegate" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    git(repo, "add", "-A")
    assert git(repo, "diff", "--cached", "--name-only") == ""  # nothing of the run staged
    code, _, err = invoke([*run_args(repo, impl, rev), str(_plan(tmp_path, "other.json"))])
    assert code == 0, err


def test_runs_says_no_runs_and_status_needs_one(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    code, _, err = invoke(["runs", "--repo", str(repo)])
    assert code == 0, err
    code, _, err = invoke(["status", "--repo", str(repo)])
    assert code == 2
    assert "no runs" in err


def _text(args: list[str]) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from mergegate.cli import cli

    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.stdout, result.stderr


def test_runs_prints_a_header_and_status_shows_the_latest_run(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    code, out, _ = _text(["runs", "--repo", str(repo)])
    assert out.startswith("no runs")
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    ids = []
    for name in ("one.json", "two.json"):
        code, found, err = invoke([*run_args(repo, impl, rev), str(_plan(tmp_path, name))])
        assert code == 0, err
        assert found is not None
        ids.append(found["run_id"])
        assert found["next"].startswith("merge the integration branch")
        assert found["into"] in found["next"]
    code, out, _ = _text(["runs", "--repo", str(repo)])
    lines = out.splitlines()
    assert lines[0].split() == ["run", "status", "started", "plan"]
    assert [line.split()[0] for line in lines[1:]] == ids
    code, out, _ = _text(["status", "--repo", str(repo)])
    assert code == 0
    assert out.startswith(f"run {ids[1]}: completed")
    assert out.splitlines()[-1].startswith("next: merge the integration branch")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_second_run_of_an_active_plan_is_refused_until_the_first_one_dies(
    tmp_path: Path,
) -> None:
    repo, state = repo_with(tmp_path / "repo"), tmp_path / ".mergegate-state"
    plan = _plan(tmp_path)
    slow = agent(tmp_path, "slow", {"*": {"implement": [{"sleep": 60}]}})
    rev = agent(tmp_path, "rev")
    first = spawn([*run_args(repo, slow, rev), str(plan)], {"MERGEGATE_STATE_DIR": str(state)})
    deadline = time.monotonic() + 60
    log = tmp_path / "slow-state" / "log.jsonl"
    while not log.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    run_id = next((state / "runs").iterdir()).name
    branches = _branches(repo)
    code, _, err = invoke([*run_args(repo, slow, rev), str(plan)])
    assert code == 2, err
    assert run_id in err
    assert "still active" in err
    assert _branches(repo) == branches  # nothing was made
    assert [p.name for p in (state / "runs").iterdir()] == [run_id]
    # nor does a resume of the run go on while another process executes it
    code, _, err = invoke(["resume", run_id, "--repo", str(repo), "--answer", "A/T1=retry"])
    assert code == 2, err
    assert "being executed by another process" in err
    # the first run dies without a word: its lease goes with it
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    code, shown, _ = _text(["status", run_id, "--repo", str(repo)])
    assert shown.startswith(f"run {run_id}: crashed (resume {run_id})")
    assert f"next: mergegate resume {run_id}" in shown
    code, shown, _ = _text(["runs", "--repo", str(repo), "--format", "json"])
    assert [r["status"] for r in json.loads(shown)] == ["crashed"]
    fast = agent(tmp_path, "fast")
    code, _, err = invoke([*run_args(repo, fast, rev), str(plan)])
    assert code == 0, err
    code, _, _ = _text(["cancel", run_id, "--repo", str(repo)])  # its agent, left by SIGKILL
    assert code == 0
