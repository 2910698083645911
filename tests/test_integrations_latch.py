"""The latch (issue 31): a review's "no" holds in Claude Code until a review approves or a
person releases it. Driven through the real `mergegate hook claude-code` with the hook inputs
Claude Code 2.1.330 really sends (tests/data/claude_code_hooks/)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path
from typing import Any

import pytest

from _hooks import BIN, bash, denied, recorded, review_result, run_hook
from mergegate.integrations import HookOptions, answer_hook

SESSION = "74fe11cd-5b2b-4641-ba58-8102b7fb1b41"  # the session of the recorded PreToolUse inputs
APPROVE = recorded("post-tool-use-approve")["tool_response"]["content"][0]["text"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def said_fixes(project: Path, session: str = SESSION) -> dict[str, Any]:
    """The recorded "With fixes" review, in `session`: the hook's answer."""
    return run_hook(recorded("post-tool-use-fixes", session, project), project)


def pre(name: str, project: Path, session: str = SESSION) -> dict[str, Any]:
    return run_hook(recorded(name, session, project), project)


def test_fixes_then_commit_is_denied_until_the_re_review_approves(project: Path) -> None:
    """Issue 31's "Done when", step by step."""
    assert pre("pre-tool-use-bash-commit", project) == {}  # no review yet: open
    blocked = said_fixes(project)
    assert blocked["decision"] == "block"
    assert "closed this session's latch" in blocked["reason"]

    reason = denied(pre("pre-tool-use-bash-commit", project))
    assert reason is not None
    assert "git commit -m 'Fix the parser'" in reason or "git commit -m Fix the parser" in reason
    assert "commits" in reason
    assert "F-e43f00" in reason  # the open finding
    assert "Missing test coverage for error cases" in reason
    assert "code-reviewer" in reason  # who said no, and who must approve

    for allowed in ("pre-tool-use-bash-status", "pre-tool-use-bash-pytest", "pre-tool-use-edit"):
        assert pre(allowed, project) == {}, allowed
    assert pre("pre-tool-use-fix-subagent", project) == {}  # fix work runs
    assert denied(pre("pre-tool-use-subagent-bash-push", project)) is not None  # even inside it
    next_task = denied(pre("pre-tool-use-next-task-subagent", project))
    assert next_task is not None
    assert "neither a review nor fix work" in next_task
    relaunch = pre("pre-tool-use-background", project)  # the re-review may start
    assert relaunch["hookSpecificOutput"]["updatedInput"]["run_in_background"] is False

    approved = run_hook(review_result(APPROVE, SESSION, project), project)
    assert "code review APPROVED" in approved["hookSpecificOutput"]["additionalContext"]
    assert pre("pre-tool-use-bash-commit", project) == {}
    assert pre("pre-tool-use-next-task-subagent", project) == {}


def test_reject_and_a_second_malformed_review_close_it_too(project: Path) -> None:
    run_hook(
        review_result("**Ready to merge?** No\n\nThe design is wrong.", "s-rej", project), project
    )
    assert denied(run_hook(bash("git push", "s-rej", project), project)) is not None

    run_hook(review_result("Looks fine to me.", "s-mal", project), project)
    assert run_hook(bash("git merge feature", "s-mal", project), project) == {}  # asked again
    run_hook(review_result("Still fine.", "s-mal", project), project)
    assert denied(run_hook(bash("git merge feature", "s-mal", project), project)) is not None
    # No findings after a review without a verdict: no fix work either (seed 000).
    fix = recorded("pre-tool-use-fix-subagent", "s-mal", project)
    assert denied(run_hook(fix, project)) is not None


def test_each_reviewer_holds_its_own_no(project: Path) -> None:
    said_fixes(project, "s-two")
    other = review_result(APPROVE, "s-two", project, reviewer="security-reviewer")
    run_hook(other, project)  # another reviewer's yes does not lift code-reviewer's no
    assert denied(run_hook(bash("git commit -m x", "s-two", project), project)) is not None
    run_hook(review_result(APPROVE, "s-two", project), project)
    assert run_hook(bash("git commit -m x", "s-two", project), project) == {}


def test_sessions_are_latched_apart(project: Path) -> None:
    said_fixes(project, "s-a")
    assert denied(run_hook(bash("git commit -m x", "s-a", project), project)) is not None
    assert run_hook(bash("git commit -m x", "s-b", project), project) == {}


def decide(payload: dict[str, Any]) -> dict[str, Any]:
    """The hook's answer, in process (the same code path as the console script)."""
    raw = json.dumps(payload).encode()
    output: dict[str, Any] = answer_hook(lambda: raw, load_options=lambda _p: HookOptions()).output
    return output


@pytest.mark.parametrize(
    ("harmless", "harmful"),
    [
        ("echo 'git push'", "git -C x push"),
        ("git status  # then git push", "env X=1 git push"),
        ('grep -rn "git commit" docs/', 'bash -c "git push"'),
        ("git diff HEAD~1 && python -m pytest -q", "cd app && git commit -am wip"),
        ("git add -A && git stash", "(git tag v1.0)"),
        ("git log --oneline | head -5", "echo ok; git merge main"),
        ("git rebase --abort", "git rebase --onto main topic"),
        ("gh pr view 12", "gh pr merge 12 --squash"),
        (
            "mergegate hook claude-code status",
            "mergegate hook claude-code release --session s --reason x",
        ),
        ("cat .claude/agents/code-reviewer.md", "sed -i d .claude/settings.local.json"),
    ],
)
def test_commands_are_read_as_commands_not_text(project: Path, harmless: str, harmful: str) -> None:
    decide(recorded("post-tool-use-fixes", "s-cmd", project))
    assert decide(bash(harmless, "s-cmd", project)) == {}
    reason = denied(decide(bash(harmful, "s-cmd", project)))
    assert reason is not None
    assert "DENIED" in reason


def test_an_unreadable_latch_denies_with_one_line(project: Path, tmp_path: Path) -> None:
    said_fixes(project, "s-bad")
    sessions = tmp_path / ".mergegate-state" / "hooks" / "claude-code" / "sessions"
    (sessions / "s-bad.json").write_text("{ not json")
    reason = denied(run_hook(bash("git status", "s-bad", project), project))
    assert reason is not None
    assert "latch cannot be read" in reason
    assert "\n" not in reason


def test_a_latch_state_dir_that_is_a_symlink_is_not_followed(project: Path, tmp_path: Path) -> None:
    elsewhere = project / "agent-owned"
    elsewhere.mkdir()
    state = tmp_path / ".mergegate-state"
    (state / "hooks").mkdir(parents=True)
    (state / "hooks" / "claude-code").symlink_to(elsewhere)
    answer = run_hook(recorded("post-tool-use-fixes", "s-link", project), project)
    assert answer["decision"] == "block"
    assert "symbolic link" in answer["reason"]
    assert list(elsewhere.iterdir()) == []  # nothing written where the link points


def test_the_latch_lives_outside_the_project(project: Path, tmp_path: Path) -> None:
    env = {"MERGEGATE_STATE_DIR": "", "XDG_STATE_HOME": str(tmp_path / "xdg")}
    run_hook(recorded("post-tool-use-fixes", "s-where", project), project, env=env)
    memory = tmp_path / "xdg" / "mergegate" / "hooks" / "claude-code" / "sessions" / "s-where.json"
    latch = json.loads(memory.read_text())["latch"]
    assert latch["state"] == "closed"
    hold = latch["holds"]["code-reviewer"]
    assert hold["decision"] == "fixes"
    assert hold["evidence"].startswith("line 8:")
    assert [f["id"] for f in hold["findings"]] == ["F-e43f00"]
    assert not list(project.rglob("*.json"))


# ---------------------------------------------------------------- a person releases it
def mergegate(*args: str, stdin_tty: bool = False) -> subprocess.CompletedProcess[str]:
    """Run `mergegate ARGS`, with a terminal on stdin and stdout when `stdin_tty`."""
    if not stdin_tty:
        return subprocess.run(
            [str(BIN / "mergegate"), *args], capture_output=True, text=True, check=False
        )
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [str(BIN / "mergegate"), *args],
            stdin=follower,
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            env={**os.environ, "COLUMNS": "200"},
        )
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out.decode(), proc.stderr)


def test_a_person_releases_the_latch_and_status_shows_who_when_and_why(project: Path) -> None:
    said_fixes(project, "s-rel")
    shown = mergegate("hook", "claude-code", "status")
    assert shown.returncode == 0, shown.stderr
    assert "session s-rel: CLOSED" in shown.stdout
    assert "F-e43f00" in shown.stdout
    assert "release --session s-rel" in shown.stdout

    released = mergegate(
        "hook",
        "claude-code",
        "release",
        "--session",
        "s-rel",
        "--reason",
        "fixed by hand",
        "--who",
        "grace",
        stdin_tty=True,
    )
    assert released.returncode == 0, released.stderr
    assert "released the latch of session s-rel" in released.stdout
    assert run_hook(bash("git commit -m x", "s-rel", project), project) == {}

    data = json.loads(mergegate("hook", "claude-code", "status", "--format", "json").stdout)
    (view,) = [v for v in data if v["session"] == "s-rel"]
    assert view["state"] == "open"
    last = view["history"][-1]
    assert last["action"] == "release"
    assert last["who"].startswith("grace (")
    assert last["reason"] == "fixed by hand"
    assert isinstance(last["at"], float)


def test_release_refuses_without_a_terminal_and_for_an_unknown_session(project: Path) -> None:
    said_fixes(project, "s-tty")
    piped = mergegate("hook", "claude-code", "release", "--session", "s-tty", "--reason", "x")
    assert piped.returncode == 2
    assert "needs a person at a terminal" in piped.stderr
    assert "Traceback" not in piped.stderr
    assert denied(run_hook(bash("git commit -m x", "s-tty", project), project)) is not None
    unknown = mergegate(
        "hook", "claude-code", "release", "--session", "nope", "--reason", "x", stdin_tty=True
    )
    assert unknown.returncode == 2
    assert "no review is remembered for session" in unknown.stderr
