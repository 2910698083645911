"""`GitRepository.diff_and_files`: the diff and the changed files of one git call are what
`diff` and `changed_files` give apart (issue 26, item 7: a reviewer asks for both)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _gitrepo import git
from mergegate.git import GitRepository

IDENTITY = ("-c", "user.email=t@example.com", "-c", "user.name=t")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name, text in {"a.txt": "a\n", "gone.txt": "g\n", "mode.sh": "#!/bin/sh\n"}.items():
        (root / name).write_text(text)
    git(root, "add", ".")
    git(root, *IDENTITY, "commit", "-qm", "base")
    return root


def _commit(repo: Path) -> str:
    git(repo, "add", "-A")
    git(repo, *IDENTITY, "commit", "-qm", "change", "--allow-empty")
    return git(repo, "rev-parse", "HEAD")


CHANGES = {
    "nothing": {},
    "one edit": {"a.txt": "a changed\n"},
    "odd names": {"sp ace.txt": "s\n", "tab\there.txt": "t\n", "é ü.txt": "u\n", "nl\nx": "n\n"},
    "binary": {"blob.bin": b"\x00\x01\x02"},
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_one_call_gives_what_two_gave(repo: Path, name: str) -> None:
    base = git(repo, "rev-parse", "HEAD")
    for path, content in CHANGES[name].items():
        target = repo / path
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    if name == "one edit":
        (repo / "gone.txt").unlink()
        os.chmod(repo / "mode.sh", 0o755)
    head = _commit(repo)
    git_ = GitRepository(repo)
    diff, files = git_.diff_and_files(base, head)
    assert diff == git_.diff(base, head)
    assert files == git_.changed_files(base, head)
    assert bool(files) == (name != "nothing")
