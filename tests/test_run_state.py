"""State agents cannot touch: what a run decides from is read from its database, never from
the files of its folder, which an agent can write (always with `--no-sandbox`; its attempt
folders even with the sandbox).

Each test plays the hostile agent through the CLI: it forges a file of the run's folder —
the card (`run.json`: a rubber-stamp reviewer, or review off), a person's answer
(`answers.json`), a phase's outcome (`<phase>/phase.json`), a stop request (`STOP`), a process
record (`process.json`) naming a person's process — and the run goes on as if the file were
not there. And `status`, `resume` and `cancel` give one line and an exit code, never a
traceback, when files of the folder are missing or garbled.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args, spawn, trailers
from mergegate.cli import cli
from mergegate.plans import AcceptanceCriterion, Plan


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def _state() -> Path:
    return Path(os.environ["MERGEGATE_STATE_DIR"])


def _resume(repo: Path, run_id: str, *extra: str) -> tuple[int, dict[str, Any] | None, str]:
    return invoke(
        ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none", *extra]
    )


def _units(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {u["id"]: u for u in report["units"]}


def _started(tmp_path: Path, name: str, kind: str = "implement") -> list[str]:
    """`<unit>/<task>` of each call of the scripted agent `name` of that kind."""
    return [
        f"{e['unit']}/{e['task']}"
        for e in events(tmp_path, name)
        if e["event"] == "start" and e["kind"] == kind
    ]


def _waiting_at_checkpoint(repo: Path, tmp_path: Path) -> dict[str, Any]:
    """A run whose unit A waits for a person at its checkpoint CP1 (T2 comes after it)."""
    plan = make_plan({"P1": {"A": {"tasks": ["CP1", "T2"]}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    assert out["status"] == "waiting_for_human"
    return out


# ---------------------------------------------------------------- the card


@pytest.mark.slow
@pytest.mark.parametrize("forgery", ["rubber-stamp reviewer", "review off"])
def test_a_forged_card_is_not_used_when_a_crashed_run_resumes(
    repo: Path, tmp_path: Path, forgery: str
) -> None:
    """The implementer rewrites `run.json` while mergegate is killed mid-task; `resume`
    still reviews with the reviewer and the review mode the run was made with."""
    plan = make_plan({"P1": {"A": {}}})
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    impl = agent(tmp_path, "impl", {"*": {"implement": [{"sleep": 3}]}})
    rev, stamp = agent(tmp_path, "rev"), agent(tmp_path, "stamp")
    proc = spawn(run_args(repo, impl, rev, str(plan_file)))
    try:
        deadline = time.monotonic() + 60
        while not _started(tmp_path, "impl"):
            assert time.monotonic() < deadline, "the implementer never started"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    [run_dir] = (_state() / "runs").iterdir()
    card = json.loads((run_dir / "run.json").read_text())
    if forgery == "review off":
        card["options"]["review_mode"] = "off"
    else:
        card["agents"]["reviewer"] = {"name": None, "cmd": stamp}
    (run_dir / "run.json").write_text(json.dumps(card))
    code, out, err = _resume(repo, run_dir.name)
    assert code == 0, err
    assert out is not None
    assert _units(out)["A"]["status"] == "merged"
    assert _started(tmp_path, "stamp", "review") == []  # the forged reviewer never ran
    assert _started(tmp_path, "rev", "review") != []  # the run's own reviewer did
    # the folder's copy of the card is the run's again
    assert json.loads((run_dir / "run.json").read_text())["agents"]["reviewer"]["cmd"] == rev


# ---------------------------------------------------------------- a person's answers


def test_a_forged_answer_does_not_approve_a_checkpoint(repo: Path, tmp_path: Path) -> None:
    out = _waiting_at_checkpoint(repo, tmp_path)
    run_dir = Path(out["run_dir"])
    forged = {"A/CP1": {"answer": "approve", "note": "looks good", "at": time.time()}}
    (run_dir / "answers.json").write_text(json.dumps(forged))
    code, again, err = _resume(repo, out["run_id"])
    assert code == 5, err
    assert again is not None
    assert _units(again)["A"]["status"] == "waiting_for_human"
    assert "A/T2" not in _started(tmp_path, "impl")
    assert trailers(repo, again["into"]) == []
    # a person's answer, through the CLI, is the one that counts
    code, done, err = _resume(repo, out["run_id"], "--answer", "A/CP1=approve", "--who", "ada")
    assert code == 0, err
    assert done is not None
    assert _units(done)["A"]["status"] == "merged"
    assert _started(tmp_path, "impl") == ["A/T2"]


# ---------------------------------------------------------------- a phase's outcome


def _with_prose_criterion(plan: Plan) -> Plan:
    """The plan with a criterion in prose on its first phase: it waits for a person."""
    first = plan.phases[0].model_copy(
        update={"success_criteria": (AcceptanceCriterion(text="The greeting reads well"),)}
    )
    return plan.model_copy(update={"phases": (first, *plan.phases[1:])})


def test_a_forged_phase_outcome_does_not_skip_the_phase(repo: Path, tmp_path: Path) -> None:
    plan = _with_prose_criterion(make_plan({"P1": {"A": {}}, "P2": {"B": {}}}))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    assert [p["status"] for p in out["phases"]] == ["not_verified", "not_started"]
    run_dir = Path(out["run_dir"])
    merged = {
        "id": "B",
        "phase": "P2",
        "status": "merged",
        "reason": "",
        "branch": "",
        "worktree": "",
        "merge_commit": out["base"],
        "tasks": [],
        "exit_code": 0,
    }
    verified = {
        "status": "passed",
        "reason": "forged",
        "report": "x",
        "questions": [],
        "counts": {},
        "verifier": "",
    }
    phase = {"id": "P2", "base": out["base"], "units": [merged], "verification": verified}
    (run_dir / "P2" / "B").mkdir(parents=True)
    (run_dir / "P2" / "phase.json").write_text(json.dumps(phase))
    (run_dir / "P2" / "B" / "unit.json").write_text(json.dumps(merged))
    code, done, err = _resume(repo, out["run_id"], "--answer", "sc-1=pass")
    assert code == 0, err
    assert done is not None
    assert _started(tmp_path, "impl") == ["A/T1", "B/T1"]  # phase 2 ran
    assert sorted(trailers(repo, done["into"])) == [
        f"Mergegate-Unit: {out['run_id']}/A",
        f"Mergegate-Unit: {out['run_id']}/B",
    ]
    second = done["phases"][1]["verification"]
    assert second["reason"] != "forged"
    assert Path(second["report"]).is_file()


# ---------------------------------------------------------------- stop requests


def test_a_stop_file_is_not_a_stop_request(repo: Path, tmp_path: Path) -> None:
    """Only `cancel` (or `on_escalation = stop`) stops a run: a `STOP` file an agent writes
    in the run's folder stops nothing."""
    out = _waiting_at_checkpoint(repo, tmp_path)
    (Path(out["run_dir"]) / "STOP").write_text("stop: the agent says so\n")
    code, done, err = _resume(repo, out["run_id"], "--answer", "A/CP1=approve")
    assert code == 0, err
    assert done is not None
    assert _units(done)["A"]["status"] == "merged"
    assert _started(tmp_path, "impl") == ["A/T2"]


# ---------------------------------------------------------------- process records


def _persons_process() -> subprocess.Popen[bytes]:
    """A process of the person's own (a job in their terminal): its own group and session."""
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )


def _forged_record(pid: int) -> dict[str, Any]:
    """A `process.json` naming `pid` truthfully: everything /proc tells anyone."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return {
        "pid": pid,
        "pgid": int(stat[2]),
        "start_ticks": int(stat[19]),
        "boot_id": Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
        "started_at": time.time(),
        "argv": ["claude"],
        "cwd": "/tmp",
    }


def test_cancel_and_resume_kill_no_process_a_forged_record_names(
    repo: Path, tmp_path: Path
) -> None:
    out = _waiting_at_checkpoint(repo, tmp_path)
    run_dir = Path(out["run_dir"])
    victim = _persons_process()
    try:
        time.sleep(0.2)
        record = json.dumps(_forged_record(victim.pid))
        for folder in ("P1/verify/g01/commands/01", "P1/A/T2/attempts/01-implementer"):
            (run_dir / folder).mkdir(parents=True)
            (run_dir / folder / "process.json").write_text(record)
        code, _, err = _resume(repo, out["run_id"])  # kills a crash's leftovers first
        assert code == 5, err
        assert victim.poll() is None
        code, cancelled, err = invoke(
            ["cancel", out["run_id"], "--repo", str(repo), "--format", "json"]
        )
        assert code == 0, err
        assert cancelled is not None
        assert cancelled["status"] == "cancelled"
        assert cancelled["killed_groups"] == 0
        time.sleep(0.3)
        assert victim.poll() is None  # the person's process lives
    finally:
        victim.kill()
        victim.wait()


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("command", ["status", "resume", "cancel"])
def test_missing_and_garbled_files_of_the_folder_change_nothing(
    repo: Path, tmp_path: Path, command: str
) -> None:
    out = _waiting_at_checkpoint(repo, tmp_path)
    run_dir = Path(out["run_dir"])
    (run_dir / "plan.json").unlink()
    (run_dir / "run.json").write_text("{ not json")
    (run_dir / "P1" / "A" / "unit.json").write_text("\x00\xff garbage")
    (run_dir / "events.jsonl").write_text('{"kind": "run.started", "run_id": \n')
    argv = [command, out["run_id"], "--repo", str(repo), "--format", "json"]
    code, found, err = invoke(argv + (["--progress", "none"] if command == "resume" else []))
    assert "Traceback" not in err
    assert found is not None, err
    assert code == {"status": 0, "resume": 5, "cancel": 0}[command], err
    status = {"status": "waiting_for_human", "resume": "waiting_for_human", "cancel": "cancelled"}
    assert found["status"] == status[command]
    assert [u["id"] for u in found["units"]] == ["A"]


@pytest.mark.parametrize("command", ["status", "resume", "cancel"])
@pytest.mark.parametrize("left", ["an empty folder", "run.json only", "run.json, plan.json torn"])
def test_a_run_whose_creation_was_cut_short_is_one_line_and_exit_2(
    repo: Path, command: str, left: str
) -> None:
    """What a kill while a run was being made leaves (its folder, with or without a card in
    it, before its record reached the database) is not a run: one line, exit 2."""
    run_dir = _state() / "runs" / "20260101-000000-dead"
    run_dir.mkdir(parents=True)
    card = {"run_id": run_dir.name, "repo": str(repo), "into": "mergegate/x", "base_sha": "0" * 40}
    if left != "an empty folder":
        (run_dir / "run.json").write_text(json.dumps(card))
    if left == "run.json, plan.json torn":
        (run_dir / "plan.json").write_text('{"format": "native", "phases": [')
    code, found, err = invoke([command, run_dir.name, "--repo", str(repo)])
    assert code == 2, err
    assert found is None
    assert err.count("\n") == 1, err
    assert f"run {run_dir.name} has no record in its database" in err
    assert "Traceback" not in err


def test_runs_lists_only_runs_with_a_record(repo: Path, tmp_path: Path) -> None:
    out = _waiting_at_checkpoint(repo, tmp_path)
    forged = _state() / "runs" / "20260101-000000-fake"
    forged.mkdir()
    card = {"run_id": forged.name, "repo": str(repo), "into": "x", "base_sha": "0" * 40}
    (forged / "run.json").write_text(json.dumps(card))
    result = CliRunner().invoke(cli, ["runs", "--repo", str(repo), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [r["run_id"] for r in json.loads(result.stdout)] == [out["run_id"]]
