"""Preflight (issue 24, item 3), through the CLI: before anything is made, `run` (and its
`--dry-run`), `resume`, `review` and `verify` check that every agent they name is usable, and
exit 4 with one line naming the cause and the fix; `agent backends` reports the same; no
reviewer is chosen for a person (exit 2 with the choices); a CLI that is not installed is
never retried as if the network were down."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from _gitrepo import git
from _plan_runs import agent, invoke, make_plan, repo_with
from mergegate.agents import RunStatus, preflight
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.command import CommandBackend
from mergegate.agents.openai import OpenAIBackend
from mergegate.cli import cli


@pytest.fixture
def no_claude(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PATH without any `claude` (and the interpreter still reachable)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")


def _plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(make_plan({"P1": {"A": {}}}).model_dump_json(by_alias=True))
    return path


def _run(repo: Path, plan: Path, *agents: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli, ["run", str(plan), "--repo", str(repo), "--progress", "none", *agents]
    )
    return result.exit_code, result.stdout, result.stderr


def _nothing_made(repo: Path, state: Path) -> None:
    assert git(repo, "branch", "--format=%(refname:short)").splitlines() == ["main"]
    assert not (state / "runs").exists()
    assert not (state / "worktrees").exists()


@pytest.mark.usefixtures("no_claude")
@pytest.mark.parametrize("dry_run", [False, True])
def test_run_with_a_missing_cli_exits_4_in_one_line_and_makes_nothing(
    tmp_path: Path, dry_run: bool
) -> None:
    repo = repo_with(tmp_path / "repo")
    rev = agent(tmp_path, "rev")
    extra = ["--dry-run"] if dry_run else []
    code, out, err = _run(
        repo, _plan(tmp_path), "--implementer", "claude", "--reviewer-cmd", rev, *extra
    )
    assert code == 4, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "'claude' not found on PATH" in lines[0]
    assert "install it" in lines[0]  # the fix
    assert "reached" not in err  # not a network problem
    _nothing_made(repo, tmp_path / ".mergegate-state")


def test_a_missing_command_program_is_refused_before_the_run(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    rev = agent(tmp_path, "rev")
    code, _, err = _run(
        repo,
        _plan(tmp_path),
        "--implementer-cmd",
        str(tmp_path / "no-such-agent"),
        "--reviewer-cmd",
        rev,
    )
    assert code == 4, err
    assert "no-such-agent" in err
    _nothing_made(repo, tmp_path / ".mergegate-state")


def test_no_reviewer_configured_is_a_usage_error_listing_the_choices(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl")
    code, _, err = _run(repo, _plan(tmp_path), "--implementer-cmd", impl)
    assert code == 2, err
    assert "no reviewer" in err
    for name in ("claude", "codex", "local", "openai"):
        assert name in err
    _nothing_made(repo, tmp_path / ".mergegate-state")
    (repo / "a.py").write_text("x = 2\n")  # a change to review (its base is HEAD~1)
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "change")
    result = CliRunner().invoke(cli, ["review", "--repo", str(repo)])
    assert result.exit_code == 2
    assert "no reviewer" in result.stderr
    assert "claude" in result.stderr


@pytest.mark.usefixtures("no_claude")
def test_review_with_a_missing_cli_exits_4_not_malformed(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "change")
    result = CliRunner().invoke(cli, ["review", "--repo", str(repo), "--reviewer", "claude"])
    assert result.exit_code == 4, result.output
    assert "'claude' not found on PATH" in result.stderr
    assert "MALFORMED" not in result.output
    assert not (tmp_path / ".mergegate-state" / "reviews").exists()


@pytest.mark.usefixtures("no_claude")
def test_verify_with_a_missing_verifier_cli_exits_4(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = _plan(tmp_path)
    for extra in ((), ("--dry-run",)):
        result = CliRunner().invoke(
            cli,
            [
                *("verify", str(plan), "--phase", "P1", "--repo", str(repo)),
                *("--verifier", "claude", *extra),
            ],
        )
        assert result.exit_code == 4, result.output
        assert "'claude' not found on PATH" in result.stderr


@pytest.mark.usefixtures("no_claude")
def test_agent_backends_reports_what_preflight_reports(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["agent", "backends", "--format", "json"])
    assert result.exit_code == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["claude"]["available"] is False
    assert "not found on PATH" in rows["claude"]["detail"]
    assert rows["claude"]["fix"]
    text = CliRunner().invoke(cli, ["agent", "backends"]).stdout
    claude = next(line for line in text.splitlines() if line.startswith("claude "))
    assert claude.split()[1] == "no"
    assert "not found on PATH" in claude


def test_preflight_runs_a_cli_s_version(tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    ready = preflight(ClaudeBackend(executable=str(fake)))
    assert ready.ok
    assert "9.9.9 (Claude Code)" in ready.detail
    fake.write_text("#!/bin/sh\necho 'boom' >&2\nexit 3\n")
    broken = preflight(ClaudeBackend(executable=str(fake)))
    assert not broken.ok
    assert "exited 3" in broken.detail


def test_preflight_of_an_endpoint_connects_to_it(tmp_path: Path) -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        ready = preflight(OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m"))
        assert ready.ok, ready.detail
    down = preflight(OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m"))
    assert not down.ok
    assert "unreachable" in down.detail
    assert "base_url" in down.fix


def test_a_cli_gone_mid_run_is_not_installed_and_not_retried(tmp_path: Path) -> None:
    """The status a missing program gets is not the one an unreachable endpoint gets: the
    recovery never backs off and retries it (see test_implementer_recovery's table)."""
    from mergegate.agents import AgentRequest, is_transport_failure

    result = CommandBackend(cmd=str(tmp_path / "gone")).run(AgentRequest(prompt="x", cwd=tmp_path))
    assert result.status is RunStatus.NOT_INSTALLED
    assert not is_transport_failure(result)


def test_a_usable_agent_set_passes_the_dry_run(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(
        [
            *("run", str(_plan(tmp_path)), "--repo", str(repo), "--dry-run"),
            *("--implementer-cmd", impl, "--reviewer-cmd", rev),
        ]
    )
    assert code == 0, err
    assert out is None
