"""Bad input through the real `mergegate` program: exit 2, one clear line, no traceback, and
nothing written (no state directory, no reports, no agent run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _gitrepo import change_repo

AGENT = f"{sys.executable} -c print('unreachable')"


def mergegate(*args: str, cwd: Path, state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(state)}
    return subprocess.run(
        [sys.executable, "-m", "mergegate", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def assert_one_clear_line(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mergegate: error: ")
    for needle in needles:
        assert needle in lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})


def written(tmp_path: Path, repo: Path) -> list[str]:
    """Every file under tmp_path but the repository's own (`.git`, app.py, mergegate.toml)."""
    own = {repo / "app.py", repo / "mergegate.toml"}
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p not in own]
    return sorted(str(p.relative_to(tmp_path)) for p in files if (repo / ".git") not in p.parents)


def test_a_config_file_that_is_not_utf8(tmp_path: Path, repo: Path) -> None:
    (repo / "mergegate.toml").write_bytes(b'[review]\nreviewer = "caf\xe9"\n')
    proc = mergegate(
        *("review", "--reviewer-cmd", AGENT, "--progress", "none", "--config", "mergegate.toml"),
        cwd=repo,
        state=tmp_path / "st",
    )
    assert_one_clear_line(proc, "not UTF-8", "mergegate.toml", "0xe9")
    assert written(tmp_path, repo) == []


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("kill_grace_s = inf", "agents.kill_grace_s"),
        ("kill_grace_s = -1.0", "agents.kill_grace_s"),
        ("default_timeout_s = inf", "agents.default_timeout_s"),
        ("default_stall_timeout_s = nan", "agents.default_stall_timeout_s"),
        ("max_output_bytes = -5", "agents.max_output_bytes"),
    ],
)
def test_a_limit_that_is_not_finite_or_negative(
    tmp_path: Path, repo: Path, line: str, key: str
) -> None:
    (repo / "mergegate.toml").write_text(f"[agents]\n{line}\n")
    for command in (
        ("review", "--reviewer-cmd", AGENT, "--progress", "none", "--config", "mergegate.toml"),
        ("agent", "run", "--backend", "command", "--cmd", AGENT, "--prompt", "x"),
    ):
        proc = mergegate(*command, cwd=repo, state=tmp_path / "st")
        assert_one_clear_line(proc, key, "mergegate.toml")
    assert written(tmp_path, repo) == []


@pytest.mark.parametrize("range_", [("HEAD", "HEAD"), ("HEAD~1", "HEAD~1")])
def test_a_review_of_an_empty_range(tmp_path: Path, repo: Path, range_: tuple[str, str]) -> None:
    base, head = range_
    reviewer = f"{sys.executable} -c \"open('{tmp_path / 'ran'}', 'w')\""
    proc = mergegate(
        *("review", "--base", base, "--head", head, "--reviewer-cmd", reviewer),
        *("--progress", "none"),
        cwd=repo,
        state=tmp_path / "st",
    )
    assert_one_clear_line(proc, "nothing to review", f"{base}..{head}", "changes no file")
    assert written(tmp_path, repo) == []  # no run directory, no state, and no reviewer ran
