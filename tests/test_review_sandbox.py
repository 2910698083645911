"""End to end through `mergegate review`: the reviewer cannot reach around the read-only check.

Scripted reviewers (the `command` backend running `fakes/scripted_agent.py`) in real temporary
git repositories plant a git hook, change `.git/config` or the global git config, or leave a
`setsid` process behind. Each case failed on the code before the sandbox (the hook ran during
mergegate's own fix commit, the config change went unnoticed, `sleep 778` outlived the run).
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from _gitrepo import git, own_home
from test_review_e2e import agent_cmd, approve, repo, review, with_fixes

__all__ = ["repo"]  # the fixture, shared with test_review_e2e


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, so a reviewer writing the global git config writes there."""
    return own_home(tmp_path, monkeypatch)


def hook_script(marker: Path) -> str:
    """A shell hook that records that it ran."""
    return f'#!/bin/sh\necho "$0 ran" >> {marker}\n'


def plant_hook(hooks_dir: str, marker: Path, names: tuple[str, ...] = ("post-commit",)) -> str:
    """A reviewer's shell command that plants executable hooks in `hooks_dir`."""
    script = hook_script(marker).replace("\n", "\\n")
    return " && ".join(
        f"mkdir -p {hooks_dir} && printf '{script}' > {hooks_dir}/{name} && "
        f"chmod +x {hooks_dir}/{name}"
        for name in names
    )


def fix_loop(tmp_path: Path, reviewer_steps: list[dict[str, object]]) -> tuple[str, ...]:
    """Arguments for a fix loop whose implementer would change app.py (and so commit)."""
    reviewer = agent_cmd(tmp_path, "rv", reviewer_steps)
    implementer = agent_cmd(tmp_path, "impl", [{"text": "fixed", "write": {"app.py": "# v2\n"}}])
    return ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_reviewer_that_plants_a_hook_voids_the_run_and_the_hook_never_runs(
    repo: Path, tmp_path: Path, where: str
) -> None:
    marker = tmp_path / "hook-ran"
    # relative: in the reviewer's working directory (the user's repository before the
    # sandbox, a throwaway checkout now); absolute: the user's repository by path.
    hooks = ".git/hooks" if where == "relative" else f"{repo}/.git/hooks"
    steps = [{**with_fixes(), "shell": plant_hook(hooks, marker)}, approve()]
    # without mergegate's sandbox (in it the checkout is read-only: tests/test_sandbox_e2e.py):
    # the read-only check is what catches the plant
    code, out = review(repo, tmp_path, *fix_loop(tmp_path, steps), "--no-sandbox")
    assert code == 4, out
    assert out["status"] == "agent_failed"
    assert "hooks/post-commit created" in out["message"]
    assert not marker.exists()  # the hook never ran
    assert not (tmp_path / "impl-state").exists()  # no fix round followed a void review
    assert git(repo, "log", "-1", "--format=%s") == "add sub"  # no fix commit was made


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.hooksPath", "{hooks}"),
        ("alias.st", "!touch {marker}"),
        ("core.fsmonitor", "{hooks}/post-commit"),
    ],
)
def test_a_reviewer_that_changes_git_config_voids_the_run(
    repo: Path, tmp_path: Path, key: str, value: str
) -> None:
    marker = tmp_path / "config-program-ran"
    hooks = tmp_path / "planted-hooks"
    setting = value.format(hooks=hooks, marker=marker)
    config = f"git config --file {repo}/.git/config {key} '{setting}'"
    shell = f"{plant_hook(str(hooks), marker)} && {config}"
    code, out = review(repo, tmp_path, *fix_loop(tmp_path, [{**with_fixes(), "shell": shell}]))
    assert code == 4, out
    assert ".git/config changed" in out["message"]
    assert not marker.exists()  # neither the check after the run nor a fix commit ran it
    assert git(repo, "log", "-1", "--format=%s") == "add sub"


def test_a_reviewer_that_writes_the_global_git_config_voids_the_run(
    repo: Path, tmp_path: Path, home: Path
) -> None:
    marker = tmp_path / "global-program-ran"
    shell = f"git config --global core.fsmonitor 'touch {marker}' && git config --global alias.x y"
    # without the sandbox: in it the reviewer's HOME is its own, the user's global config
    # out of sight (tests/test_sandbox_e2e.py)
    steps = [{**with_fixes(), "shell": shell}]
    code, out = review(repo, tmp_path, *fix_loop(tmp_path, steps), "--no-sandbox")
    assert code == 4, out
    assert f"git config file {home / '.gitconfig'} created" in out["message"]
    assert not marker.exists()


def test_the_fix_commit_never_runs_what_the_implementer_planted(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "planted-program-ran"
    plant = " && ".join(
        [
            plant_hook(".git/hooks", marker, ("pre-commit", "commit-msg", "post-commit")),
            f"git config filter.evil.clean 'sh -c \"echo clean >> {marker}; cat\"'",
            "git config filter.evil.required true",
            f"git config core.fsmonitor '{repo}/.git/hooks/post-commit'",
            "echo 'app.py filter=evil' > .gitattributes",
        ]
    )
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), approve()])
    implementer = agent_cmd(
        tmp_path, "impl", [{"text": "fixed", "write": {"app.py": "# v2\n"}, "shell": plant}]
    )
    code, out = review(
        repo, tmp_path, "--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer
    )
    assert code == 0, out
    assert not marker.exists()  # no hook, no filter, no fsmonitor ran during mergegate's git
    assert out["rounds"][0]["fix_commit"] == git(repo, "rev-parse", "HEAD")
    assert git(repo, "show", "HEAD:app.py") == "# v2"  # committed as written, unfiltered


def test_the_reviewer_works_in_a_throwaway_checkout_of_the_commit(
    repo: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen"
    seen.mkdir()
    shell = f"git rev-parse HEAD > {seen}/head; cat app.py > {seen}/app; ls -a > {seen}/ls"
    reviewer = agent_cmd(tmp_path, "rv", [{**approve(), "shell": shell}])
    code, out = review(repo, tmp_path, "--reviewer-cmd", reviewer)
    assert code == 0, out
    cwd = Path((tmp_path / "rv-state" / "cwd-1.txt").read_text())
    assert cwd.resolve() != repo.resolve()
    assert not cwd.exists()  # removed after the run
    assert (seen / "head").read_text().strip() == git(repo, "rev-parse", "HEAD")
    assert (seen / "app").read_text() == (repo / "app.py").read_text()
    assert ".git" in (seen / "ls").read_text().split()


def _processes_marked(mark: str) -> list[int]:
    """Running processes whose environment holds `MG_TEST_MARK=<mark>`."""
    found = []
    needle = f"MG_TEST_MARK={mark}".encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state != b"Z":
            found.append(int(name))
    return found


@pytest.fixture
def mark() -> Iterator[str]:
    """A unique mark for the processes a test starts; any survivor is killed afterwards."""
    value = uuid.uuid4().hex
    yield value
    for pid in _processes_marked(value):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_a_reviewer_that_escapes_with_setsid_leaves_nothing_behind(
    repo: Path, tmp_path: Path, mark: str
) -> None:
    # stderr: the stdout of a reviewer without a mechanism is its answer, the object alone
    shell = f"export MG_TEST_MARK={mark}; setsid sleep 778 & echo started >&2"
    steps = [{**approve(), "shell": shell}]
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    assert code == 0, out
    assert out["decision"] == "approve"
    assert _processes_marked(mark) == []  # `sleep 778` did not outlive the run
