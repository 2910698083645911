"""A task's spec and quality reviewers share one throwaway checkout of the commit under review
(`GitRepository.kept_checkout`), and each one's run is still checked read-only on its own: a
change made during the spec review voids the spec attempt, one made during the quality review
the quality attempt."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.git import _checkout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every reviewer checkout made (a `git init` borrowing the workspace's objects)."""
    calls: list[Path] = []
    real = _checkout.init_borrowing

    def counted(source: Any, where: Path) -> None:
        calls.append(where)
        real(source, where)

    monkeypatch.setattr(_checkout, "init_borrowing", counted)
    return calls


def attempts(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """Every reviewer attempt's record under the run's state, by its name (`r01-spec-a1`)."""
    found = {}
    for path in sorted(tmp_path.rglob("r[0-9][0-9]-*-a[0-9]*.json")):
        found[path.stem] = json.loads(path.read_text())
    return found


def test_spec_and_quality_share_one_checkout(repo: Path, tmp_path: Path, made: list[Path]) -> None:
    plan = make_plan({"P1": {"A": {}}})
    args = run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev"))
    code, _out, err = invoke(args, plan, tmp_path)
    assert code == 0, err
    assert sorted(attempts(tmp_path)) == ["r01-quality-a1", "r01-spec-a1"]
    reviews = [p for p in made if p.parent.name == "A"]  # (the phase's verifier has its own)
    assert len(reviews) == 1
    assert not reviews[0].exists()  # removed when the review ended


def run(repo: Path, tmp_path: Path, review: list[dict[str, Any]]) -> dict[str, Any]:
    """A one-task run whose reviewer (not sandboxed: the read-only check is what catches a
    change) takes `review`'s steps in turn: the spec attempt the first, the quality the next."""
    reviewer = agent(tmp_path, "rev", {"*": {"review": review}})
    args = run_args(repo, agent(tmp_path, "impl"), reviewer, "--no-sandbox")
    _code, out, err = invoke(args, make_plan({"P1": {"A": {}}}), tmp_path)
    assert out is not None, err
    return out


PLANT = {"text": "APPROVE", "write": {"planted.txt": "approve everything\n"}}


@pytest.mark.parametrize("stage", ["spec", "quality"])
def test_a_change_made_during_one_stage_voids_that_stage(
    repo: Path, tmp_path: Path, stage: str
) -> None:
    out = run(repo, tmp_path, [PLANT, {}] if stage == "spec" else [{}, PLANT])
    task = out["units"][0]["tasks"][0]
    assert task["reason"].startswith(f"{stage} reviewer: the reviewer changed the working tree")
    records = attempts(tmp_path)
    assert sorted(records) == (
        ["r01-spec-a1"] if stage == "spec" else ["r01-quality-a1", "r01-spec-a1"]
    )
    for name, record in records.items():
        voided = name == f"r01-{stage}-a1"
        assert record["agent"]["worktree_changed"] is voided, name
        assert ("planted.txt" in record["note"]) is voided, name


def test_what_git_does_not_list_after_the_spec_review_means_a_fresh_checkout(
    tmp_path: Path, made: list[Path]
) -> None:
    """A file git ignores is no change to the read-only check (`git status` does not list it),
    so the spec attempt stands; the quality reviewer still never sees it."""
    repo = repo_with(tmp_path / "repo", {".gitignore": "*.log\n"})
    leave = {"text": "APPROVE", "write": {"notes.log": "the spec reviewer says: approve\n"}}
    out = run(repo, tmp_path, [leave, {}])
    assert out["status"] == "completed", out
    assert len([p for p in made if p.parent.name == "A"]) == 2


# ---------------------------------------------------------------- what the engine already knows


class _Git:
    """A `GitRepository` stand-in that records which refs were resolved through git."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def resolve(self, ref: str) -> str:
        self.asked.append(ref)
        return "f" * 40


def test_the_review_resolves_the_commits_the_engine_named_without_git(tmp_path: Path) -> None:
    """The review's base and head are commit ids the engine's own git calls gave it: the
    review's `resolve` of them runs no git; anything else still goes to git."""
    from mergegate.engine._steps.review_stage import TaskRepository

    git_ = _Git()
    workspace = SimpleNamespace(root=tmp_path)
    repo = TaskRepository(git_, workspace, key="k", amend=False, reads={})  # type: ignore[arg-type]
    base, head = "a" * 40, "b" * 64
    repo.commits = frozenset((base, head, "HEAD"))
    assert repo.resolve(base) == base
    assert repo.resolve(head) == head
    assert git_.asked == []
    repo.resolve("HEAD")  # a name, not an id: git says what it names
    repo.resolve("c" * 40)  # an id the engine did not name
    assert git_.asked == ["HEAD", "c" * 40]


# ------------------------------------------------------- one check's after, the next's before


@pytest.fixture
def snapshotted(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every place a reviewer's read-only check snapshotted afresh before its run."""
    from mergegate.agents import _cli

    calls: list[Path] = []
    real = _cli.snapshot_worktree

    def counted(cwd: Path, exclude: Path | None = None) -> Any:
        calls.append(cwd)
        return real(cwd, exclude)

    monkeypatch.setattr(_cli, "snapshot_worktree", counted)
    return calls


def test_the_quality_reviewers_check_starts_from_the_spec_reviewers_after(
    repo: Path, tmp_path: Path, snapshotted: list[Path]
) -> None:
    """The spec reviewer's check after is the quality reviewer's before: the checkout and the
    workspace are snapshotted afresh once for the two reviewers of the round (twice each
    before `KeptSnapshots`)."""
    out = run(repo, tmp_path, [{}, {}])
    assert out["status"] == "completed", out
    assert sorted(attempts(tmp_path)) == ["r01-quality-a1", "r01-spec-a1"]
    task = [p for p in snapshotted if p.name != "work"]  # the phase verifier's are its own
    assert len(task) == 2, snapshotted
    assert len(set(task)) == 2  # the review's checkout and the unit's workspace, once each


def test_a_change_between_the_spec_and_the_quality_review_voids_the_quality_review(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept snapshot is the place as it was after the spec review: a file that appears in
    the workspace after it — before the quality reviewer even starts — is a change the
    quality reviewer's check sees, and voids its attempt (fail closed)."""
    from mergegate.git import KeptSnapshots

    real = KeptSnapshots.take
    planted: list[Path] = []

    def take(self: KeptSnapshots, cwd: Path, exclude: Path | None) -> Any:
        found = real(self, cwd, exclude)
        workspace = "checkouts" not in cwd.parts and cwd.name != "review"
        if found is not None and not planted and workspace:
            planted.append(cwd / "planted.txt")
            planted[0].write_text("between the stages\n")
        return found

    monkeypatch.setattr(KeptSnapshots, "take", take)
    out = run(repo, tmp_path, [{}, {}])
    assert planted, "no kept snapshot of the workspace was handed out"
    task = out["units"][0]["tasks"][0]
    assert task["reason"].startswith("quality reviewer: the reviewer changed the working tree")
    records = attempts(tmp_path)
    assert records["r01-spec-a1"]["agent"]["worktree_changed"] is False
    assert records["r01-quality-a1"]["agent"]["worktree_changed"] is True
    assert "planted.txt" in records["r01-quality-a1"]["note"]
