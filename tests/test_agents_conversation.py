"""`SessionAsk`: any backend as the `ask` callable of `request_handoff`, asking again in the
same session (real `command` runs and the scripted backend)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mergegate.agents import (
    AgentRequest,
    AgentResult,
    AgentRunError,
    BackendCapabilities,
    RunStatus,
    SessionAsk,
    get_backend,
)
from mergegate.agents.conversation import FRESH_RETRY_HEADING
from mergegate.handoff import HandoffRecorder, RetryPolicy, StuckRunError, request_handoff
from mergegate.testing import ScriptedBackend

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
VALID = '{"task_id": "T-1", "success": true, "completed_normally": true}'


def command_backend(tmp_path: Path, steps: list[dict[str, object]]) -> tuple[object, Path]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(steps))
    state = tmp_path / "agent-state"
    return get_backend("command", cmd=[sys.executable, str(FAKE), str(script), str(state)]), state


def sessions_of(state: Path) -> list[str]:
    calls = sorted(state.glob("env-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return [json.loads(p.read_text())["MERGEGATE_SESSION_ID"] for p in calls]


def test_retries_resume_the_same_session_with_the_exact_error(tmp_path: Path) -> None:
    backend, state = command_backend(
        tmp_path,
        [
            {"text": "done, here you go: {'task_id': 'T-1'}"},
            {"text": '{"task_id": "T-1", "success": "yes", "completed_normally": true}'},
            {"text": VALID},
        ],
    )
    request = AgentRequest(prompt="implement T-1", cwd=tmp_path)
    ask = SessionAsk(backend, request, attempt_root=tmp_path / "attempts")  # type: ignore[arg-type]
    outcome = request_handoff(
        ask,
        "implement T-1",
        "agent-result",
        recorder=HandoffRecorder.disabled(),
        sleep=lambda _: None,
    )
    assert outcome.ok
    assert [a.result for a in outcome.record.retry_attempts] == ["failure", "failure", "success"]
    sessions = sessions_of(state)
    assert len(sessions) == 3
    assert len(set(sessions)) == 1  # one session, resumed twice
    assert ask.session_id == sessions[0]
    second = (state / "prompt-2.txt").read_text()
    assert "invalid JSON" in second
    assert "implement T-1" not in second  # the session holds the task; only the error is sent
    assert "success: Input should be a valid boolean" in (state / "prompt-3.txt").read_text()
    assert sorted(p.name for p in (tmp_path / "attempts").iterdir()) == [
        "ask-01",
        "ask-02",
        "ask-03",
    ]
    attempts = [json.loads((state / f"env-{n}.json").read_text()) for n in (1, 2, 3)]
    assert [e["MERGEGATE_ATTEMPT"] for e in attempts] == ["1", "2", "3"]
    assert all(r.ok for r in ask.results)


def test_a_backend_without_sessions_gets_the_full_prompt_again_and_a_warning() -> None:
    backend = ScriptedBackend(["no json here", VALID])
    backend.capabilities = BackendCapabilities(sessions=False, resume=False)
    ask = SessionAsk(backend, AgentRequest(prompt="", cwd=Path()))
    outcome = request_handoff(
        ask,
        "ORIGINAL TASK",
        "agent-result",
        recorder=HandoffRecorder.disabled(),
        sleep=lambda _: None,
    )
    assert outcome.ok
    first, second = backend.requests
    assert first.prompt == "ORIGINAL TASK"
    assert second.resume_session_id is None
    assert second.prompt.startswith("ORIGINAL TASK\n\n" + FRESH_RETRY_HEADING)
    assert "did not contain a JSON object" in second.prompt
    assert ask.warnings == [
        "backend 'scripted' has no sessions: each retry was a fresh run with the full "
        "original prompt"
    ]


def test_a_given_session_is_resumed_from_the_first_call() -> None:
    backend = ScriptedBackend([VALID])
    ask = SessionAsk(backend, AgentRequest(prompt="", cwd=Path()), session_id="s-42")
    assert ask("go on") == VALID
    assert backend.requests[0].resume_session_id == "s-42"


def failed(status: RunStatus, error: str = "boom") -> AgentResult:
    return AgentResult(backend="scripted", status=status, error=error, session_id="s-1")


@pytest.mark.parametrize("status", [RunStatus.TIMEOUT, RunStatus.STALLED])
def test_a_stuck_run_raises_stuck_and_ends_the_handoff_fatal(status: RunStatus) -> None:
    ask = SessionAsk(ScriptedBackend([failed(status)]), AgentRequest(prompt="", cwd=Path()))
    with pytest.raises(StuckRunError):
        ask("p")
    again = SessionAsk(ScriptedBackend([failed(status)]), AgentRequest(prompt="", cwd=Path()))
    outcome = request_handoff(again, "p", "agent-result", recorder=HandoffRecorder.disabled())
    assert outcome.record.final_status == "fatal"
    assert outcome.record.retry_attempts[-1].error_type == "stuck"


@pytest.mark.parametrize("status", [RunStatus.ERROR, RunStatus.CRASHED, RunStatus.KILLED])
def test_a_failed_run_raises_agent_run_error_and_the_outcome_is_returned(
    status: RunStatus,
) -> None:
    ask = SessionAsk(ScriptedBackend([failed(status)]), AgentRequest(prompt="", cwd=Path()))
    with pytest.raises(AgentRunError) as caught:
        ask("p")
    assert caught.value.result.status is status
    again = SessionAsk(ScriptedBackend([failed(status)]), AgentRequest(prompt="", cwd=Path()))
    outcome = request_handoff(again, "p", "agent-result", recorder=HandoffRecorder.disabled())
    assert outcome.record.final_status == "fatal"
    assert outcome.record.retry_attempts[-1].error_type == "agent_failed"
    assert "boom" in (outcome.record.retry_attempts[-1].error or "")


def test_transport_failures_are_retried_with_backoff_before_they_count() -> None:
    waits: list[float] = []
    backend = ScriptedBackend(
        [failed(RunStatus.MISSING, "connection refused")] * 2 + [VALID]  # type: ignore[list-item]
    )
    ask = SessionAsk(
        backend,
        AgentRequest(prompt="", cwd=Path()),
        transport_retries=2,
        policy=RetryPolicy(base_delay=1.0, max_delay=30.0),
        sleep=waits.append,
        random=lambda: 1.0,
    )
    assert ask("p") == VALID
    assert waits == [1.0, 2.0]  # exponential, full jitter share
    assert len(backend.requests) == 3
    assert ask.next_call == 2  # one call, however many transport retries


def test_transport_failures_past_the_limit_are_an_agent_failure() -> None:
    backend = ScriptedBackend([failed(RunStatus.MISSING, "connection refused")] * 3)
    ask = SessionAsk(
        backend, AgentRequest(prompt="", cwd=Path()), transport_retries=1, sleep=lambda _: None
    )
    with pytest.raises(AgentRunError, match="connection refused"):
        ask("p")
    assert len(backend.requests) == 2
