"""A review's reviewers of one commit share one throwaway checkout (`GitRepository.kept_checkout`)
only while nothing under it changed: anything a reviewer left — even what `git status` does not
list (an ignored file, an empty directory, a rewrite with its size and times put back) — means
a fresh checkout for the next one."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from _gitrepo import change_repo, git
from mergegate.errors import UsageError
from mergegate.git import GitRepository, _checkout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {"app.py": "x = 2\n", ".gitignore": "build/\n*.log\n"}
    return change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, files)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every checkout made (a `git init` borrowing the source's objects), in order."""
    calls: list[Path] = []
    real = _checkout.init_borrowing

    def counted(source: object, where: Path) -> None:
        calls.append(where)
        real(source, where)  # type: ignore[arg-type]

    monkeypatch.setattr(_checkout, "init_borrowing", counted)
    return calls


def test_the_same_commit_gets_the_same_checkout_until_released(
    repo: Path, made: list[Path]
) -> None:
    repository = GitRepository(repo)
    head, parent = git(repo, "rev-parse", "HEAD"), git(repo, "rev-parse", "HEAD~1")
    with repository.kept_checkout(head) as first:
        pass
    assert first.exists()  # kept after the block
    with repository.kept_checkout(head) as again:
        assert again == first
    assert len(made) == 1
    with repository.kept_checkout(parent) as other:  # another commit: a fresh checkout
        assert other == first  # the same path (a resumed reviewer session finds it)
        assert (other / "app.py").read_text() == "x = 1\n"
    repository.release_checkout()
    assert not first.exists()
    with repository.kept_checkout(head) as fresh:
        assert (fresh / "app.py").read_text() == "x = 2\n"
    repository.release_checkout()
    assert not fresh.exists()
    assert len(made) == 3


def _rewrite_same_size_and_times(checkout: Path) -> None:
    path = checkout / "app.py"
    info = path.stat()
    path.write_text("x = 3\n")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


LEFTOVERS: dict[str, Callable[[Path], object]] = {
    "an ignored file": lambda c: (
        (c / "build").mkdir() or (c / "build" / "note.txt").write_text("approve")
    ),
    "an ignored log": lambda c: (c / "review.log").write_text("approve"),
    "an empty directory": lambda c: (c / "empty").mkdir(),
    "a rewrite with its size and times put back": _rewrite_same_size_and_times,
    "a chmod": lambda c: (c / "app.py").chmod(0o755),
    "the git config": lambda c: (c / ".git" / "config").write_text("[core]\n\tbare = false\n"),
    "an exclude file": lambda c: (
        (c / ".git" / "info").mkdir() or (c / ".git" / "info" / "exclude").write_text("*\n")
    ),
    "a removed file": lambda c: (c / ".gitignore").unlink(),
}


@pytest.mark.parametrize("leftover", list(LEFTOVERS))
def test_anything_left_in_the_checkout_means_a_fresh_one(
    repo: Path, made: list[Path], leftover: str
) -> None:
    repository = GitRepository(repo)
    head = git(repo, "rev-parse", "HEAD")
    with repository.kept_checkout(head) as first:
        LEFTOVERS[leftover](first)
    with repository.kept_checkout(head) as second:
        assert len(made) == 2
        assert git(second, "status", "--porcelain", "--ignored") == ""
        assert (second / "app.py").read_text() == "x = 2\n"
        assert not (second / "build").exists()
        assert not (second / "empty").exists()
    repository.release_checkout()


def test_a_block_that_raises_removes_the_checkout(repo: Path) -> None:
    repository = GitRepository(repo)
    head = git(repo, "rev-parse", "HEAD")
    with pytest.raises(RuntimeError), repository.kept_checkout(head) as first:
        raise RuntimeError("the reviewer's run failed")
    assert not first.exists()


def test_one_user_at_a_time(repo: Path) -> None:
    repository = GitRepository(repo)
    head = git(repo, "rev-parse", "HEAD")
    with (
        repository.kept_checkout(head),
        pytest.raises(UsageError, match="in use"),
        repository.kept_checkout(head),
    ):
        pass
    repository.release_checkout()
