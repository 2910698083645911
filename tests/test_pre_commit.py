"""`.pre-commit-hooks.yaml` through the real pre-commit, in a temporary repository.

Offline: the hooks are declared `repo: local` with the exact fields of
`.pre-commit-hooks.yaml` (id, entry, files, stages, pass_filenames, ...) but `language:
system`, so pre-commit runs the `mergegate` of this checkout from PATH instead of building an
environment. A slow test uses the file itself (`repo: <this checkout>`, `language: python`):
pre-commit clones the checkout and pip-installs it, which needs pip's cache or PyPI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from _gitrepo import git
from _verdict_object import finding, verdict_object

ROOT = Path(__file__).resolve().parents[1]
HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent
FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
PRE_COMMIT = BIN / "pre-commit"

pytestmark = pytest.mark.skipif(
    not PRE_COMMIT.exists() or shutil.which("bash") is None,
    reason="needs pre-commit (the dev extra) and bash",
)

APPROVE = "### Assessment\n\n**Ready to merge? Yes**\n\n**Reasoning:** all criteria met.\n"
FIXES = "### Issues\n- [important] Missing test (app.py:1)\n\n**Ready to merge? With fixes**\n"
MALFORMED = "The code looks good overall. Some minor tweaks needed but nothing blocking.\n"


def declared() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text())}


def reviewer(tmp_path: Path, verdict: str) -> str:
    findings = [] if verdict == "approve" else [finding("F-1", title="Missing test")]
    text = verdict_object(verdict, findings)
    script = tmp_path / f"{verdict}.json"
    script.write_text(json.dumps([{"text": text}]))
    return f"{sys.executable} {FAKE} {script} {tmp_path / (verdict + '-state')}"


def prompts(tmp_path: Path, verdict: str) -> list[str]:
    return [p.read_text() for p in sorted((tmp_path / f"{verdict}-state").glob("prompt-*.txt"))]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MERGEGATE_REVIEW", "PRE_COMMIT"))
    }
    env.update(
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    env.update(extra)
    return env


def local_config(**args: list[str]) -> str:
    hooks = []
    for hook_id, hook in declared().items():
        local = {k: v for k, v in hook.items() if k not in ("description",)}
        local["language"] = "system"  # offline: this checkout's mergegate, from PATH
        if hook_id in args:
            local["args"] = args[hook_id]
        hooks.append(local)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with an `origin`, pre-commit hooks installed for commit and push."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    git(work, "remote", "add", "origin", str(origin))
    (work / ".gitignore").write_text(".mergegate/\n")
    (work / ".pre-commit-config.yaml").write_text(local_config())
    (work / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    git(work, "push", "-q", "origin", "main")
    install = subprocess.run(
        [str(PRE_COMMIT), "install", "--hook-type", "pre-commit", "--hook-type", "pre-push"],
        cwd=work,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    return work


def commit(
    repo: Path, env: dict[str, str], files: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        git(repo, "add", name)
    return subprocess.run(
        ["git", "commit", "-m", "work"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # git hooks print on stderr
        text=True,
        check=False,
    )


def push(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "origin", "main"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # git hooks print on stderr
        text=True,
        check=False,
    )


def test_the_hooks_file_declares_both_hooks() -> None:
    hooks = declared()
    assert hooks["mergegate-parse"]["entry"] == "mergegate parse"
    assert "pre-commit" in hooks["mergegate-parse"]["stages"]
    assert hooks["mergegate-parse"]["pass_filenames"] is True
    assert "pre-push" in hooks["mergegate-review"]["stages"]
    assert hooks["mergegate-review"]["pass_filenames"] is False
    assert {h["language"] for h in hooks.values()} == {"python"}


def test_a_commit_with_an_approving_review_file_passes(repo: Path, tmp_path: Path) -> None:
    done = commit(repo, env_for(tmp_path), {".planning/phase-1/01-REVIEW.md": APPROVE})
    assert done.returncode == 0, done.stdout
    assert "mergegate parse (review files must approve)" in done.stdout
    assert "Passed" in done.stdout


@pytest.mark.parametrize(
    ("text", "shown"), [(MALFORMED, "MALFORMED"), (FIXES, "FIXES"), ("", "EMPTY")]
)
def test_a_commit_with_a_review_that_does_not_approve_is_blocked(
    repo: Path, tmp_path: Path, text: str, shown: str
) -> None:
    head = git(repo, "rev-parse", "HEAD")
    blocked = commit(repo, env_for(tmp_path), {".planning/phase-2/02-REVIEW.md": text})
    assert blocked.returncode != 0
    assert "Failed" in blocked.stdout
    assert shown in blocked.stdout
    assert git(repo, "rev-parse", "HEAD") == head


def test_files_that_are_not_reviews_are_not_parsed(repo: Path, tmp_path: Path) -> None:
    done = commit(
        repo,
        env_for(tmp_path),
        {".planning/PLAN.md": MALFORMED, "notes/review-ideas.txt": MALFORMED},
    )
    assert done.returncode == 0, done.stdout
    assert "(no files to check)Skipped" in done.stdout


def test_a_push_is_reviewed_and_blocked_unless_approved(repo: Path, tmp_path: Path) -> None:
    assert (
        commit(repo, env_for(tmp_path), {"app.py": "def add(a, b):\n    return a - b\n"}).returncode
        == 0
    )
    env = env_for(tmp_path, MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "request_changes"))
    remote_before = git(repo, "ls-remote", "origin", "main")
    blocked = push(repo, env)
    assert blocked.returncode != 0
    assert "mergegate review (before pushing)" in blocked.stdout
    assert git(repo, "ls-remote", "origin", "main") == remote_before
    (prompt,) = prompts(tmp_path, "request_changes")
    assert "-    return a + b" in prompt
    assert "+    return a - b" in prompt

    env = env_for(tmp_path, MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "approve"))
    done = push(repo, env)
    assert done.returncode == 0, done.stdout
    assert git(repo, "ls-remote", "origin", "main").split()[0] == git(repo, "rev-parse", "HEAD")


def test_review_args_reach_mergegate_review(repo: Path, tmp_path: Path) -> None:
    reports = tmp_path / "reports here"
    (repo / ".pre-commit-config.yaml").write_text(
        local_config(**{"mergegate-review": ["--report-dir", str(reports)]})
    )
    git(repo, "add", ".pre-commit-config.yaml")
    env = env_for(tmp_path, MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "approve"))
    assert commit(repo, env, {"app.py": "X = 1\n"}).returncode == 0
    done = push(repo, env)
    assert done.returncode == 0, done.stdout
    assert list(reports.glob("*/summary.json"))


@pytest.mark.slow
def test_the_hooks_file_itself_installs_and_runs(tmp_path: Path) -> None:
    """`repo: <this checkout>` as a user would write it: pre-commit clones the checkout at a
    commit and pip-installs mergegate into its own environment (pip cache or PyPI)."""
    source = tmp_path / "mergegate-src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".venv", ".agent-clis", ".git", "__pycache__", ".*_cache", ".hypothesis"
        ),
    )
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "snapshot")
    rev = git(source, "rev-parse", "HEAD")
    work = tmp_path / "user-repo"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    config = {"repos": [{"repo": str(source), "rev": rev, "hooks": [{"id": "mergegate-parse"}]}]}
    (work / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (work / "reviews").mkdir()
    (work / "reviews" / "phase-1-review.md").write_text(MALFORMED)
    (work / "reviews" / "phase-2-review.md").write_text(APPROVE)
    git(work, "add", "-A")  # pre-commit looks at tracked files
    env = env_for(tmp_path)
    env["PATH"] = os.environ["PATH"].replace(str(BIN), "")  # pre-commit's own mergegate only
    run = subprocess.run(
        [str(PRE_COMMIT), "run", "--all-files"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "reviews/phase-1-review.md: MALFORMED" in run.stdout
    assert "reviews/phase-2-review.md: APPROVE" in run.stdout
