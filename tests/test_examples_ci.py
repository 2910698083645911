"""The CI examples run for real: the GitHub Actions job's scripts and the pre-push hook.

Both are driven by a scripted reviewer (`command` backend, see tests/fakes/scripted_agent.py)
configured the way a user would: `MERGEGATE_REVIEW__REVIEWER_CMD` in the environment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from _action import load_action, run_action
from _verdict_object import finding, verdict_object

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "examples" / "ci" / "github-actions.yml"
HOOK = ROOT / "examples" / "hooks" / "pre-push"
FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
BIN = Path(sys.executable).parent  # where `mergegate` is installed

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash and sh")


def verdict_text(verdict: str) -> str:
    findings = [] if verdict == "approve" else [finding("F-1", title="Missing test")]
    return verdict_object(verdict, findings)


def reviewer(tmp_path: Path, name: str, verdict: str) -> str:
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps([{"text": verdict_text(verdict)}]))
    return f"{sys.executable} {FAKE} {script} {tmp_path / (name + '-state')}"


def prompts(tmp_path: Path, name: str) -> list[str]:
    state = tmp_path / f"{name}-state"
    return [p.read_text() for p in sorted(state.glob("prompt-*.txt"))]


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", f"change {name}")
    return git(repo, "rev-parse", "HEAD")


def base_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **extra}
    for name in ("MERGEGATE_SKIP_REVIEW", "MERGEGATE_SPEC", "CI"):
        if name not in extra:
            env.pop(name, None)
    return env


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    return bare


@pytest.fixture
def work(tmp_path: Path, origin: Path) -> Path:
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "remote", "add", "origin", str(origin))
    (repo / ".gitignore").write_text(".mergegate/\n")
    commit(repo, "app.py", "def add(a, b):\n    return a + b\n")
    return repo


# ---------------------------------------------------------------- GitHub Actions
def load_workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return data


def steps() -> dict[str, dict[str, Any]]:
    (job,) = load_workflow()["jobs"].values()
    return {s.get("name") or s["uses"]: s for s in job["steps"]}


def test_workflow_parses_and_uses_the_action() -> None:
    data = load_workflow()
    on = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert "pull_request" in on
    all_steps = steps()
    checkout = all_steps["actions/checkout@v4"]
    assert checkout["with"]["fetch-depth"] == 0
    review = all_steps["Review the pull request"]
    assert re.fullmatch(r"[A-Za-z0-9_.-]+/mergegate@[A-Za-z0-9_.-]+", review["uses"])
    assert set(review["with"]) <= set(load_action()["inputs"])  # only inputs the action has
    upload = next(s for s in all_steps.values() if "upload-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == ".mergegate/reviews"
    assert upload["if"] == "always()"  # the reports are uploaded after a failed gate too


def test_workflow_scripts_never_interpolate_expressions() -> None:
    for step in steps().values():
        assert "${{" not in step.get("run", ""), step.get("name")  # script-injection guard


@pytest.mark.parametrize(("verdict", "expected"), [("approve", 0), ("request_changes", 1)])
def test_the_workflows_review_step_runs_the_action(
    tmp_path: Path, origin: Path, work: Path, verdict: str, expected: int
) -> None:
    """The example's `with:` inputs, in a pull request event, through the real action."""
    git(work, "push", "-q", "origin", "main")
    git(work, "fetch", "-q", "origin")
    git(work, "checkout", "-qb", "pr")
    commit(
        work, "app.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    event = tmp_path / "event.json"
    body = "Acceptance: sub works. $(touch pwned) `touch pwned2`"
    event.write_text(json.dumps({"pull_request": {"title": "Add sub", "body": body}}))
    inputs = dict(steps()["Review the pull request"]["with"])
    # The scripted reviewer stands in for the example's `local` model; mergegate is already
    # installed here (tests/test_action.py installs it from source in a slow test).
    inputs.update(
        install="none",
        extras="",
        reviewer="",
        **{"reviewer-cmd": reviewer(tmp_path, "rv", verdict)},
    )
    env = base_env(GITHUB_BASE_REF="main", GITHUB_EVENT_PATH=str(event))
    result = run_action(inputs, env, work, tmp_path / "runner")
    decision = "approve" if verdict == "approve" else "fixes"
    assert result.outputs == {"decision": decision, "exit-code": str(expected)}, result.log()
    assert result.ok == (expected == 0)
    assert not list(work.glob("pwned*"))  # the PR body was data, never code
    spec_prompt = prompts(tmp_path, "rv")[0]
    assert body in spec_prompt
    assert "+def sub" in spec_prompt
    reports = list((Path(env["MERGEGATE_STATE_DIR"]) / "reviews").glob("*/summary.json"))
    assert len(reports) == 1  # what the upload step picks up (under .mergegate/ by default)


# ---------------------------------------------------------------- pre-push hook
@pytest.fixture
def hooked(work: Path) -> Path:
    hook = work / ".git" / "hooks" / "pre-push"
    shutil.copy(HOOK, hook)
    hook.chmod(0o755)
    return work


def push(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "origin", *args],
        check=False,
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )


def remote_head(origin: Path, branch: str = "main") -> str:
    return git(origin, "rev-parse", "--verify", "-q", f"refs/heads/{branch}")


def test_hook_is_posix_sh() -> None:
    assert HOOK.read_text().startswith("#!/bin/sh\n")
    assert os.access(HOOK, os.X_OK)
    dash = shutil.which("dash")
    if dash:  # a strict POSIX shell parses it
        subprocess.run([dash, "-n", str(HOOK)], check=True)


def test_hook_lets_an_approved_push_through_and_blocks_a_rejected_one(
    tmp_path: Path, origin: Path, hooked: Path
) -> None:
    first = push(hooked, base_env(), "main")  # a new root history: nothing to compare against
    assert first.returncode == 0, first.stderr
    assert "not reviewed" in first.stderr

    approved = commit(hooked, "app.py", "def add(a, b):\n    return a + b  # ok\n")
    env = base_env(MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "yes", "approve"))
    ok = push(hooked, env, "main")
    assert ok.returncode == 0, ok.stderr
    assert remote_head(origin) == approved
    (prompt,) = prompts(tmp_path, "yes")
    assert "+    return a + b  # ok" in prompt

    rejected = commit(hooked, "app.py", "def add(a, b):\n    return a - b\n")
    env = base_env(MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "no", "request_changes"))
    blocked = push(hooked, env, "main")
    assert blocked.returncode != 0
    assert "push blocked" in blocked.stderr
    assert "exited 1 (changes requested or rejected)" in blocked.stderr
    assert remote_head(origin) == approved  # the remote did not move

    skipped = push(hooked, {**env, "MERGEGATE_SKIP_REVIEW": "1"}, "main")
    assert skipped.returncode == 0, skipped.stderr
    assert "review skipped" in skipped.stderr
    assert remote_head(origin) == rejected
    assert len(prompts(tmp_path, "no")) == 1  # the skipped push ran no review


def test_hook_reviews_only_the_new_commits_of_a_new_branch_and_allows_deletion(
    tmp_path: Path, origin: Path, hooked: Path
) -> None:
    commit(hooked, "base.py", "BASE_ONLY = 1\n")
    assert push(hooked, base_env(MERGEGATE_SKIP_REVIEW="1"), "main").returncode == 0
    git(hooked, "checkout", "-qb", "feature")
    head = commit(hooked, "feature.py", "FEATURE = 1\n")
    env = base_env(MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "new", "approve"))
    result = push(hooked, env, "feature")
    assert result.returncode == 0, result.stderr
    assert remote_head(origin, "feature") == head
    (prompt,) = prompts(tmp_path, "new")
    assert "+FEATURE = 1" in prompt
    assert "BASE_ONLY" not in prompt  # already on the remote: not part of this review

    env = base_env(MERGEGATE_REVIEW__REVIEWER_CMD=reviewer(tmp_path, "del", "request_changes"))
    deleted = push(hooked, env, "--delete", "feature")
    assert deleted.returncode == 0, deleted.stderr
    assert prompts(tmp_path, "del") == []  # a deletion is never reviewed
    with pytest.raises(subprocess.CalledProcessError):
        remote_head(origin, "feature")


def test_hook_blocks_when_mergegate_is_missing(tmp_path: Path, hooked: Path) -> None:
    assert push(hooked, base_env(MERGEGATE_SKIP_REVIEW="1"), "main").returncode == 0
    commit(hooked, "x.py", "X = 1\n")
    git_dir = Path(shutil.which("git") or "/usr/bin/git").parent
    env = {**base_env(), "PATH": f"{git_dir}{os.pathsep}/bin"}
    result = push(hooked, env, "main")
    assert result.returncode != 0
    assert "not found on PATH" in result.stderr
