"""`KeptSnapshots`: one read-only check's snapshot after, handed out once as the next run's
snapshot before — only for the same place, the same excluded prefix, and while the git
directory and index are the very files it was taken from."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mergegate.git import KeptSnapshots, check_unchanged, snapshot_worktree, verify_unchanged

IDENTITY = ("-c", "user.email=t@example.com", "-c", "user.name=t")


def make_repo(root: Path) -> Path:
    root.mkdir()
    for args in (
        ("init", "-q", "-b", "main"),
        (*IDENTITY, "commit", "-q", "--allow-empty", "-m", "base"),
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    (root / "a.txt").write_text("a\n")
    subprocess.run(["git", "add", "a.txt"], cwd=root, check=True)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def kept_after(repo: Path, exclude: Path | None = None) -> tuple[KeptSnapshots, object]:
    before = snapshot_worktree(repo, exclude)
    assert before is not None
    changes, after = check_unchanged(before, exclude)
    assert changes == []
    assert after is not None
    kept = KeptSnapshots()
    kept.keep(repo, after, exclude)
    return kept, after


def test_a_kept_snapshot_is_handed_out_once(repo: Path) -> None:
    kept, after = kept_after(repo)
    assert kept.take(repo, None) is after
    assert kept.take(repo, None) is None
    assert len(kept) == 0


def test_only_for_the_place_it_was_taken_of(repo: Path, tmp_path: Path) -> None:
    kept, _after = kept_after(repo)
    assert kept.take(tmp_path, None) is None
    assert len(kept) == 1


def test_not_for_another_excluded_prefix(repo: Path) -> None:
    kept, _after = kept_after(repo, repo / "attempt-1")
    assert kept.take(repo, repo / "attempt-2") is None


def test_not_once_the_index_was_written(repo: Path) -> None:
    kept, _after = kept_after(repo)
    (repo / "b.txt").write_text("b\n")
    subprocess.run(["git", "add", "b.txt"], cwd=repo, check=True)
    assert kept.take(repo, None) is None


def test_not_for_a_repository_made_again_at_the_same_path(repo: Path) -> None:
    """Same path, same content: still another place (a checkout removed and made again)."""
    kept, _after = kept_after(repo)
    shutil.rmtree(repo)
    make_repo(repo)
    assert kept.take(repo, None) is None


def test_cleared(repo: Path) -> None:
    kept, _after = kept_after(repo)
    kept.clear()
    assert kept.take(repo, None) is None


def test_a_change_after_the_kept_snapshot_is_a_change_to_the_next_check(repo: Path) -> None:
    """Sound whatever happens in between: the next check compares with the kept snapshot."""
    kept, _after = kept_after(repo)
    (repo / "between.txt").write_text("made between the two runs\n")
    before = kept.take(repo, None)  # untracked file: the index is untouched, so it fits
    assert before is not None
    assert any("git status changed" in c for c in verify_unchanged(before))


def test_check_unchanged_gives_no_snapshot_when_git_was_not_asked(repo: Path) -> None:
    before = snapshot_worktree(repo)
    assert before is not None
    (repo / ".git" / "config").write_text("[core]\n\tfsmonitor = /bin/false\n", "utf-8")
    changes, after = check_unchanged(before)
    assert changes
    assert after is None


def test_check_unchanged_walks_the_git_directory_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check reads `.git` before it runs git; the snapshot after takes those files as
    read instead of walking `.git` a second time (no git ran in between), and is the
    snapshot a fresh walk gives."""
    from mergegate.git import _snapshot

    before = snapshot_worktree(repo)
    assert before is not None
    walks: list[Path] = []
    walk = _snapshot.hash_git_dir

    def counted(git_dir: Path) -> dict[str, str]:
        walks.append(git_dir)
        return walk(git_dir)

    monkeypatch.setattr(_snapshot, "hash_git_dir", counted)
    changes, after = check_unchanged(before)
    assert changes == []
    assert after is not None
    assert walks == [repo / ".git"]
    assert after == snapshot_worktree(repo)
