"""`mergegate run` with agent results as handoffs and help requests (issue 14), end to end with
scripted command agents on real temporary repositories: the implementer's `agent-result` is
asked again in its session while invalid, a `>>>HELP<<<` line consults the advisors and resumes
the implementer with their guidance, and what cannot be recovered escalates with its records.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args, spawn

HELP_CONTEXT = {"reason": "the fixture is missing", "question": "may I create it?"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    # the backoff between advisor attempts and handoff asks is the library's (and tested
    # there); these tests are about the run, so they do not wait for it
    monkeypatch.setenv("MERGEGATE_RETRY__JSON_RETRY_DELAY", "0")


def result(task: str = "T1", **fields: Any) -> str:
    return json.dumps({"task_id": task, "success": True, "completed_normally": True, **fields})


def asks_for_help(task: str = "T1", *, claimed: bool = True) -> dict[str, Any]:
    """An implement step that writes the marker alone on a line, its context, and a result."""
    body = result(task, requested_help=claimed, success=False, completed_normally=False)
    text = f"I cannot go on.\n>>>HELP<<<\n{json.dumps(HELP_CONTEXT)}\n{body}\n"
    return {"text": text, "write": {}}


def run_events(out: dict[str, Any]) -> list[dict[str, Any]]:
    path = Path(out["run_dir"]) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def calls(tmp_path: Path, name: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in events(tmp_path, name) if e["event"] == "start" and e["kind"] == kind]


def prompt_of(call: dict[str, Any]) -> str:
    [found] = Path(call["attempt"]).glob("prompt*")
    return found.read_text()


def task_of(out: dict[str, Any], unit: int = 0) -> dict[str, Any]:
    task: dict[str, Any] = out["units"][unit]["tasks"][0]
    return task


def test_help_consults_the_advisor_and_resumes_the_session_with_its_guidance(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [asks_for_help(), {}]}})
    advice = {"guidance": "Create tests/fixture.json with XYZZY in it.", "action": "continue"}
    adv = agent(tmp_path, "adv", {"*": {"advise": [{"text": json.dumps(advice)}]}})
    rev = agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev, "--advisor-cmd", adv), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "approved"
    assert task["help_requests"] == 1
    assert task["agent_result"]["success"] is True
    assert {c["unit"] for c in calls(tmp_path, "rev", "review")} == {"A"}  # reviewed after
    # the advisor got the task, the context line and the implementer's output, as data
    [asked] = calls(tmp_path, "adv", "advise")
    request = prompt_of(asked)
    assert "the fixture is missing" in request
    assert "I cannot go on." in request
    assert "# Task T1:" in request
    # the implementer's session was resumed with the guidance
    first, resumed = calls(tmp_path, "impl", "implement")
    assert resumed["session"] == first["session"] != ""
    assert resumed["head"].startswith("You asked for help on task T1")
    assert "XYZZY" in prompt_of(resumed)
    # the implementer was told the marker and the result's format, and who it works for
    told = prompt_of(first)
    assert ">>>HELP<<< alone on" in told
    assert '"completed_normally"' in told
    assert first["task_id"] == "T1"
    assert first["run_id"] == out["run_id"]
    kinds = [e["kind"] for e in run_events(out)]
    assert "help.requested" in kinds
    advised = [e for e in run_events(out) if e["kind"] == "help.advice"]
    assert [(e["advisor"], e["status"]) for e in advised] == [("command-1", "ok")]
    # the consultation's outcome is kept, its state file removed once advised
    help_dir = Path(out["run_dir"]) / "P1" / "A" / "T1" / "help" / "01"
    assert json.loads((help_dir / "consultation.json").read_text())["data"]["action"] == "continue"
    assert not (help_dir / "advice_request.json").exists()


def test_a_stream_help_wins_over_requested_help_false_and_prose_is_no_signal(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    # A mention is no signal: the answer beside it is only text beside the result (asked
    # again, once), never a help request.
    prose = "I will not write >>>HELP<<< here: a mention is not a request.\n" + result()
    script = {
        "A/T1": {"implement": [asks_for_help(claimed=False), {}]},
        "B/T1": {"implement": [{"text": prose}, {}]},
    }
    impl, adv, rev = agent(tmp_path, "impl", script), agent(tmp_path, "adv"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev, "--advisor-cmd", adv), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert [task_of(out, i)["help_requests"] for i in (0, 1)] == [1, 0]
    assert {c["unit"] for c in calls(tmp_path, "adv", "advise")} == {"A"}
    assert [c["unit"] for c in calls(tmp_path, "impl", "implement")].count("B") == 2
    found = run_events(out)
    [requested] = [e for e in found if e["kind"] == "help.requested"]
    assert requested["unit"] == "A"
    assert requested["discrepancy"] is True
    warnings = [e for e in found if e["kind"] == "notice" and e["level"] == "warning"]
    assert any(e["unit"] == "A" and "help" in e["message"] for e in warnings), warnings


def test_advisors_failing_three_times_escalate_the_task_with_the_package(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [asks_for_help()]}})
    adv = agent(tmp_path, "adv", {"*": {"advise": [{"text": "no idea", "exit": 1}]}})
    rev = agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev, "--advisor-cmd", adv), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "needs_manual_review"
    assert "help request unanswered" in task["reason"]
    assert out["units"][0]["status"] == "needs_manual_review"
    assert len(calls(tmp_path, "adv", "advise")) == 3
    assert len(calls(tmp_path, "impl", "implement")) == 1  # never resumed without advice
    assert not calls(tmp_path, "rev", "review")  # the task ended at the help request
    help_dir = Path(out["run_dir"]) / "P1" / "A" / "T1" / "help" / "01"
    consultation = json.loads((help_dir / "consultation.json").read_text())["data"]
    assert consultation["action"] == "error"
    assert consultation["request"]["context"] == HELP_CONTEXT
    assert [f["attempts"] for f in consultation["failures"]] == [3]
    # the state file stays beside an unanswered consultation (the package)
    state = json.loads((help_dir / "advice_request.json").read_text())
    assert [a["attempts"] for a in state["advisors"]] == [3]
    failed = [e for e in run_events(out) if e["kind"] == "help.advice"]
    assert [e["attempt"] for e in failed] == [1, 2, 3]
    assert all(e["status"] == "failed" for e in failed)


def test_no_advisor_configured_escalates_a_help_request(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [asks_for_help()]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    assert task_of(out)["decision"] == "needs_manual_review"
    assert "help request unanswered" in task_of(out)["reason"]


def test_an_invalid_agent_result_twice_then_valid_is_recovered_in_the_same_session(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    steps = [{"text": "Done, all good."}, {"text": '{"task_id": "T1", "success": tru'}, {}]
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": steps}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert task_of(out)["decision"] == "approved"
    made = calls(tmp_path, "impl", "implement")
    assert len(made) == 3
    assert len({c["session"] for c in made}) == 1
    # each ask again carries the exact error
    assert "Done, all good." not in prompt_of(made[1])
    assert "no JSON" in prompt_of(made[1]) or "json" in prompt_of(made[1]).lower()
    attempt = Path(out["run_dir"]) / "P1" / "A" / "T1" / "attempts" / "01-implementer"
    collection = json.loads((attempt / "result" / "agent-result.json").read_text())["data"]
    assert collection["status"] == "recovered"
    assert collection["runs"] == 3
    assert collection["record"]["final_status"] == "recovered"
    attempts = collection["record"]["retry_attempts"]  # the first one included
    assert [a["result"] for a in attempts] == ["failure", "failure", "success"]


def test_an_agent_result_invalid_until_the_cap_ends_the_task_with_its_records(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "mergegate.toml").write_text('[retry]\nmax_attempts = {"agent-result" = 3}\n')
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [{"text": "Done, no JSON."}]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "needs_manual_review"
    assert "agent-result stayed invalid" in task["reason"]
    assert not calls(tmp_path, "rev", "review")
    assert len(calls(tmp_path, "impl", "implement")) == 3
    run_dir = Path(out["run_dir"])
    attempt = run_dir / "P1" / "A" / "T1" / "attempts" / "01-implementer"
    collection = json.loads((attempt / "result" / "agent-result.json").read_text())["data"]
    assert collection["status"] == "escalated"
    record = collection["record"]
    assert record["final_status"] == "escalated"
    assert record["original_error"]["type"]
    assert "Done, no JSON." in record["original_error"]["output_sample"]
    assert all(a["prompt_used"] for a in record["retry_attempts"])
    assert list((run_dir / "failed_handoffs").iterdir())
    finished = [e for e in run_events(out) if e["kind"] == "handoff.finished"]
    assert [(e["handoff_type"], e["final_status"]) for e in finished] == [
        ("agent-result", "escalated")
    ]
    assert finished[0]["task"] == "T1"


def test_a_claim_of_success_with_failing_checks_is_a_failing_task_and_keeps_both(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {"checks": {"T1": ["false"]}}}})
    impl = agent(tmp_path, "impl")
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "needs_manual_review"
    assert task["agent_result"]["success"] is True
    judgement = task["judgement"]
    assert judgement["passed"] is False
    assert judgement["claimed_success"] is True
    assert judgement["checks_failed"] == ["false"]
    assert "claims success" in judgement["discrepancy"]


def test_a_result_that_says_not_done_escalates(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}}})
    body = result(success=False, completed_normally=False, todos=["the parser"])
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [{"text": body}]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "needs_manual_review"
    assert "not done" in task["reason"]
    assert "the parser" in task["reason"]


def test_a_timed_out_implementer_starts_fresh_once_then_the_task_goes_on(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_AGENTS__DEFAULT_TIMEOUT_S", "2")
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [{"sleep": 30}, {}]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert task_of(out)["decision"] == "approved"
    hung, fresh = calls(tmp_path, "impl", "implement")
    assert hung["session"] != fresh["session"]  # a new session, not the hung one resumed
    assert fresh["head"].startswith("You are the implementer of task T1")


def test_an_implementer_that_hangs_again_after_its_fresh_start_escalates(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_AGENTS__DEFAULT_TIMEOUT_S", "2")
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [{"sleep": 30}]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    task = task_of(out)
    assert task["decision"] == "needs_manual_review"
    assert "timeout again after 1 fresh start" in task["reason"]
    assert len(calls(tmp_path, "impl", "implement")) == 2


def test_an_orchestrator_killed_during_the_consultation_resumes_with_the_persisted_count(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [asks_for_help(), {}]}})
    # attempt 1 fails, attempt 2 hangs (the orchestrator is killed during it), attempt 3 answers
    steps = [{"text": "no idea", "exit": 1}, {"sleep": 120}, {}]
    adv = agent(tmp_path, "adv", {"*": {"advise": steps}})
    args = run_args(repo, impl, agent(tmp_path, "rev"), "--advisor-cmd", adv)
    proc = spawn([args[0], str(plan_file), *args[1:]])
    deadline = time.monotonic() + 60
    while len(calls(tmp_path, "adv", "advise")) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    [run_dir] = (state / "runs").iterdir()
    help_dir = run_dir / "P1" / "A" / "T1" / "help" / "01"
    persisted = json.loads((help_dir / "advice_request.json").read_text())
    assert [a["attempts"] for a in persisted["advisors"]] == [2]
    resumed = spawn(
        ["resume", run_dir.name, "--repo", str(repo), "--format", "json", "--progress", "none"]
    )
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err[-3000:]
    report = json.loads(out)
    assert task_of(report)["decision"] == "approved"
    made = calls(tmp_path, "adv", "advise")
    assert len(made) == 3  # never more than 3 attempts in total, across the crash
    assert [Path(c["attempt"]).name for c in made] == ["a1", "a2", "a3"]
    consultation = json.loads((help_dir / "consultation.json").read_text())["data"]
    assert consultation["action"] == "continue"
    assert consultation["answers"][0]["attempts"] == 3
    # the hung advisor of the killed orchestrator did not outlive the resume: the leader of
    # its sandbox (the pid on this host, from its process record; the agent's own pid is its
    # namespace's) is gone, and everything in the sandbox died with it
    record = json.loads((Path(made[1]["attempt"]) / "process.json").read_text())
    hung = record["pid"]
    assert not Path(f"/proc/{hung}").exists() or "Z" in _state_of(hung)
    implemented = calls(tmp_path, "impl", "implement")
    assert len(implemented) == 2  # the help request was not made again
    assert implemented[1]["head"].startswith("You asked for help on task T1")


def _state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_advisors_from_the_configuration_are_recorded_with_the_run(
    repo: Path, tmp_path: Path
) -> None:
    advice = {"guidance": "CONFIGURED-ADVISOR says go on.", "action": "continue"}
    adv = agent(tmp_path, "adv", {"*": {"advise": [{"text": json.dumps(advice)}]}})
    (repo / "mergegate.toml").write_text(f"[agents]\nadvisor_cmds = [{json.dumps(adv)}]\n")
    (repo / ".git" / "info" / "exclude").write_text("mergegate.toml\n")
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [asks_for_help(), {}]}})
    code, out, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert task_of(out)["help_requests"] == 1
    recorded = json.loads((Path(out["run_dir"]) / "run.json").read_text())["agents"]
    assert (recorded["advisors"], recorded["advisor_cmds"]) == ([], [adv])
    resumed = calls(tmp_path, "impl", "implement")[1]
    assert "CONFIGURED-ADVISOR" in prompt_of(resumed)


def test_an_unknown_advisor_is_a_usage_error_before_anything_runs(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, _, err = invoke(run_args(repo, impl, rev, "--advisor", "no-such-backend"), plan, tmp_path)
    assert code == 2
    assert "no-such-backend" in err
    assert not events(tmp_path, "impl")


def test_an_implementer_that_is_not_installed_is_refused_before_the_run(
    repo: Path, tmp_path: Path
) -> None:
    # It used to be retried with backoff as if an endpoint were down ("could not be reached
    # after 2 retries") with a run, a branch and a workspace made; a program does not appear
    # after a backoff (issue 24): the preflight refuses it, in one line, before anything.
    plan = make_plan({"P1": {"A": {}}})
    missing = str(tmp_path / "no-such-agent")
    code, out, err = invoke(run_args(repo, missing, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 4, err
    assert out is None
    assert "no-such-agent" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / ".mergegate-state" / "runs").exists()
