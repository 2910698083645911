"""Ctrl-C of `mergegate run` (issue 24, item 2), through the CLI in a process of its own: the
first SIGINT (or SIGTERM) stops the run's agents, records the run as interrupted, prints how to
resume and exits 130 without a traceback or a DBOS log line; a second one exits at once with
130; `resume` goes on to the end state an uninterrupted run reaches."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import git
from _plan_runs import agent, live_agents, make_plan, repo_with, run_args, spawn, trailers

SLOW = 4.0
"""Seconds the implementer of A/T1 works: the signal lands while it runs."""


def _plan_file(tmp_path: Path) -> Path:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}, "B": {}}})
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json(by_alias=True))
    return path


def _agents(tmp_path: Path, label: str) -> tuple[str, str]:
    impl = agent(tmp_path, f"impl-{label}", {"A/T1": {"implement": [{"sleep": SLOW}]}})
    return impl, agent(tmp_path, f"rev-{label}", {})


def _mergegate(args: list[str], state: Path) -> subprocess.Popen[str]:
    return spawn(args, {"MERGEGATE_STATE_DIR": str(state)})


def _started(state_dir: Path, timeout: float = 60.0) -> None:
    """Wait until the slow implementer (A/T1) logged its start."""
    log = state_dir / "log.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.is_file() and any(
            json.loads(line).get("unit") == "A" and json.loads(line).get("kind") == "implement"
            for line in log.read_text().splitlines()
        ):
            return
        time.sleep(0.05)
    raise AssertionError("the implementer never started")


def _tree(repo: Path, branch: str) -> str:
    return git(repo, "ls-tree", "-r", branch)


def _reference(tmp_path: Path, plan: Path) -> str:
    repo = repo_with(tmp_path / "ref-repo")
    impl, rev = _agents(tmp_path, "ref")
    proc = _mergegate(run_args(repo, impl, rev, str(plan)), tmp_path / "ref-state")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return _tree(repo, json.loads(out)["into"])


def _interrupted_run(tmp_path: Path, sig: signal.Signals) -> tuple[Path, Path, str, str, Any]:
    plan = _plan_file(tmp_path)
    repo, state = repo_with(tmp_path / "repo"), tmp_path / "state"
    impl, rev = _agents(tmp_path, "x")
    proc = _mergegate(run_args(repo, impl, rev, str(plan)), state)
    _started(tmp_path / "impl-x-state")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return repo, state, out, err, proc.returncode


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigint_stops_the_run_and_resume_reaches_the_uninterrupted_end(tmp_path: Path) -> None:
    expected = _reference(tmp_path, _plan_file(tmp_path))
    repo, state, out, err, code = _interrupted_run(tmp_path, signal.SIGINT)
    assert code == 130, err[-3000:]
    assert "Traceback" not in err
    assert "[WARNING]" not in err  # DBOS logs to the run's dbos.log only
    assert "dbos" not in err.lower()
    report = json.loads(out)
    run_id = report["run_id"]
    assert report["status"] == "interrupted"
    assert f"mergegate resume {run_id}" in err
    assert live_agents(under=state) == []  # the agent's group was killed, not left to finish
    # the killed implementer's attempt was not recorded as a failure: resume runs it again
    proc = _mergegate(
        ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"], state
    )
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    assert json.loads(out)["status"] == "completed"
    into = json.loads(out)["into"]
    assert sorted(trailers(repo, into)) == sorted(
        [f"Mergegate-Unit: {run_id}/A", f"Mergegate-Unit: {run_id}/B"]
    )
    assert _tree(repo, into) == expected


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigterm_interrupts_like_sigint(tmp_path: Path) -> None:
    _repo, state, out, err, code = _interrupted_run(tmp_path, signal.SIGTERM)
    assert code == 130, err[-3000:]
    assert "Traceback" not in err
    assert json.loads(out)["status"] == "interrupted"
    assert live_agents(under=state) == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_second_sigint_exits_at_once(tmp_path: Path) -> None:
    plan = _plan_file(tmp_path)
    repo, state = repo_with(tmp_path / "repo"), tmp_path / "state"
    # an implementer that ignores SIGTERM: the first Ctrl-C waits out the kill grace
    stubborn = tmp_path / "stubborn.py"
    ready = tmp_path / "stubborn.ready"
    stubborn.write_text(
        "import pathlib, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"pathlib.Path({str(ready)!r}).touch()\ntime.sleep(120)\n"
    )
    impl = f"{subprocess.list2cmdline(['python3', str(stubborn)])}"
    rev = agent(tmp_path, "rev", {})
    # without the sandbox: in it, SIGTERM to the group kills bwrap and with it the whole PID
    # namespace, so the first Ctrl-C would never wait on the stubborn agent
    args = [*run_args(repo, impl, rev, str(plan)), "--no-sandbox"]
    proc = _mergegate(args, state)
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-3000:]
    assert time.monotonic() - began < 5  # not the kill grace, nor the agent's 120 s
    assert "Traceback" not in err
    assert "quitting now" in err
    time.sleep(0.5)
    assert not _stubborn_runs(stubborn)  # killed with the process


def _stubborn_runs(script: Path) -> bool:
    """A live process runs `python3 SCRIPT` (the agent itself, not a command line naming it)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if len(argv) > 1 and argv[1] == str(script) and state != "Z":
            return True
    return False


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_cancel_mid_task_shows_no_traceback_and_no_false_alert(tmp_path: Path) -> None:
    plan = _plan_file(tmp_path)
    repo, state = repo_with(tmp_path / "repo"), tmp_path / "state"
    impl, rev = _agents(tmp_path, "x")
    proc = _mergegate(run_args(repo, impl, rev, str(plan)), state)
    _started(tmp_path / "impl-x-state")
    run_id = next((state / "runs").iterdir()).name
    cancel = _mergegate(["cancel", run_id, "--repo", str(repo), "--format", "json"], state)
    c_out, c_err = cancel.communicate(timeout=120)
    out, err = proc.communicate(timeout=120)
    assert cancel.returncode == 0, c_err[-3000:]
    assert "Traceback" not in c_err
    assert "Traceback" not in err
    assert json.loads(c_out)["alerts"] == []
    assert proc.returncode == 4
    assert json.loads(out)["status"] == "cancelled"
    assert json.loads(out)["alerts"] == []
    assert live_agents(under=state) == []
