"""The sandbox's flags through the CLI: refused where none can be made (exit 4, one line, nothing
made), `--no-sandbox` recorded and shown, `--sandbox-allow` checked, on `run`, `review`,
`verify` and `agent run`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from _gitrepo import git
from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from _verdict_object import verdict_object
from mergegate.cli import cli

FAKES = Path(__file__).parent / "fakes"
REFUSAL = "bwrap: setting up uid map: Permission denied"


@pytest.fixture
def no_namespaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine where bwrap cannot make a sandbox: a `bwrap` first on PATH that fails the way
    a kernel refusing user namespaces makes it fail."""
    fake = tmp_path / "fake-bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho '{REFUSAL}' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    return fake


def _refused(stderr: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "no sandbox for agents" in lines[0]
    assert REFUSAL in lines[0]  # the cause, in bwrap's words
    assert "--no-sandbox" in lines[0]  # and the way out
    assert "scripts/install-sandbox.sh" in lines[0]


def test_run_is_refused_before_anything_is_made(tmp_path: Path, no_namespaces: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {}}})
    code, out, err = invoke(
        run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev")), plan, tmp_path
    )
    assert code == 4
    assert out is None
    _refused(err)
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    assert not (state / "runs").exists() or list((state / "runs").iterdir()) == []
    assert not (state / "worktrees").exists()
    assert git(repo, "branch", "--format=%(refname:short)") == "main"  # no integration branch
    assert not (tmp_path / "impl-state").exists()  # no agent ran


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_no_sandbox_runs_and_is_recorded_and_shown_in_status(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {}}})
    args = run_args(repo, agent(tmp_path, "impl"), agent(tmp_path, "rev"), "--no-sandbox")
    code, out, err = invoke(args, plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert out["sandbox"]["enabled"] is False
    run_id = out["run_id"]
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    recorded = json.loads((state / "runs" / run_id / "run.json").read_text())
    assert recorded["options"]["sandbox"]["enabled"] is False
    status = CliRunner().invoke(cli, ["status", run_id, "--repo", str(repo)])
    assert status.exit_code == 0, status.output
    assert "sandbox: off (--no-sandbox)" in status.output
    summary = (state / "runs" / run_id / "SUMMARY.md").read_text()
    assert "sandbox: off (--no-sandbox)" in summary


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_what_a_person_opens_is_recorded_and_shown(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    cache = tmp_path / "cache"
    cache.mkdir()
    plan = make_plan({"P1": {"U1": {}}})
    args = run_args(
        repo, agent(tmp_path, "impl"), agent(tmp_path, "rev"), "--sandbox-read", str(cache)
    )
    code, out, err = invoke(args, plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert out["sandbox"]["enabled"] is True
    assert out["sandbox"]["read"] == [str(cache)]
    assert out["sandbox"]["allow"] == [str(tmp_path)]  # the tests' own (tests/conftest.py)
    status = CliRunner().invoke(cli, ["status", out["run_id"], "--repo", str(repo)])
    assert f"read-only: {cache}" in status.output
    assert f"read-write: {tmp_path}" in status.output


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {}}})
    missing = tmp_path / "missing"
    args = run_args(repo, agent(tmp_path, "impl"), None, "--sandbox-allow", str(missing))
    code, _, err = invoke(args, plan, tmp_path)
    assert code == 2
    assert f"--sandbox-allow {missing}: no such file or directory" in err


def test_no_sandbox_with_paths_to_open_is_a_usage_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {}}})
    args = run_args(
        repo, agent(tmp_path, "impl"), None, "--no-sandbox", "--sandbox-allow", str(tmp_path)
    )
    code, _, err = invoke(args, plan, tmp_path)
    assert code == 2
    assert "--sandbox-allow and --sandbox-read say nothing" in err


def test_a_relative_path_in_the_configuration_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repo_with(tmp_path / "repo")
    monkeypatch.setenv("MERGEGATE_SANDBOX__READ", '["relative/dir"]')
    plan = make_plan({"P1": {"U1": {}}})
    code, _, err = invoke(run_args(repo, agent(tmp_path, "impl"), None), plan, tmp_path)
    assert code == 2
    assert "a sandbox path starts with / or ~" in err


def test_the_dry_run_says_what_the_sandbox_will_be(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {}}})
    reviewer = agent(tmp_path, "rev")
    args = run_args(repo, agent(tmp_path, "impl"), reviewer, "--no-sandbox", "--dry-run")
    result = CliRunner().invoke(cli, [*args[:1], str(_plan_file(tmp_path, plan)), *args[1:]])
    assert result.exit_code == 0, result.output
    assert "sandbox: off (--no-sandbox)" in result.output


def _plan_file(tmp_path: Path, plan: object) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json(by_alias=True))  # type: ignore[attr-defined]
    return path


def _change(tmp_path: Path) -> Path:
    repo = repo_with(tmp_path / "repo", {"app.py": "# v1\n"})
    (repo / "app.py").write_text("# v2\n")
    git(repo, "commit", "-qam", "change")
    return repo


def _approving(tmp_path: Path) -> str:
    script = tmp_path / "approve.json"
    script.write_text(json.dumps([{"text": verdict_object("approve")}]))
    return f"{sys.executable} {FAKES / 'scripted_agent.py'} {script} {tmp_path / 'rv-state'}"


def test_review_is_refused_without_a_sandbox_unless_no_process_starts(
    tmp_path: Path, no_namespaces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _change(tmp_path)
    reports = tmp_path / "reports"
    args = ["review", "--repo", str(repo), "--reviewer-cmd", _approving(tmp_path)]
    result = CliRunner().invoke(cli, [*args, "--report-dir", str(reports)])
    assert result.exit_code == 4
    _refused(result.stderr)
    assert not reports.exists()
    assert not (tmp_path / "rv-state").exists()
    # a reviewer that starts no process (`local`, `openai`) needs no sandbox: not refused
    from mergegate.review import options as review_options
    from mergegate.testing import ScriptedBackend

    in_process = ScriptedBackend(["Ready to merge? Yes\n"] * 4)
    monkeypatch.setattr(review_options, "backend_from_config", lambda *_a, **_k: in_process)
    result = CliRunner().invoke(cli, ["review", "--repo", str(repo), "--reviewer", "x"])
    assert "no sandbox" not in result.stderr
    assert in_process.requests  # it was asked


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_review_records_its_sandbox(tmp_path: Path) -> None:
    repo = _change(tmp_path)
    args = ["review", "--repo", str(repo), "--format", "json", "--reviewer-cmd"]
    result = CliRunner().invoke(cli, [*args, _approving(tmp_path), "--no-sandbox"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["sandbox"].startswith("off (--no-sandbox)")
    summary = Path(out["report_dir"]) / "summary.md"
    assert "sandbox: off (--no-sandbox)" in summary.read_text()


def test_verify_and_agent_run_are_refused_without_a_sandbox(
    tmp_path: Path, no_namespaces: Path
) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"U1": {"checks": {"T1": ["true"]}}}})
    verify = CliRunner().invoke(
        cli, ["verify", str(_plan_file(tmp_path, plan)), "--repo", str(repo)]
    )
    assert verify.exit_code == 4, verify.output
    _refused(verify.stderr)
    run = CliRunner().invoke(
        cli,
        [
            "agent",
            "run",
            "--backend",
            "command",
            "--cmd",
            "true",
            "--cwd",
            str(repo),
            "--prompt",
            "x",
        ],
    )
    assert run.exit_code == 4, run.output
    _refused(run.stderr)
    bare = CliRunner().invoke(
        cli,
        [
            "agent",
            "run",
            "--backend",
            "command",
            "--cmd",
            "true",
            "--cwd",
            str(repo),
            "--prompt",
            "x",
            "--no-sandbox",
        ],
    )
    assert bare.exit_code == 0, bare.output
