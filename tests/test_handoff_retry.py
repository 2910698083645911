"""The retry loop, driven by a scripted `ask`: no agent, no waiting, no wall clock."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.config import Config, load_config
from mergegate.errors import AgentError, HandoffError, UsageError
from mergegate.handoff import (
    AskFailedError,
    ErrorKind,
    HandoffRecorder,
    InvalidHandoffError,
    MemoryEventSink,
    RetryPolicy,
    StuckRunError,
    request_handoff,
)

VALID = json.dumps({"task_id": "T-1", "success": True, "completed_normally": True})
TRUNCATED = '{"task_id": "T-1", "success": tr'
SYNTAX = '{"task_id": "T-1", "success": true, "completed_normally": true,}'
SCHEMA = '{"task_id": "T-1", "success": "yes", "completed_normally": true}'
SEMANTIC = '{"task_id": "T-1", "success": true, "completed_normally": false}'


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from an empty directory so the checkout's own config files never leak in."""
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


class ScriptedAsk:
    """Replies from a script; an exception instance in the script is raised instead."""

    def __init__(self, replies: Iterable[str | Exception]) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def run(
    replies: Iterable[str | Exception],
    *,
    config: Config | None = None,
    schema: str = "agent-result",
    fresh: Callable[[], Callable[[str], str]] | None = None,
    context: dict[str, Any] | None = None,
    recorder: HandoffRecorder | None = None,
    max_attempts: int | None = None,
) -> tuple[Any, ScriptedAsk, list[float], MemoryEventSink]:
    ask = ScriptedAsk(replies)
    sleeps: list[float] = []
    sink = MemoryEventSink()
    outcome = request_handoff(
        ask,
        "Do the task, then report as JSON.",
        schema,
        config=config,
        session_id="sess-1",
        component="agent",
        fresh_ask=fresh,
        context=context,
        recorder=recorder or HandoffRecorder(events=sink),
        max_attempts=max_attempts,
        sleep=sleeps.append,
        random=lambda: 0.5,
        clock=FakeClock(),
        timer=iter(range(1000)).__next__,
    )
    return outcome, ask, sleeps, sink


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 5])
def test_recovered_after_k_errors(k: int) -> None:
    errors = [TRUNCATED, SYNTAX, SCHEMA, SEMANTIC, "", "no json"][:k]
    outcome, ask, sleeps, _ = run([*errors, VALID])
    assert outcome.ok
    assert outcome.value.task_id == "T-1"
    record = outcome.record
    assert record.final_status == "recovered"
    assert len(record.retry_attempts) == k + 1
    assert [a.result for a in record.retry_attempts] == ["failure"] * k + ["success"]
    assert len(ask.prompts) == k + 1
    assert len(sleeps) == k
    if k:
        assert record.original_error is not None
        assert record.original_error.type == "truncated"
    else:
        assert record.original_error is None


def test_escalated_at_the_cap() -> None:
    outcome, ask, sleeps, sink = run([SYNTAX] * 10)
    assert not outcome.ok
    assert outcome.record.final_status == "escalated"
    assert len(ask.prompts) == 6  # first ask + the hard ceiling of 5 retries
    assert len(sleeps) == 5
    assert [e["attempt"] for e in sink.events if e["type"] == "handoff.attempt"] == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    finished = [e for e in sink.events if e["type"] == "handoff.finished"]
    assert finished[0]["final_status"] == "escalated"
    with pytest.raises(InvalidHandoffError) as raised:
        outcome.unwrap()
    assert isinstance(raised.value, HandoffError)
    assert int(raised.value.exit_code) == 3
    assert "json_syntax" in str(raised.value)


def test_cap_comes_from_config_per_handoff_type() -> None:
    config = load_config(env={"MERGEGATE_RETRY__MAX_ATTEMPTS": "{agent-result = 3}"})
    outcome, ask, _, _ = run([SYNTAX] * 10, config=config)
    assert outcome.record.final_status == "escalated"
    assert len(ask.prompts) == 3


def test_review_verdict_defaults_to_one_retry() -> None:
    outcome, ask, _, _ = run(["no verdict"] * 5, schema="review-verdict")
    assert outcome.record.final_status == "escalated"
    assert len(ask.prompts) == 2


def test_max_json_retries_applies_to_other_types() -> None:
    config = load_config(env={"MERGEGATE_RETRY__MAX_JSON_RETRIES": "1"})
    outcome, ask, _, _ = run([SYNTAX] * 5, config=config)
    assert len(ask.prompts) == 2
    assert outcome.record.max_attempts == 2


@pytest.mark.parametrize("attempts", [0, 7, 100])
def test_policy_refuses_attempts_beyond_the_ceiling(attempts: int) -> None:
    with pytest.raises(UsageError, match="between 1 and 6"):
        RetryPolicy(max_attempts=attempts)


def test_call_site_cap_is_clamped_to_the_hard_ceiling() -> None:
    outcome, ask, _, _ = run([SYNTAX] * 20, max_attempts=50)
    assert len(ask.prompts) == 6
    assert outcome.record.max_attempts == 6


def test_exact_error_is_fed_back() -> None:
    outcome, ask, _, _ = run([SCHEMA, VALID])
    assert outcome.ok
    retry = ask.prompts[1]
    assert "success: Input should be a valid boolean" in retry
    assert 'got "yes"' in retry
    assert "schema" in retry


def test_prompts_shrink_on_later_attempts() -> None:
    long_error = json.dumps(
        {"task_id": "T-1", "success": True, "completed_normally": True, "extra": "x" * 3000}
    )
    _, ask, _, _ = run([long_error] * 6)
    retries = ask.prompts[1:]
    lengths = [len(p) for p in retries]
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[0] > lengths[1] > lengths[2]
    assert "OUTPUT ONLY THIS JSON OBJECT" in retries[-1]
    assert '"task_id": "<string>"' in retries[-1]
    assert "todos" in retries[0]  # the full template lists optional fields
    assert "todos" not in retries[-1]  # the minimal one only required fields


def test_prompt_levels_are_recorded() -> None:
    outcome, _, _, _ = run([SYNTAX] * 6)
    levels = [a.prompt_level for a in outcome.record.retry_attempts]
    assert levels == ["initial", "full", "minimal", "bare", "bare", "bare"]


def test_prompt_reduction_can_be_turned_off() -> None:
    config = load_config(env={"MERGEGATE_RETRY__RETRY_PROMPT_REDUCTION": "false"})
    outcome, _, _, _ = run([SYNTAX] * 4, config=config, max_attempts=4)
    assert [a.prompt_level for a in outcome.record.retry_attempts][1:] == ["full"] * 3


def test_semantic_error_gets_a_targeted_correction() -> None:
    outcome, ask, _, _ = run([SEMANTIC, VALID])
    assert outcome.ok
    assert "inconsistent" in ask.prompts[1]
    assert "Correct exactly the points below" in ask.prompts[1]
    assert "completed_normally is false" in ask.prompts[1]


def test_truncation_asks_for_the_whole_object_again() -> None:
    _, ask, _, _ = run([TRUNCATED, VALID])
    assert "Do not continue the fragment" in ask.prompts[1]


def test_backoff_is_exponential_and_bounded() -> None:
    config = load_config(
        env={"MERGEGATE_RETRY__JSON_RETRY_DELAY": "2.0", "MERGEGATE_RETRY__MAX_BACKOFF_DELAY": "5"}
    )
    _, _, sleeps, _ = run([SYNTAX] * 6, config=config)
    # random() = 0.5 → 75 % of the capped step: 2, 4, 5, 5, 5 → 1.5, 3, 3.75, ...
    assert sleeps == [1.5, 3.0, 3.75, 3.75, 3.75]


def test_constant_delay_without_exponential_backoff() -> None:
    config = load_config(env={"MERGEGATE_RETRY__USE_EXPONENTIAL_BACKOFF": "false"})
    _, _, sleeps, _ = run([SYNTAX] * 3, config=config, max_attempts=3)
    assert sleeps == [0.75, 0.75]


@given(
    base=st.floats(0, 100),
    cap=st.floats(0, 100),
    retry=st.integers(1, 10_000),
    jitter=st.floats(0, 1),
)
def test_delay_never_exceeds_the_max(base: float, cap: float, retry: int, jitter: float) -> None:
    policy = RetryPolicy(base_delay=base, max_delay=cap)
    delay = policy.delay(retry, jitter)
    assert 0 <= delay <= cap
    assert delay >= min(base, cap) / 2 - 1e-9


def test_stuck_run_starts_fresh_with_the_original_prompt() -> None:
    fresh_sessions: list[ScriptedAsk] = []

    def fresh() -> ScriptedAsk:
        session = ScriptedAsk([VALID])
        fresh_sessions.append(session)
        return session

    outcome, _ask, _, sink = run([StuckRunError("stalled for 300 s")], fresh=fresh)
    assert outcome.ok
    assert len(fresh_sessions) == 1
    assert fresh_sessions[0].prompts == ["Do the task, then report as JSON."]
    attempts = outcome.record.retry_attempts
    assert attempts[0].error_type == "stuck"
    assert attempts[1].fresh_session
    assert attempts[1].prompt_level == "fresh"
    assert [e["error_type"] for e in sink.events if e["type"] == "handoff.attempt"] == [
        "stuck",
        None,
    ]


def test_stuck_run_without_fresh_start_is_fatal() -> None:
    outcome, ask, _, _ = run([StuckRunError("hung"), VALID])
    assert outcome.record.final_status == "fatal"
    assert len(ask.prompts) == 1
    assert outcome.record.original_error is not None
    assert outcome.record.original_error.type == "stuck"
    assert isinstance(StuckRunError("x"), AgentError)


def test_parse_error_continues_the_same_session() -> None:
    fresh_called: list[bool] = []

    def fresh() -> ScriptedAsk:
        fresh_called.append(True)
        return ScriptedAsk([VALID])

    outcome, ask, _, _ = run([SYNTAX, VALID], fresh=fresh)
    assert outcome.ok
    assert fresh_called == []
    assert len(ask.prompts) == 2


def test_unexpected_exception_is_recorded_then_raised(tmp_path: Path) -> None:
    recorder = HandoffRecorder(failed_dir=tmp_path / "failed")
    with pytest.raises(RuntimeError, match="backend exploded"):
        run([SYNTAX, RuntimeError("backend exploded")], recorder=recorder)
    saved = list((tmp_path / "failed").iterdir())
    assert len(saved) == 1
    record = json.loads(saved[0].read_text())["data"]["record"]
    assert record["final_status"] == "fatal"
    assert record["retry_attempts"][-1]["error_type"] == "exception"


def test_context_reaches_the_consistency_check() -> None:
    wrong = json.dumps({"review_id": "other", "verdict": "approve", "findings": []})
    right = json.dumps({"review_id": "nonce-1", "verdict": "approve", "findings": []})
    outcome, ask, _, _ = run(
        [wrong, right], schema="review-verdict", context={"review_id": "nonce-1"}
    )
    assert outcome.ok
    assert outcome.record.original_error is not None
    assert outcome.record.original_error.type == ErrorKind.SEMANTIC.value
    assert "nonce-1" in ask.prompts[1]


def test_debug_record_has_the_seed_fields() -> None:
    outcome, _, _, _ = run([SYNTAX, VALID])
    dumped = outcome.record.model_dump(mode="json")
    assert {
        "handoff_type",
        "session_id",
        "original_error",
        "retry_attempts",
        "final_status",
    } <= set(dumped)
    assert set(dumped["original_error"]) == {"type", "details", "output_sample"}
    attempt = dumped["retry_attempts"][1]
    assert {"attempt", "timestamp", "prompt_used", "result", "error"} <= set(attempt)
    assert dumped["handoff_type"] == "agent-result"
    assert dumped["session_id"] == "sess-1"
    assert dumped["retry_attempts"][0]["prompt_used"] == "Do the task, then report as JSON."


def test_envelope_carries_retry_metadata() -> None:
    outcome, _, _, _ = run([SYNTAX, SCHEMA, VALID])
    envelope = outcome.envelope(clock=lambda: datetime(2025, 1, 1, tzinfo=UTC))
    assert envelope.version == 1
    assert envelope.component == "agent"
    assert envelope.session_id == "sess-1"
    assert envelope.status == "success"
    assert envelope.data["task_id"] == "T-1"
    assert envelope.metadata.retry_count == 2
    assert [e.split(":")[0] for e in envelope.metadata.previous_errors] == ["json_syntax", "schema"]


def test_events_and_files_go_under_the_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("MERGEGATE_STATE_DIR", str(state))
    config = load_config(tmp_path)
    ask = ScriptedAsk([SYNTAX] * 6)
    outcome = request_handoff(ask, "p", "agent-result", config=config, sleep=lambda _: None)
    assert outcome.saved_to is not None
    assert outcome.saved_to.parent == state / "failed_handoffs"
    envelope = json.loads(outcome.saved_to.read_text())
    assert envelope["status"] == "failure"
    assert envelope["metadata"]["retry_count"] == 5
    saved = envelope["data"]
    assert saved["outputs"] == [SYNTAX] * 6
    assert saved["record"]["final_status"] == "escalated"
    events = [json.loads(line) for line in (state / "events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events] == ["handoff.attempt"] * 6 + ["handoff.finished"]
    for event in events[:-1]:
        assert {"type", "component", "attempt", "error_type", "duration_s", "timestamp"} <= set(
            event
        )
    log = (state / "handoffs.jsonl").read_text().splitlines()
    assert len(log) == 1


def test_saving_failed_handoffs_can_be_turned_off(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        env={
            "MERGEGATE_STATE_DIR": str(tmp_path / "s"),
            "MERGEGATE_HANDOFF_VALIDATION__SAVE_FAILED_HANDOFFS": "false",
            "MERGEGATE_HANDOFF_VALIDATION__LOG_ALL_HANDOFFS": "false",
        },
    )
    recorder = HandoffRecorder.from_config(config)
    assert recorder.failed_dir is None
    assert recorder.log_path is None
    assert recorder.events is not None


def test_recovered_handoff_writes_no_failure_file(tmp_path: Path) -> None:
    recorder = HandoffRecorder(failed_dir=tmp_path / "failed")
    outcome, _, _, _ = run([SYNTAX, VALID], recorder=recorder)
    assert outcome.ok
    assert outcome.saved_to is None
    assert not (tmp_path / "failed").exists()


# ---------------------------------------------------------------- replies obtained before the loop


def test_prior_replies_are_used_without_asking_or_waiting() -> None:
    ask = ScriptedAsk([VALID])
    sleeps: list[float] = []
    sink = MemoryEventSink()
    outcome = request_handoff(
        ask,
        "Do the task, then report as JSON.",
        "agent-result",
        recorder=HandoffRecorder(events=sink),
        sleep=sleeps.append,
        random=lambda: 0.5,
        replies=["prose only", SYNTAX],
    )
    assert outcome.ok
    assert len(ask.prompts) == 1  # only the third attempt was asked
    assert "trailing comma" in ask.prompts[0]  # the retry for the second reply's error
    assert len(sleeps) == 1  # no wait before a reply that was already there
    attempts = outcome.record.retry_attempts
    assert [(a.error_type, a.prior) for a in attempts] == [
        ("no_json", True),
        ("json_syntax", True),
        (None, False),
    ]
    assert [e["prior"] for e in sink.events if e["type"] == "handoff.attempt"] == [
        True,
        True,
        False,
    ]


def test_a_lost_reply_counts_and_its_prompt_is_sent_again() -> None:
    ask = ScriptedAsk([SCHEMA])
    outcome = request_handoff(
        ask,
        "the task",
        "agent-result",
        recorder=HandoffRecorder.disabled(),
        max_attempts=3,
        sleep=lambda _: None,
        replies=["prose", None],
    )
    assert outcome.record.final_status == "escalated"
    attempts = outcome.record.retry_attempts
    assert [a.error_type for a in attempts] == ["no_json", "lost", "schema"]
    assert attempts[1].prompt_used == attempts[2].prompt_used == ask.prompts[0]
    assert outcome.outputs == ("prose", SCHEMA)


def test_a_valid_prior_reply_needs_no_ask() -> None:
    ask = ScriptedAsk([])
    outcome = request_handoff(
        ask, "p", "agent-result", recorder=HandoffRecorder.disabled(), replies=[VALID]
    )
    assert outcome.ok
    assert ask.prompts == []


def test_a_failed_ask_ends_the_handoff_fatal_and_returns_its_record() -> None:
    outcome, ask, _, sink = run([SYNTAX, AskFailedError("the agent crashed")])
    assert outcome.record.final_status == "fatal"
    assert [a.error_type for a in outcome.record.retry_attempts] == [
        "json_syntax",
        "agent_failed",
    ]
    assert outcome.record.retry_attempts[-1].error == "the agent crashed"
    assert len(ask.prompts) == 2
    assert [e["final_status"] for e in sink.events if e["type"] == "handoff.finished"] == ["fatal"]
