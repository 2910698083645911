"""Git questions whose answer mergegate already holds are not asked of git again.

A workspace's git directory is its `.git` (no `rev-parse` to find it); whether a work tree has
`user.email` is read from its config's key names (no `git config user.email`); the user's
identity carried into each new workspace is asked once while the config is unchanged. Each
answer stays the one git gives: a config file that changes is read again.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import own_home
from mergegate.git import (
    BranchMovedError,
    _command,
    add_workspace,
    advance_branch,
    commit_with_key,
    run_git,
)
from mergegate.processes import run_command


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    own_home(tmp_path, monkeypatch)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "me@example.com")
    _git(repo, "config", "user.name", "Me")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-qm", "base")
    return repo


_GLOBAL = ("--no-pager", "--no-optional-locks")


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Every git command run, its argv without the global options."""
    seen: list[tuple[str, ...]] = []
    real = run_command

    def counted(argv: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        seen.append(
            tuple(
                a
                for a in argv[1:]
                if a not in _GLOBAL
                and not a.startswith("--git-dir=")
                and not a.startswith("--work-tree=")
            )
        )
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(_command, "run_command", counted)
    return seen


def _verbs(seen: list[tuple[str, ...]]) -> list[str]:
    return [" ".join(cmd[:2]) for cmd in seen]


def test_a_workspace_is_made_and_committed_in_without_locating_its_git_directory(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]]
) -> None:
    base = _git(repo, "rev-parse", "HEAD")
    run_git(repo, "status")  # the user's repository is known by now, as in a run
    commands.clear()
    workspace, _ = add_workspace(repo, tmp_path / "ws", "unit", base)
    (workspace.root / "b.txt").write_text("b\n")
    made = commit_with_key(workspace, "t1: task", "Mergegate-Task: r/u/t1", onto=base)
    assert made is not None
    # the workspace's .git is its git directory: not located with rev-parse
    assert not [c for c in commands if "--git-common-dir" in c], commands
    assert ("config", "user.email") not in commands, commands  # read from the listed key names
    # the commit is the user's, carried into the workspace
    assert _git(workspace.root, "log", "-1", "--format=%ae %an") == "me@example.com Me"


def test_the_identity_carried_into_workspaces_is_asked_once_per_config(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]]
) -> None:
    base = _git(repo, "rev-parse", "HEAD")
    add_workspace(repo, tmp_path / "ws1", "u1", base)
    add_workspace(repo, tmp_path / "ws2", "u2", base)
    assert _verbs(commands).count("config --get-regexp") == 1, commands
    _git(repo, "config", "user.email", "other@example.com")  # the config changed: asked again
    workspace, _ = add_workspace(repo, tmp_path / "ws3", "u3", base)
    assert _verbs(commands).count("config --get-regexp") == 2, commands
    assert _git(workspace.root, "config", "user.email") == "other@example.com"


def test_a_repository_without_an_identity_gets_the_fallback(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]]
) -> None:
    _git(repo, "config", "--unset", "user.email")
    _git(repo, "config", "--unset", "user.name")
    base = _git(repo, "rev-parse", "HEAD")
    workspace, _ = add_workspace(repo, tmp_path / "ws", "unit", base)
    (workspace.root / "b.txt").write_text("b\n")
    assert commit_with_key(workspace, "t1: task", "Mergegate-Task: r/u/t1", onto=base)
    assert "config --get-regexp" not in _verbs(commands)  # no user.* key to carry
    assert _git(workspace.root, "log", "-1", "--format=%ae") != ""


def test_a_branch_advances_in_one_git_command(repo: Path, commands: list[tuple[str, ...]]) -> None:
    """The compare and swap is git's own (`update-ref NEW OLD`): the tip is read only when
    the swap fails, to tell a move made before a crash from a branch moved by someone else."""
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "branch", "mergegate/r1", base)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "next")
    new = _git(repo, "rev-parse", "HEAD")
    run_git(repo, "status")  # the repository's config view is known, as in a run
    commands.clear()
    assert advance_branch(repo, "mergegate/r1", base, new, "merge") is True
    assert [c[0] for c in commands] == ["update-ref"], commands
    assert _git(repo, "rev-parse", "mergegate/r1") == new
    assert advance_branch(repo, "mergegate/r1", base, new, "merge") is False  # done already
    assert advance_branch(repo, "mergegate/r1", new, new, "merge") is False  # nothing to move
    with pytest.raises(BranchMovedError):
        advance_branch(repo, "mergegate/r1", base, base, "merge")


def test_a_task_commit_on_an_unmoved_head_runs_no_reset(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]]
) -> None:
    """An agent that made no commit of its own leaves HEAD at `onto`: `reset --soft onto`
    would change nothing, and is not run (one git process fewer per task)."""
    base = _git(repo, "rev-parse", "HEAD")
    workspace, _ = add_workspace(repo, tmp_path / "ws", "unit", base)
    (workspace.root / "b.txt").write_text("b\n")
    commands.clear()
    first = commit_with_key(workspace, "t1: task", "Mergegate-Task: r/u/t1", onto=base)
    assert first is not None
    (workspace.root / "c.txt").write_text("c\n")
    second = commit_with_key(workspace, "t2: task", "Mergegate-Task: r/u/t2", onto=first)
    assert second is not None
    assert "reset -q" not in _verbs(commands), commands
    assert _git(workspace.root, "rev-parse", f"{second}^") == first


def test_an_agents_own_commit_is_still_folded_away(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]]
) -> None:
    base = _git(repo, "rev-parse", "HEAD")
    workspace, _ = add_workspace(repo, tmp_path / "ws", "unit", base)
    (workspace.root / "b.txt").write_text("b\n")
    _git(workspace.root, "add", "b.txt")
    _git(workspace.root, "commit", "-qm", "Mergegate-Task: forged")
    made = commit_with_key(workspace, "t1: task", "Mergegate-Task: r/u/t1", onto=base)
    assert made is not None
    assert "reset -q" in _verbs(commands), commands
    assert _git(workspace.root, "rev-parse", f"{made}^") == base
    assert "forged" not in _git(workspace.root, "log", "-1", "--format=%B")


@pytest.mark.parametrize("state", ["MERGE_MSG", "AUTO_MERGE", "CHERRY_PICK_HEAD", "rebase-merge"])
def test_an_operation_an_agent_left_in_progress_still_goes_through_the_reset(
    repo: Path, tmp_path: Path, commands: list[tuple[str, ...]], state: str
) -> None:
    """HEAD at `onto` but the git directory holds a name outside the settled ones (an
    operation's state): the reset runs as before, which clears or refuses it."""
    base = _git(repo, "rev-parse", "HEAD")
    workspace, _ = add_workspace(repo, tmp_path / "ws", "unit", base)
    (workspace.root / "b.txt").write_text("b\n")
    if state == "rebase-merge":
        (workspace.git_dir / state).mkdir()
    else:
        (workspace.git_dir / state).write_text(f"{base}\n" if "HEAD" in state else "x\n")
    commands.clear()
    made = commit_with_key(workspace, "t1: task", "Mergegate-Task: r/u/t1", onto=base)
    assert "reset -q" in _verbs(commands), commands
    assert made is not None
    assert _git(workspace.root, "log", "-1", "--format=%B").startswith("t1: task")
