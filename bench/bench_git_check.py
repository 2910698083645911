"""The cost of the workspace check that precedes every git command mergegate runs in a workspace
(`mergegate.git.check_workspace`: `lstat`s and a walk of `.git/refs` and `.git/logs`), as a
ratio of one git process spawned in the same run (`git --version` through the supervisor).

A unit's workspace as the engine makes it (one branch, a commit or two), and the same with
1,000 loose refs (a workspace an agent filled with tags: the walk is linear in them, capped at
10,000 entries). Goal: the usual workspace's check costs well under a tenth of a spawn.

Usage: bench_git_check.py
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from _smoke import sizes
from mergegate.git import Workspace, add_workspace, check_workspace
from mergegate.processes import run_command

ROUNDS = sizes(2000, 20)
REFS = sizes(1000, 50)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def workspace(root: Path) -> Workspace:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base")
    made, _ = add_workspace(
        repo, root / "ws", "mergegate-unit/r/U1", git(repo, "rev-parse", "HEAD")
    )
    return made


def per_call(action: object, rounds: int) -> float:
    assert callable(action)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(rounds):
            action()
        best = min(best, (time.perf_counter() - t0) / rounds)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        made = workspace(root)
        spawn = per_call(lambda: run_command(["git", "--version"], root), 20)
        usual = per_call(lambda: check_workspace(made), ROUNDS)
        for i in range(REFS):
            (made.git_dir / "refs" / "tags" / f"t{i}").write_text("0" * 40 + "\n")
        many = per_call(lambda: check_workspace(made), 20)
        print(f"one git spawn: {spawn * 1000:.2f} ms (the baseline of this run)")
        print(f"check of a usual workspace: {usual * 1e6:.0f} us = {usual / spawn:.3f} spawns")
        print(f"check with {REFS:,} loose refs: {many * 1000:.2f} ms = {many / spawn:.2f} spawns")


if __name__ == "__main__":
    main()
