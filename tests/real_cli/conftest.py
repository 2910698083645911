"""Fixtures for the `real_cli` tests (helpers in `_realcli.py`): each real CLI with its own
config home, skipped with the reason when not installed (a failure with
`MERGEGATE_REQUIRE_REAL=1`, see tests/conftest.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _realcli import INSTALL_HINT, GitRepo, RealCli, find_agent_cli


def _real_cli(name: str, tmp_path: Path) -> RealCli:
    binary = find_agent_cli(name)
    if binary is None:
        pytest.skip(f"{name} is not installed: " + INSTALL_HINT.format(name.upper()))
    return RealCli(name, binary, tmp_path / f"{name}-home")


@pytest.fixture(params=["claude", "codex"])
def real_cli(request: pytest.FixtureRequest, tmp_path: Path) -> RealCli:
    """Each real CLI in turn."""
    return _real_cli(request.param, tmp_path)


@pytest.fixture
def claude_cli(tmp_path: Path) -> RealCli:
    return _real_cli("claude", tmp_path)


@pytest.fixture
def codex_cli(tmp_path: Path) -> RealCli:
    return _real_cli("codex", tmp_path)


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """A temporary git repository with one committed file, `hello.txt` ("hello world")."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hello.txt").write_text("hello world\n")
    git = ["git", "-c", "user.name=mergegate", "-c", "user.email=tests@mergegate.invalid"]
    for args in (["init", "-q"], ["add", "hello.txt"], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True)
    return GitRepo(repo)
