"""The read-only check's one `git status --porcelain=v2` reads what its two calls read before
(`git ls-files --stage -z` hashed, `git status --porcelain=v1 -z`), on the same trees.

Each row of the table starts from a repository whose index and work tree already differ from
HEAD (staged, unstaged, renamed, intent-to-add, untracked, ignored files), changes it one
way, and asserts: the status entries and the files hashed are the old ones exactly, and the
new index hash changes exactly when the old listing of the index changed."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from _gitrepo import git, write_files
from mergegate.git import WorktreeSnapshot, snapshot_worktree

IDENTITY = ("-c", "user.email=t@example.com", "-c", "user.name=t")


def _raw(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True).stdout


def _old_status(raw: bytes) -> list[str]:
    """The old reading of `status --porcelain=v1 -z` (a rename's source kept too)."""
    out: list[str] = []
    fields = raw.split(b"\0")
    i = 0
    while i < len(fields):
        item = fields[i]
        i += 1
        if len(item) < 4:
            continue
        code = item[:2].decode()
        out.append(f"{code} {item[3:].decode()}")
        if code[0] in "RC" and i < len(fields):
            out.append(f"{code} {fields[i].decode()}")
            i += 1
    return sorted(out)


def old_reading(repo: Path, exclude: str | None = None) -> tuple[str, list[str]]:
    """(hash of `ls-files --stage -z`, sorted v1 status entries) as the two calls read them."""
    index = hashlib.sha256(_raw(repo, "ls-files", "--stage", "-z")).hexdigest()
    status = _raw(
        repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty"
    )
    entries = [e for e in _old_status(status) if not (exclude and e[3:].startswith(exclude))]
    return index, entries


def _make(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(
        root,
        {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n", ".gitignore": "*.log\n"},
    )
    (root / "sp ace.txt").write_text("s\n")
    git(root, "add", ".")
    git(root, *IDENTITY, "commit", "-qm", "base")
    git(root, "branch", "other")
    # already differing from HEAD before the change under test
    (root / "a.txt").write_text("a staged\n")
    git(root, "add", "a.txt")
    (root / "a.txt").write_text("a staged then changed\n")
    (root / "b.txt").write_text("b unstaged\n")
    git(root, "mv", "c.txt", "c-renamed.txt")
    (root / "ita.txt").write_text("intent\n")
    git(root, "add", "-N", "ita.txt")
    write_files(root, {"untracked/u.txt": "u\n", "build.log": "ignored\n", "att/x.txt": "x\n"})
    return root


def _conflict(r: Path) -> None:
    git(r, "reset", "-q", "--hard")  # (a stash refuses the intent-to-add entry)
    git(r, "checkout", "-q", "other")
    (r / "d.txt").write_text("other\n")
    git(r, *IDENTITY, "commit", "-qam", "other")
    git(r, "checkout", "-q", "main")
    (r / "d.txt").write_text("main\n")
    git(r, *IDENTITY, "commit", "-qam", "main")
    merge = ["git", *IDENTITY, "merge", "-q", "other"]
    subprocess.run(merge, cwd=r, capture_output=True, check=False)  # fails: the conflict


CHANGES: dict[str, Callable[[Path], object]] = {
    "nothing": lambda r: None,
    "stage a work tree change": lambda r: git(r, "add", "b.txt"),
    "stage the staged file again": lambda r: git(r, "add", "a.txt"),
    "unstage": lambda r: git(r, "reset", "-q", "a.txt"),
    "remove from the index only": lambda r: git(r, "rm", "-q", "--cached", "d.txt"),
    "intent to add": lambda r: git(r, "add", "-N", "untracked/u.txt"),
    "intent to add under the excluded prefix": lambda r: git(r, "add", "-N", "att/x.txt"),
    "stage under the excluded prefix": lambda r: git(r, "add", "att/x.txt"),
    "the index mode only": lambda r: git(r, "update-index", "--chmod=+x", "d.txt"),
    "the staged file's mode": lambda r: git(r, "update-index", "--chmod=+x", "a.txt"),
    "an index entry swapped, the file kept": lambda r: git(
        r,
        "update-index",
        "--cacheinfo",
        f"100644,{git(r, 'rev-parse', 'HEAD:b.txt')},d.txt",
    ),
    "the renamed file's staged content": lambda r: (
        (r / "c-renamed.txt").write_text("c changed\n"),
        git(r, "add", "c-renamed.txt"),
    ),
    "a rename undone": lambda r: git(r, "mv", "c-renamed.txt", "c.txt"),
    "a work tree write": lambda r: (r / "d.txt").write_text("d written\n"),
    "a work tree chmod": lambda r: os.chmod(r / "d.txt", 0o755),
    "a work tree delete": lambda r: (r / "d.txt").unlink(),
    "a path with a space": lambda r: (r / "sp ace.txt").write_text("t\n"),
    "a new untracked file": lambda r: (r / "new.txt").write_text("n\n"),
    "an ignored file": lambda r: (r / "more.log").write_text("x\n"),
    "a file under the excluded prefix": lambda r: (r / "att/y.txt").write_text("y\n"),
    "a commit": lambda r: git(r, *IDENTITY, "commit", "-qm", "agent"),
    "a stash": lambda r: (
        git(r, "rm", "-q", "--cached", "ita.txt"),
        git(r, *IDENTITY, "stash", "-q"),
    ),
    "a merge conflict": _conflict,
    "a conflict resolved in the index": lambda r: (
        _conflict(r),
        (r / "d.txt").write_text("resolved\n"),
        git(r, "add", "d.txt"),
    ),
}


def _new(repo: Path, exclude: Path) -> WorktreeSnapshot:
    snapshot = snapshot_worktree(repo, exclude)
    assert snapshot is not None
    return snapshot


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_the_one_status_reads_what_status_and_ls_files_read(tmp_path: Path, name: str) -> None:
    repo = _make(tmp_path / "repo")
    exclude = repo / "att"
    old_before, new_before = old_reading(repo, "att/"), _new(repo, exclude)
    CHANGES[name](repo)
    old_after, new_after = old_reading(repo, "att/"), _new(repo, exclude)
    for old, new in ((old_before, new_before), (old_after, new_after)):
        assert list(new.status) == old[1]
        assert set(new.file_hashes) == {e[3:] for e in old[1]}
    old_changed = old_before[0] != old_after[0]
    new_changed = new_before.index_hash != new_after.index_hash
    # the new hash reads the index against HEAD: where HEAD moved, both readings see it there
    assert new_changed == old_changed or new_before.head != new_after.head, name
