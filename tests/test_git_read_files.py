"""`GitRepository.read_files`: the same answers as `read_file` path by path, in one git
command when every path is absent (the review's convention files, issue 26 item 7)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mergegate.git import GitRepository, _repository
from mergegate.review._render import CONVENTION_FILES


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    (root / "AGENTS.md").write_text("agents\n")
    (root / "docs").mkdir()
    (root / "docs" / "STYLE.md").write_text("style\n")
    (root / "CLAUDE.md").mkdir()  # a directory under a convention file's name
    (root / "CLAUDE.md" / "x").write_text("x\n")
    os.symlink("AGENTS.md", root / "STYLE.md")
    (root / "big.txt").write_bytes(b"a" * ((2 << 20) + 1))
    (root / "ü nicode.md").write_text("unicode\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


PATHS = (*CONVENTION_FILES, "big.txt", "ü nicode.md", "docs", "missing/deep.md")


def test_read_files_answers_as_read_file_does(repo: Path) -> None:
    git = GitRepository(repo)
    head = git.resolve("HEAD")
    got = git.read_files(head, PATHS)
    assert got == {p: git.read_file(head, p) for p in PATHS}
    assert got["AGENTS.md"] == "agents\n"
    assert got["docs/STYLE.md"] == "style\n"
    assert got["STYLE.md"] == "AGENTS.md"  # a symlink's blob is its target, as cat-file says
    assert got["CLAUDE.md"] is None  # a tree
    assert got["big.txt"] is None  # over the size limit
    assert got["docs"] is None


def test_read_files_of_an_unknown_revision_is_none_for_each(repo: Path) -> None:
    git = GitRepository(repo)
    assert git.read_files("0" * 40, PATHS) == dict.fromkeys(PATHS, None)


def test_absent_files_cost_one_git_command(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "AGENTS.md").unlink()
    (repo / "STYLE.md").unlink()
    (repo / "docs" / "STYLE.md").unlink()
    _git(repo, "rm", "-rq", "--cached", "CLAUDE.md")
    _git(repo, "commit", "-qam", "no conventions")
    git = GitRepository(repo)
    head = git.resolve("HEAD")
    calls: list[tuple[str, ...]] = []
    real = _repository.run_git

    def counted(where: object, *args: str, **kwargs: object) -> object:
        calls.append(args)
        return real(where, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_repository, "run_git", counted)
    assert git.read_files(head, CONVENTION_FILES) == dict.fromkeys(CONVENTION_FILES, None)
    assert len(calls) == 1
