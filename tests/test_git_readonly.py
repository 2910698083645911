"""The read-only check: a write under `.git` or to the effective git config is a write.

`snapshot_worktree` before, an agent's write, `verify_unchanged` after. The files under `.git`
and the config files are read byte by byte, and when one changed git is not run at all.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from _gitrepo import change_repo, git
from mergegate.git import WorktreeSnapshot, snapshot_worktree, verify_unchanged


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})


def snapshot(repo: Path) -> WorktreeSnapshot:
    before = snapshot_worktree(repo)
    assert before is not None
    return before


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


WRITES: dict[str, tuple[Callable[[Path], None], str]] = {
    "a new hook": (lambda r: executable(r / ".git/hooks/post-commit"), "hooks/post-commit created"),
    "a sample hook renamed to its live name": (
        lambda r: os.rename(r / ".git/hooks/pre-commit.sample", r / ".git/hooks/pre-commit"),
        "hooks/pre-commit created",
    ),
    "core.hooksPath": (
        lambda r: git(r, "config", "core.hooksPath", "/tmp"),
        ".git/config changed",
    ),
    "an alias": (lambda r: git(r, "config", "alias.st", "!true"), ".git/config changed"),
    "info/attributes": (
        lambda r: (r / ".git/info/attributes").write_text("* filter=x\n"),
        "info/attributes created",
    ),
    "info/exclude": (
        lambda r: (r / ".git/info/exclude").write_text("*.py\n"),
        "info/exclude changed",
    ),
    "a new branch": (lambda r: git(r, "branch", "planted"), "refs/heads/planted created"),
    "a branch named like a skipped file": (
        lambda r: git(r, "branch", "logs/index"),
        "refs/heads/logs/index created",
    ),
    "a replace ref": (
        lambda r: git(
            r, "replace", git(r, "rev-parse", "HEAD:app.py"), git(r, "rev-parse", "HEAD~1:app.py")
        ),
        "refs/replace/",
    ),
    "packed refs": (lambda r: git(r, "pack-refs", "--all"), "packed-refs created"),
    "HEAD detached": (lambda r: git(r, "checkout", "-q", "--detach", "HEAD~1"), "HEAD changed"),
    "alternates": (
        lambda r: (r / ".git/objects/info/alternates").write_text("/tmp\n"),
        "objects/info/alternates created",
    ),
    "the hooks directory swapped for a symlink": (
        lambda r: (
            os.rename(r / ".git/hooks", r / ".git/old-hooks"),
            (r / ".git/hooks").symlink_to("/tmp"),
        ),
        "hooks created",
    ),
    "a submodule's config": (
        lambda r: executable(r / ".git/modules/sub/config", "[core]\n\tfsmonitor = x\n"),
        "modules/sub/config created",
    ),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_write_under_git_is_a_write(repo: Path, name: str) -> None:
    write, expected = WRITES[name]
    before = snapshot(repo)
    write(repo)
    changes = verify_unchanged(before)
    assert any(expected in change for change in changes), changes


def test_making_a_planted_hook_executable_is_a_write(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o644)
    before = snapshot(repo)
    hook.chmod(0o755)
    assert any("hooks/post-commit changed" in c for c in verify_unchanged(before))


def test_the_global_config_and_its_includes_are_covered(
    repo: Path, tmp_path: Path, home: Path
) -> None:
    git(repo, "config", "include.path", "~/local.gitconfig")  # a target that does not exist yet
    (home / ".config" / "git").mkdir(parents=True)
    before = snapshot(repo)
    assert verify_unchanged(before) == []
    (home / "local.gitconfig").write_text("[core]\n\tfsmonitor = /tmp/x\n")
    assert verify_unchanged(before) == [f"git config file {home / 'local.gitconfig'} created"]
    before = snapshot(repo)
    (home / ".config" / "git" / "config").write_text("[alias]\n\tx = !true\n")
    assert verify_unchanged(before) == [
        f"git config file {home / '.config' / 'git' / 'config'} created"
    ]
    before = snapshot(repo)
    (home / ".gitconfig").write_text("[core]\n\thooksPath = /tmp\n")
    assert verify_unchanged(before) == [f"git config file {home / '.gitconfig'} created"]


@pytest.mark.parametrize(
    "reader",
    [
        ("status",),
        ("log", "--oneline"),
        ("diff", "HEAD~1"),
        ("show", "HEAD"),
        ("hash-object", "-w", "app.py"),  # a new object: content addressed, runs nothing
        ("fsck", "--no-progress"),
    ],
)
def test_what_git_writes_when_reading_is_not_a_write(repo: Path, reader: tuple[str, ...]) -> None:
    (repo / "app.py").touch()  # make the index stat-dirty, so `git status` refreshes it
    time.sleep(0.01)
    before = snapshot(repo)
    git(repo, *reader)
    assert verify_unchanged(before) == []


def test_a_reflog_entry_is_not_a_write_but_the_ref_it_records_is(repo: Path) -> None:
    before = snapshot(repo)
    git(repo, "update-ref", "refs/heads/main", "HEAD~1")
    changes = verify_unchanged(before)
    assert any("refs/heads/main changed" in c for c in changes), changes
    assert not any("logs/" in c for c in changes)


def test_no_git_runs_after_a_planted_fsmonitor(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "fsmonitor"
    executable(hook, f"#!/bin/sh\necho ran >> {marker}\n")
    before = snapshot(repo)
    git(repo, "config", "core.fsmonitor", str(hook))
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, check=False)
    assert marker.exists()  # the control: plain git runs it
    marker.unlink()
    changes = verify_unchanged(before)
    assert any(".git/config changed" in c for c in changes)
    assert not marker.exists()


def test_a_planted_fifo_does_not_hang_the_check(repo: Path) -> None:
    before = snapshot(repo)
    os.mkfifo(repo / ".git" / "hooks" / "post-commit")
    result: list[list[str]] = []
    worker = threading.Thread(target=lambda: result.append(verify_unchanged(before)), daemon=True)
    worker.start()
    worker.join(20)
    assert result, "verify_unchanged blocked on a FIFO"
    assert any("hooks/post-commit created" in c for c in result[0])


def test_a_linked_worktree_is_checked_through_the_common_git_dir(
    repo: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "HEAD~1")
    before = snapshot(linked)
    assert before.git_dir == (repo / ".git").resolve()
    executable(repo / ".git" / "hooks" / "post-checkout")
    assert any("hooks/post-checkout created" in c for c in verify_unchanged(before))


def test_a_work_tree_write_is_still_a_write(repo: Path) -> None:
    before = snapshot(repo)
    (repo / "app.py").write_text("hacked\n")
    assert verify_unchanged(before)
    other = change_repo(repo.parent / "other", {"a": "1\n"}, {"a": "2\n"})
    before = snapshot(other)
    (other / "new.txt").write_text("new\n")
    assert any("git status changed" in c for c in verify_unchanged(before))
