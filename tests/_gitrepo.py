"""Temporary git repositories for tests: a base commit and a change on top of it.

Importable from every test directory (pytest puts `tests/` on sys.path for its conftest).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

__all__ = ["change_repo", "git", "own_home", "write_files"]


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git in `repo`; fail the test on a non-zero exit; return stdout, stripped."""
    out = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=None if env is None else dict(env),
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, with no XDG or global git config pointing elsewhere: what git
    reads as the user's config, and what a sandboxed agent may write, is the test's."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def change_repo(
    root: Path,
    base: Mapping[str, str],
    change: Mapping[str, str],
    *,
    message: str = "change",
) -> Path:
    """A fresh repository at `root` (branch main): `base` committed, then `change` on top.

    Either mapping is file name -> content. Returns `root`; HEAD~1..HEAD is the change.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write_files(root, base)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    write_files(root, change)
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return root
