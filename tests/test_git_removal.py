"""A merged unit's workspace leaves its path at once and is deleted in the background
(`remove_tree_soon`): the phase merges its units one at a time, and deleting each work tree
there, file by file, held up every later unit's merge (55-130 ms a unit with 8 units at once).
The run's end waits for the deletions and removes the folder that held them."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.config import load_config
from mergegate.engine import AgentSpec, RunAgents, RunOptions, RunRequest, create_run, execute_run
from mergegate.git import (
    REMOVING,
    GitRepository,
    _checkout,
    remove_tree_soon,
    settle_removals,
)


def _tree(root: Path) -> Path:
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "deep" / "f.txt").write_text("x")
    (root / "top.txt").write_text("y")
    return root


def test_the_path_is_free_before_the_files_are_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, started = threading.Event(), threading.Event()
    real = _checkout.remove_tree

    def held(path: Path) -> None:
        started.set()
        assert gate.wait(10)
        real(path)

    monkeypatch.setattr(_checkout, "remove_tree", held)
    work = _tree(tmp_path / "worktrees" / "U1")
    remove_tree_soon(work)  # returns while the deletion waits
    assert not os.path.lexists(work)
    assert started.wait(10)
    [moved] = (tmp_path / "worktrees" / REMOVING).iterdir()
    assert moved.name.startswith("U1-")
    assert (moved / "sub" / "deep" / "f.txt").is_file()
    gate.set()
    settle_removals()
    assert list((tmp_path / "worktrees").iterdir()) == []  # the folder that held it too


def test_read_only_directories_an_agent_left_are_deleted_too(tmp_path: Path) -> None:
    work = _tree(tmp_path / "worktrees" / "U1")
    os.chmod(work / "sub" / "deep", stat.S_IRUSR | stat.S_IXUSR)
    os.chmod(work / "sub", stat.S_IRUSR | stat.S_IXUSR)
    remove_tree_soon(work)
    settle_removals()
    assert list((tmp_path / "worktrees").iterdir()) == []


def test_a_link_in_its_place_is_removed_and_its_target_kept(tmp_path: Path) -> None:
    target = _tree(tmp_path / "elsewhere")
    (tmp_path / "worktrees").mkdir()
    link = tmp_path / "worktrees" / "U1"
    link.symlink_to(target, target_is_directory=True)
    remove_tree_soon(link)
    settle_removals()
    assert not os.path.lexists(link)
    assert (target / "sub" / "deep" / "f.txt").read_text() == "x"


def test_an_absent_path_is_nothing_to_do(tmp_path: Path) -> None:
    remove_tree_soon(tmp_path / "worktrees" / "gone")
    settle_removals()
    assert not (tmp_path / "worktrees").exists()


def test_unrenamable_it_is_removed_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(src: object, dst: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "rename", refused)
    work = _tree(tmp_path / "worktrees" / "U1")
    remove_tree_soon(work)
    assert not os.path.lexists(work)


def test_a_run_ends_with_its_merged_work_trees_deleted(tmp_path: Path) -> None:
    """Two units merged: their work trees, the folder that held them while they were deleted,
    and the run's worktrees folder are all gone when the run ends."""
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    code, out, err = invoke(
        run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 0, err
    assert out is not None
    assert [u["status"] for u in out["units"]] == ["merged", "merged"]
    state = tmp_path / ".mergegate-state"
    assert (state / "runs" / out["run_id"]).is_dir()
    assert not (state / "worktrees" / out["run_id"]).exists()


def test_what_a_crash_left_being_deleted_is_removed_at_the_run_end(tmp_path: Path) -> None:
    """A process that died between the rename and the deletion left a workspace in
    `.removing/`: the run's next end in a process removes it with the folder."""
    repo = repo_with(tmp_path / "repo")
    state = tmp_path / "state"
    impl, rev = AgentSpec(cmd=agent(tmp_path, "impl")), AgentSpec(cmd=agent(tmp_path, "rev"))
    record = create_run(
        RunRequest(
            plan=make_plan({"P1": {"A": {}}}),
            repo=repo,
            state_dir=state,
            agents=RunAgents(implementer=impl, reviewer=rev),
            options=RunOptions.from_config(load_config(repo)),
        )
    )
    left = _tree(state / "worktrees" / record.run_id / REMOVING / "B-0123")
    report = execute_run(state, record.run_id, load_config(repo))
    assert report.status == "completed"
    assert not left.exists()
    assert not (state / "worktrees" / record.run_id).exists()


def test_a_released_review_checkout_leaves_its_path_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review's throwaway checkout, released when the review ends, is deleted in the
    background too (issue 26, item 7: tens of milliseconds of unlinks on each task's path):
    its path is free at once, so the next review of the unit checks out there again."""
    repo = repo_with(tmp_path / "repo")
    gate, started = threading.Event(), threading.Event()
    real = _checkout.remove_tree

    def held(path: Path) -> None:
        if REMOVING in path.parts:  # the background deletion waits; the rest runs as it is
            started.set()
            assert gate.wait(10)
        real(path)

    monkeypatch.setattr(_checkout, "remove_tree", held)
    repository = GitRepository(repo, scratch=tmp_path / "checkouts" / "U1")
    head = repository.resolve("HEAD")
    with repository.kept_checkout(head) as first:
        assert any(first.iterdir())
    repository.release_checkout(soon=True)  # returns while the deletion waits
    assert not os.path.lexists(first)
    assert started.wait(10)
    [moved] = (first.parent / REMOVING).iterdir()
    assert moved.name.startswith("review-")
    with repository.kept_checkout(head) as again:  # the same path, a fresh checkout
        assert again == first
    repository.release_checkout()
    gate.set()
    settle_removals()
    assert list(first.parent.iterdir()) == []


def test_a_run_ends_with_its_review_checkouts_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every review's checkout went through the background deletion, and none is left
    when the run ends."""
    moved: list[Path] = []
    real = _checkout._REMOVALS.submit

    def submit(path: Path) -> None:
        moved.append(path)
        real(path)

    monkeypatch.setattr(_checkout._REMOVALS, "submit", submit)
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    code, out, err = invoke(
        run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 0, err
    assert out is not None
    reviews = [p for p in moved if ".checkouts" in p.parts]
    assert len(reviews) >= 2, moved  # one review a task, each unit one task
    assert all(p.name.startswith("review-") for p in reviews)
    state = tmp_path / ".mergegate-state"
    assert not (state / "worktrees" / out["run_id"]).exists()
