"""A read-only run whose sandbox cannot write a repository needs no snapshot of it.

`out_of_reach` decides from the sandbox's writable host paths and the repository's layout;
the command backend then skips the snapshots (and their `git status`) of such a place, and
keeps them for every other: no sandbox, a writable path over the tree, its `.git` or a config
file git reads for it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import own_home
from mergegate.agents import AgentRequest, _cli
from mergegate.agents.registry import get_backend
from mergegate.agents.sandbox import SandboxedBackend, SandboxPolicy
from mergegate.git import out_of_reach, snapshot_worktree
from mergegate.processes import Bind, Sandbox


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_home(tmp_path, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    del home  # the repository's global config is the test's own
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(
        repo,
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    return repo


def test_nothing_writable_is_out_of_reach(repo: Path) -> None:
    assert out_of_reach(repo, ())


def test_writable_places_elsewhere_are_out_of_reach(repo: Path, tmp_path: Path, home: Path) -> None:
    elsewhere = tmp_path / "scratch"
    elsewhere.mkdir()
    seat = home / ".local" / "state" / "seat"  # under HOME, beside its config files
    seat.mkdir(parents=True)
    assert out_of_reach(repo, (elsewhere, seat))


@pytest.mark.parametrize("where", ["the tree", "inside it", "its .git", "a parent"])
def test_a_writable_path_over_the_tree_or_in_it_is_in_reach(
    repo: Path, tmp_path: Path, where: str
) -> None:
    (repo / "sub").mkdir()
    path = {
        "the tree": repo,
        "inside it": repo / "sub",
        "its .git": repo / ".git",
        "a parent": tmp_path,
    }[where]
    assert not out_of_reach(repo, (path,))


def test_a_symlink_or_a_second_mount_of_the_tree_is_the_tree(repo: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert not out_of_reach(repo, (link,))
    assert not out_of_reach(link, ())  # a symlinked top is not a workspace: checked by git


def test_a_writable_home_holding_the_global_config_is_in_reach(repo: Path, home: Path) -> None:
    # ~/.gitconfig does not exist: creating it is a write all the same
    assert not (home / ".gitconfig").exists()
    assert not out_of_reach(repo, (home,))


def test_a_writable_include_target_is_in_reach(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    _git(repo, "config", "include.path", str(shared / "more.gitconfig"))
    assert not out_of_reach(repo, (shared,))


def test_a_linked_worktree_or_a_subdirectory_is_never_out_of_reach(
    repo: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    _git(repo, "worktree", "add", "-q", "--detach", str(linked))
    (repo / "sub").mkdir()
    assert not out_of_reach(linked, ())  # its git directory is elsewhere
    assert not out_of_reach(repo / "sub", ())
    assert not out_of_reach(tmp_path / "not-a-repo", ())


def test_host_writable_is_the_read_write_sources_and_the_home(tmp_path: Path) -> None:
    sandbox = Sandbox(
        binds=(
            Bind(path=tmp_path / "ro"),
            Bind(path=tmp_path / "seen", source=tmp_path / "rw", writable=True),
            Bind(path=tmp_path / "hidden", hidden=True),
        ),
        home=tmp_path / "home",
    )
    assert sandbox.host_writable() == (tmp_path / "rw", tmp_path / "home")
    assert Sandbox().host_writable() == ()


def _snapshotted(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = snapshot_worktree

    def counted(cwd: Path, exclude: Path | None = None) -> Any:
        calls.append(Path(cwd))
        return real(cwd, exclude)

    monkeypatch.setattr(_cli, "snapshot_worktree", counted)
    return calls


READ = "print(open('.git/HEAD').read())"


def _review(repo: Path, tmp_path: Path, policy: SandboxPolicy, code: str = READ) -> Any:
    reader = get_backend("command", cmd=shlex.join([sys.executable, "-c", code]))
    backend = SandboxedBackend(reader, policy, tmp_path / "homes")
    request = AgentRequest(
        prompt="review",
        cwd=repo,
        read_only=True,
        timeout_s=20.0,
        stall_timeout_s=20.0,
        attempt_dir=tmp_path / "attempt",
    )
    return backend.run(request)


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_sandboxed_reviewer_of_a_sealed_repository_takes_no_snapshot(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshotted = _snapshotted(monkeypatch)
    result = _review(repo, tmp_path, SandboxPolicy())
    assert result.ok, result.error
    assert snapshotted == []
    assert not result.worktree_changed


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_what_the_structure_proves_a_sealed_repository_cannot_be_written(
    repo: Path, tmp_path: Path
) -> None:
    write = "open('.git/hooks/post-commit', 'w').write('#!/bin/sh')"
    result = _review(repo, tmp_path, SandboxPolicy(), code=write)
    assert not result.ok  # the writer failed: its tree is a read-only mount
    assert "Read-only file system" in (result.log_path.with_name("agent.stderr.log")).read_text()
    assert not (repo / ".git" / "hooks" / "post-commit").exists()


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_sandbox_opening_the_repository_keeps_the_snapshots(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshotted = _snapshotted(monkeypatch)
    result = _review(repo, tmp_path, SandboxPolicy(allow=(tmp_path,)))
    assert result.ok, result.error
    assert snapshotted == [repo]


def test_without_a_sandbox_the_snapshots_stay(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshotted = _snapshotted(monkeypatch)
    result = _review(repo, tmp_path, SandboxPolicy(enabled=False))
    assert result.ok, result.error
    assert snapshotted == [repo]
    assert os.path.isdir(repo / ".git")
