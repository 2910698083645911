"""The implementer's result as a validated `agent-result` handoff: asked again in the same
session, escalated at the cap with its records, persisted and read back, help reconciled, and
claims set against checks. Real `command` runs of a scripted agent."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from _implementer import (
    events,
    gone,
    process_pid,
    result_json,
    scripted_agent,
    sigkill,
    start_python,
    wait_for,
)
from mergegate.agents import AgentRequest, AgentResult, RunStatus
from mergegate.config import Config, load_config
from mergegate.errors import UsageError
from mergegate.handoff import AgentResultPayload, HandoffRecorder
from mergegate.implementer import (
    PROGRESS_FILE,
    RESULT_FILE,
    CheckOutcome,
    RecoveryAction,
    RecoveryCounters,
    Situation,
    collect_agent_result,
    decide_recovery,
    implementer_prompt,
    judge_task_result,
    read_agent_result,
    task_environment,
)
from mergegate.testing import ScriptedBackend

NO_WAIT = {"sleep": lambda _: None}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    path = tmp_path / "run"
    path.mkdir()
    return path


def request_for(tmp_path: Path, task_id: str = "T-1") -> AgentRequest:
    prompt = implementer_prompt(task_id=task_id, spec="# Task T-1\n\nAdd a greeting.")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return AgentRequest(
        prompt=prompt.text, cwd=work, env=task_environment("run-1", task_id), timeout_s=60
    )


def test_invalid_twice_then_valid_is_recovered_in_the_same_session(
    tmp_path: Path, run_dir: Path
) -> None:
    agent = scripted_agent(
        tmp_path,
        "implementer",
        [
            {"text": "All done! The greeting is in place."},
            {"text": '{"task_id": "T-1", "success": true, "completed_normally": true,}'},
            {"text": "Here it is:\n" + result_json(notes="added greet()")},
        ],
    )
    request = request_for(tmp_path)
    config = Config()
    first = agent.backend.run(request.model_copy(update={"attempt_dir": run_dir / "impl"}))
    got = collect_agent_result(
        agent.backend,
        request,
        task_id="T-1",
        attempt_dir=run_dir / "result-01",
        first=first,
        config=config,
        recorder=HandoffRecorder.for_run(config, run_dir),
        **NO_WAIT,
    )
    assert got.status == "recovered", got
    assert got.result is not None
    assert (got.result.task_id, got.result.notes) == ("T-1", "added greet()")
    # the session id is the same in all three calls
    assert agent.calls() == 3
    assert len(set(agent.sessions())) == 1
    assert got.session_id == first.session_id == agent.sessions()[0]
    assert {agent.env(n)["MERGEGATE_TASK_ID"] for n in (1, 2, 3)} == {"T-1"}
    assert agent.env(1)["MERGEGATE_RUN_ID"] == "run-1"
    # the exact errors were fed back, and only they (the session holds the task)
    assert "did not contain a JSON object" in agent.prompt(2)
    assert "trailing comma" in agent.prompt(3)
    assert "Add a greeting" not in agent.prompt(2)
    # seed 002's debug record
    record = got.record
    assert record is not None
    assert record.final_status == "recovered"
    assert [(a.attempt, a.result, a.error_type, a.prior) for a in record.retry_attempts] == [
        (1, "failure", "no_json", True),
        (2, "failure", "json_syntax", False),
        (3, "success", None, False),
    ]
    assert record.original_error is not None
    assert record.original_error.output_sample == "All done! The greeting is in place."
    assert record.session_id == first.session_id
    # events and the handoff log in the run directory
    kinds = [e["type"] for e in events(run_dir)]
    assert kinds == ["handoff.attempt"] * 3 + ["handoff.finished", "result.collected"]
    log = [json.loads(line) for line in (run_dir / "handoffs.jsonl").read_text().splitlines()]
    assert [r["final_status"] for r in log] == ["recovered"]
    # persisted, read back validated; the progress file is gone
    assert read_agent_result(run_dir / "result-01") == got
    assert not (run_dir / "result-01" / PROGRESS_FILE).exists()
    assert sorted(p.name for p in (run_dir / "result-01" / "replies").iterdir()) == [
        "01.json",
        "02.json",
        "03.json",
    ]
    decision = decide_recovery(Situation.of(got), RecoveryCounters())
    assert decision.action is RecoveryAction.ACCEPT


def test_invalid_until_the_cap_is_escalated_with_the_debug_records(
    tmp_path: Path, run_dir: Path
) -> None:
    agent = scripted_agent(tmp_path, "implementer", [{"text": '{"task_id": "T-1"}'}])
    config = load_config(env={"MERGEGATE_RETRY__MAX_ATTEMPTS": "{agent-result = 3}"})
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=run_dir / "result-01",
        config=config,
        recorder=HandoffRecorder.for_run(config, run_dir),
        **NO_WAIT,
    )
    assert got.status == "escalated"
    assert got.result is None
    assert agent.calls() == 3
    assert len(set(agent.sessions())) == 1
    record = got.record
    assert record is not None
    assert record.final_status == "escalated"
    assert len(record.retry_attempts) == 3
    assert record.original_error is not None
    assert record.original_error.type == "schema"
    assert [a.prompt_level for a in record.retry_attempts] == ["initial", "full", "minimal"]
    assert got.error is not None
    assert "escalated after 3 attempt(s): schema" in got.error
    # the failed handoff is kept, with every raw output
    assert got.failed_handoff is not None
    saved = json.loads(Path(got.failed_handoff).read_text())["data"]
    assert Path(got.failed_handoff).parent == run_dir / "failed_handoffs"
    assert saved["record"]["final_status"] == "escalated"
    assert saved["outputs"] == ['{"task_id": "T-1"}'] * 3
    collected = [e for e in events(run_dir) if e["type"] == "result.collected"]
    assert collected[0]["status"] == "escalated"
    assert collected[0]["level"] == "warning"
    decision = decide_recovery(Situation.of(got), RecoveryCounters())
    assert (decision.action, int(decision.exit_code or 0)) == (RecoveryAction.ESCALATE, 3)


def test_requested_help_false_after_a_stream_help_is_help_with_a_warning(
    tmp_path: Path, run_dir: Path
) -> None:
    text = "\n".join(
        [
            "I tried twice and the fixture will not load.",
            ">>>HELP<<<",
            '{"reason": "fixture missing", "tried": ["reload"]}',
            result_json(success=False, completed_normally=False, requested_help=False),
        ]
    )
    agent = scripted_agent(tmp_path, "implementer", [{"text": text}])
    config = Config()
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=run_dir / "result-01",
        config=config,
        recorder=HandoffRecorder.for_run(config, run_dir),
        **NO_WAIT,
    )
    assert got.status == "help_requested"
    assert agent.calls() == 1  # not asked again for JSON: it asked for help
    assert got.help.requested
    assert (got.help.source, got.help.warning) == ("stream", True)
    assert got.help.context == {"reason": "fixture missing", "tried": ["reload"]}
    assert got.result is not None
    assert got.result.requested_help is False  # the claim is kept as given
    warning = [e for e in events(run_dir) if e["type"] == "help.discrepancy"]
    assert len(warning) == 1
    assert warning[0]["level"] == "warning"
    assert "requested_help=false" in warning[0]["note"]
    decision = decide_recovery(Situation.of(got), RecoveryCounters())
    assert decision.action is RecoveryAction.CONSULT


def test_the_marker_inside_prose_is_not_a_signal(tmp_path: Path, run_dir: Path) -> None:
    text = (
        "I considered writing >>>HELP<<< but did not need to.\n"
        "> >>>HELP<<< is the marker, quoted here\n" + result_json()
    )
    agent = scripted_agent(tmp_path, "implementer", [{"text": text}])
    config = Config()
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=run_dir / "result-01",
        config=config,
        recorder=HandoffRecorder.for_run(config, run_dir),
        **NO_WAIT,
    )
    assert got.status == "recovered"
    assert not got.help.requested
    assert got.help.source == "none"
    assert not [e for e in events(run_dir) if e["type"] == "help.discrepancy"]


def test_a_claim_in_the_json_without_a_signal_still_asks_with_a_warning(
    tmp_path: Path, run_dir: Path
) -> None:
    text = result_json(
        success=False, completed_normally=False, requested_help=True, help_context={"q": "?"}
    )
    agent = scripted_agent(tmp_path, "implementer", [{"text": text}])
    config = Config()
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=run_dir / "r",
        config=config,
        recorder=HandoffRecorder.for_run(config, run_dir),
    )
    assert (got.status, got.help.source, got.help.warning) == ("help_requested", "json", True)
    assert got.help.context == {"q": "?"}


def test_a_result_for_another_task_is_asked_again(tmp_path: Path) -> None:
    agent = scripted_agent(
        tmp_path, "implementer", [{"text": result_json("T-9")}, {"text": result_json("T-1")}]
    )
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=tmp_path / "r",
        recorder=HandoffRecorder.disabled(),
        **NO_WAIT,
    )
    assert got.status == "recovered"
    assert "task_id is 'T-9' but this task is 'T-1'" in agent.prompt(2)


def test_the_minimal_result_is_complete(tmp_path: Path) -> None:
    agent = scripted_agent(tmp_path, "implementer", [{"text": result_json()}])
    got = collect_agent_result(
        agent.backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=tmp_path / "r",
        recorder=HandoffRecorder.disabled(),
    )
    assert got.result == AgentResultPayload(task_id="T-1", success=True, completed_normally=True)


@pytest.mark.parametrize(
    ("status", "stuck", "action"),
    [
        (RunStatus.TIMEOUT, True, RecoveryAction.FRESH_START),
        (RunStatus.STALLED, True, RecoveryAction.FRESH_START),
        (RunStatus.MISSING, False, RecoveryAction.RETRY_TRANSPORT),
        (RunStatus.CRASHED, False, RecoveryAction.FAIL),
    ],
)
def test_a_failed_run_is_not_asked_again(
    tmp_path: Path, status: RunStatus, stuck: bool, action: RecoveryAction
) -> None:
    backend = ScriptedBackend([])
    first = AgentResult(backend="scripted", status=status, error="gone", session_id="s-1")
    got = collect_agent_result(
        backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=tmp_path / "r",
        first=first,
        recorder=HandoffRecorder.disabled(),
    )
    assert (got.status, got.stuck, got.record) == ("fatal", stuck, None)
    assert backend.requests == []
    assert decide_recovery(Situation.of(got), RecoveryCounters()).action is action


def test_a_help_line_before_a_hang_is_still_help(tmp_path: Path) -> None:
    first = AgentResult(
        backend="scripted",
        status=RunStatus.STALLED,
        text=">>>HELP<<<\n",
        signals=({"marker": ">>>HELP<<<"},),  # type: ignore[arg-type]
    )
    got = collect_agent_result(
        ScriptedBackend([]),
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=tmp_path / "r",
        first=first,
        recorder=HandoffRecorder.disabled(),
    )
    assert (got.status, got.help.requested) == ("fatal", True)
    assert decide_recovery(Situation.of(got), RecoveryCounters()).action is RecoveryAction.CONSULT


def test_a_finished_step_is_read_back_not_run_again(tmp_path: Path) -> None:
    backend = ScriptedBackend(["prose", result_json()])
    kwargs = {
        "task_id": "T-1",
        "attempt_dir": tmp_path / "r",
        "recorder": HandoffRecorder.disabled(),
        **NO_WAIT,
    }
    got = collect_agent_result(backend, request_for(tmp_path), **kwargs)  # type: ignore[arg-type]
    again = collect_agent_result(backend, request_for(tmp_path), **kwargs)  # type: ignore[arg-type]
    assert again == got
    assert len(backend.requests) == 2


def test_a_tampered_result_file_does_not_read_back(tmp_path: Path) -> None:
    backend = ScriptedBackend([result_json()])
    got = collect_agent_result(
        backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=tmp_path / "r",
        recorder=HandoffRecorder.disabled(),
    )
    assert got.ok
    path = tmp_path / "r" / RESULT_FILE
    envelope = json.loads(path.read_text())
    data = envelope["data"]  # the collection, in the common envelope
    data["result_data"]["success"] = "yes"
    path.write_text(json.dumps(envelope))
    with pytest.raises(UsageError, match="agent-result no longer validates"):
        read_agent_result(tmp_path / "r")
    data["result_data"]["success"] = True
    data["task_id"] = "T-2"
    path.write_text(json.dumps(envelope))
    with pytest.raises(UsageError, match="this task is 'T-2'"):
        read_agent_result(tmp_path / "r")


def test_lost_and_persisted_asks_count_towards_the_cap(tmp_path: Path) -> None:
    """As a crash leaves it: three asks started, two replies saved, the third lost."""
    root = tmp_path / "r"
    (root / "replies").mkdir(parents=True)
    (root / PROGRESS_FILE).write_text(json.dumps({"task_id": "T-1", "asks_started": 3}))
    for n, text in ((1, "prose"), (2, "more prose")):
        reply = AgentResult(backend="scripted", status=RunStatus.OK, text=text, session_id="s-7")
        (root / "replies" / f"{n:02d}.json").write_text(reply.model_dump_json())
    backend = ScriptedBackend([result_json()])
    config = load_config(env={"MERGEGATE_RETRY__MAX_ATTEMPTS": "{agent-result = 4}"})
    got = collect_agent_result(
        backend,
        request_for(tmp_path),
        task_id="T-1",
        attempt_dir=root,
        config=config,
        recorder=HandoffRecorder.disabled(),
        **NO_WAIT,
    )
    assert got.status == "recovered"
    assert len(backend.requests) == 1  # only the fourth attempt was asked
    assert backend.requests[0].resume_session_id == "s-7"
    assert got.record is not None
    assert [(a.error_type, a.prior) for a in got.record.retry_attempts] == [
        ("no_json", True),
        ("no_json", True),
        ("lost", True),
        (None, False),
    ]
    # the lost attempt's prompt is sent again: the retry for the second reply's error
    assert got.record.retry_attempts[2].prompt_used == got.record.retry_attempts[3].prompt_used
    assert got.runs == 4


def test_a_process_killed_mid_retry_resumes_without_exceeding_the_cap(tmp_path: Path) -> None:
    """SIGKILL the process collecting the result while its second ask runs; a re-run goes on
    from the persisted count: the lost ask counts, and the cap (3) is never exceeded."""
    agent = scripted_agent(
        tmp_path,
        "implementer",
        [
            {"text": "prose, no JSON"},
            {"text": "hanging", "shell": "sleep 60"},
            {"text": '{"task_id": "T-1", "success": "yes", "completed_normally": true}'},
        ],
    )
    work = tmp_path / "work"
    work.mkdir()
    root = tmp_path / "r"
    code = dedent(
        f"""
        from pathlib import Path
        from mergegate.agents import AgentRequest, get_backend
        from mergegate.config import load_config
        from mergegate.handoff import HandoffRecorder
        from mergegate.implementer import collect_agent_result
        config = load_config(env={{"MERGEGATE_RETRY__MAX_ATTEMPTS": "{{agent-result = 3}}"}})
        collect_agent_result(
            get_backend("command", cmd={agent.cmd!r}),
            AgentRequest(prompt="implement T-1", cwd=Path({str(work)!r})),
            task_id="T-1", attempt_dir=Path({str(root)!r}), config=config,
            recorder=HandoffRecorder.disabled(), sleep=lambda _: None,
        )
        """
    )
    child = start_python(code, tmp_path)
    try:
        wait_for(lambda: agent.calls() == 2 and process_pid(root / "ask-02" / "process.json"))
    finally:
        sigkill(child)
    leftover = process_pid(root / "ask-02" / "process.json")
    assert leftover is not None
    assert json.loads((root / PROGRESS_FILE).read_text())["asks_started"] == 2
    config = load_config(env={"MERGEGATE_RETRY__MAX_ATTEMPTS": "{agent-result = 3}"})
    got = collect_agent_result(
        agent.backend,
        AgentRequest(prompt="implement T-1", cwd=work),
        task_id="T-1",
        attempt_dir=root,
        config=config,
        recorder=HandoffRecorder.disabled(),
        **NO_WAIT,
    )
    assert got.status == "escalated"
    assert agent.calls() == 3  # 1 answered, 1 lost in the crash, 1 after: never a fourth
    assert got.record is not None
    assert [a.error_type for a in got.record.retry_attempts] == ["no_json", "lost", "schema"]
    assert len(set(agent.sessions())) == 1
    assert gone(leftover)  # the crashed run's agent was killed before the step went on


# ---------------------------------------------------------------- claims vs checks


def payload(**fields: object) -> AgentResultPayload:
    return AgentResultPayload.model_validate(
        {"task_id": "T-1", "success": True, "completed_normally": True, **fields}
    )


PASS, FAIL = CheckOutcome(name="pytest", passed=True), CheckOutcome(name="ruff", passed=False)


@pytest.mark.parametrize(
    ("result", "checks", "passed", "discrepancy"),
    [
        (payload(), [PASS], True, None),
        (payload(), [], True, None),
        (payload(), [PASS, FAIL], False, "the agent claims success, but 1 of 2 check(s) failed"),
        (
            payload(success=False, completed_normally=True),
            [PASS],
            False,
            "the agent reports failure, but every check passed",
        ),
        (payload(success=False, completed_normally=False), [FAIL], False, None),
        (None, [PASS], False, None),
    ],
)
def test_what_the_agent_claims_never_replaces_what_mergegate_checks(
    result: AgentResultPayload | None,
    checks: list[CheckOutcome],
    passed: bool,
    discrepancy: str | None,
) -> None:
    judgement = judge_task_result(result, checks)
    assert (judgement.passed, judgement.discrepancy) == (passed, discrepancy)
    assert judgement.checks_run == len(checks)
    assert judgement.checks_failed == tuple(c.name for c in checks if not c.passed)
    assert judgement.claimed_success == (result.success if result else None)
    assert bool(judgement.reasons) == (not passed)
