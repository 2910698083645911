"""Each alert fires on a stream built to cross its threshold, and not on one just under it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.config import AlertsConfig, load_config
from mergegate.events import (
    AgentAttempt,
    Alert,
    CheckRun,
    EventBase,
    EventLog,
    FindingRef,
    HandoffAttempt,
    HandoffFinished,
    MemorySink,
    VerdictEvent,
    read_events,
)
from mergegate.metrics import (
    AlertingSink,
    AlertMonitor,
    AlertRules,
    evaluate_alerts,
    exit_code_for,
)


def handoffs(recovered: int, escalated: int, *, retries: int = 0) -> list[EventBase]:
    """`recovered` handoffs that succeed after `retries` failures, `escalated` that run out."""
    events: list[EventBase] = []
    for n in range(recovered + escalated):
        ok = n < recovered
        where = {"run_id": "r", "task": f"T{n}", "handoff_type": "agent-result"}
        attempts = retries + 1 if ok else 6
        for a in range(1, attempts + 1):
            success = ok and a == attempts
            events.append(
                HandoffAttempt(
                    **where,
                    attempt=a,
                    result="success" if success else "failure",
                    error_type="" if success else f"kind{a}",
                )
            )
        final = "recovered" if ok else "escalated"
        events.append(HandoffFinished(**where, final_status=final, attempts=attempts))
    return events


def rules_of(alerts: list[Alert]) -> list[tuple[str, str]]:
    return sorted((a.rule, a.component) for a in alerts)


# ---------------------------------------------------------------- retry exhaustion > 5 %


def test_retry_exhaustion_fires_just_over_five_percent() -> None:
    alerts = evaluate_alerts(handoffs(18, 1))  # 1 of 19: 5.26 %
    assert ("retry_exhaustion", "handoff:agent-result") in rules_of(alerts)
    alert = next(a for a in alerts if a.rule == "retry_exhaustion")
    assert alert.value == pytest.approx(1 / 19, abs=1e-6)
    assert alert.threshold == 0.05
    assert "1 of 19" in alert.message


@pytest.mark.parametrize(("ok", "bad"), [(19, 1), (20, 1)])  # exactly 5 %, and 4.76 %
def test_retry_exhaustion_is_quiet_at_or_under_five_percent(ok: int, bad: int) -> None:
    assert "retry_exhaustion" not in [a.rule for a in evaluate_alerts(handoffs(ok, bad))]


def test_exhaustion_of_a_reviewer_counts_malformed_verdicts_up_to_the_budget() -> None:
    events: list[EventBase] = []
    for n in range(2):
        for attempt in (1, 2):
            events.append(
                VerdictEvent(
                    run_id="r",
                    task=f"T{n}",
                    decision="malformed"
                    if n == 0
                    else ("malformed" if attempt == 1 else "approve"),
                    attempt=attempt,
                    max_attempts=2,
                    round=1,
                    stage="spec",
                )
            )
    alerts = evaluate_alerts(events)
    assert ("retry_exhaustion", "reviewer") in rules_of(alerts)  # 1 of 2 exhausted


def test_an_agent_stopped_from_outside_exhausts_no_retry_budget() -> None:
    """A cancel or a Ctrl-C kills the agent on its only allowed attempt: that is no
    `retry_exhaustion` (issue 24: `cancel` raised a false alert); a real failure there is."""

    def implementer(status: str) -> list[EventBase]:
        return [
            AgentAttempt(
                run_id="r",
                task=f"T{n}",
                role="implementer",
                backend="command",
                status=s,
                max_attempts=1,
            )
            for n, s in enumerate(("ok", status))
        ]

    assert evaluate_alerts(implementer("killed")) == []
    assert ("retry_exhaustion", "implementer") in rules_of(evaluate_alerts(implementer("error")))


# ---------------------------------------------------------------- average retries > 2


@pytest.mark.parametrize(
    ("retries", "fires"),
    [((2, 2, 3), True), ((2, 2, 2), False), ((1, 2, 3), False), ((3, 3, 1), True)],
)
def test_average_retries_above_two(retries: tuple[int, ...], fires: bool) -> None:
    events: list[EventBase] = []
    for n, count in enumerate(retries):
        events += [
            e.model_copy(update={"task": f"{e.task}-{n}"}) for e in handoffs(1, 0, retries=count)
        ]
    alerts = [a for a in evaluate_alerts(events) if a.rule == "average_retries"]
    assert bool(alerts) is fires
    if fires:
        assert alerts[0].value == pytest.approx(sum(retries) / len(retries), abs=1e-6)


# ---------------------------------------------------------------- component timeout > 300 s


def attempt(role: str, seconds: float, **fields: object) -> AgentAttempt:
    return AgentAttempt(
        run_id="r", task="T1", role=role, backend="x", status="ok", duration_s=seconds, **fields
    )


@pytest.mark.parametrize(("seconds", "fires"), [(300.5, True), (300.0, False), (120.0, False)])
def test_component_timeout_over_300_seconds(seconds: float, fires: bool) -> None:
    alerts = evaluate_alerts([attempt("implementer", 10.0), attempt("verifier", seconds)])
    found = [a for a in alerts if a.rule == "component_timeout"]
    assert [a.component for a in found] == (["verifier"] if fires else [])


def test_a_slow_check_is_a_component_timeout() -> None:
    check = CheckRun(run_id="r", task="T1", command="make test", passed=True, duration_s=301)
    alerts = evaluate_alerts([check])
    assert rules_of(alerts) == [("component_timeout", "check")]


# ---------------------------------------------------------------- circular retry


def failing_attempts(errors: list[str]) -> list[EventBase]:
    return [
        AgentAttempt(
            run_id="r",
            task="T1",
            role="advisor",
            backend="x",
            status="error",
            error=error,
            attempt=n,
        )
        for n, error in enumerate(errors, start=1)
    ]


def test_the_same_failure_three_times_in_a_row_is_circular() -> None:
    errors = [
        "bad JSON at line 1 column 57",
        "bad JSON at line 1 column 60",
        "bad JSON at line 1 column 9",
    ]
    alerts = evaluate_alerts(failing_attempts(errors))
    circular = [a for a in alerts if a.rule == "circular_retry"]
    assert [a.component for a in circular] == ["advisor"]
    assert "bad JSON at line # column #" in circular[0].subject


@pytest.mark.parametrize(
    "errors",
    [
        ["bad JSON", "bad JSON"],  # just under: two in a row
        ["bad JSON", "timeout", "bad JSON"],  # three, but not in a row
        ["a", "b", "c"],
    ],
)
def test_no_circular_alert_under_three_in_a_row(errors: list[str]) -> None:
    assert "circular_retry" not in [a.rule for a in evaluate_alerts(failing_attempts(errors))]


def review_round(rnd: int, findings: list[str], stage: str = "quality") -> VerdictEvent:
    return VerdictEvent(
        run_id="r",
        task="T1",
        round=rnd,
        stage=stage,
        decision="fixes" if findings else "approve",
        findings=[FindingRef(id=f, severity="important", status="open") for f in findings],
    )


def test_a_finding_in_three_rounds_is_circular() -> None:
    events = [review_round(1, ["F-1"]), review_round(2, ["F-1", "F-2"]), review_round(3, ["F-1"])]
    circular = [a for a in evaluate_alerts(events) if a.rule == "circular_retry"]
    assert [(a.component, a.subject) for a in circular] == [("reviewer", "F-1")]
    assert "3 rounds" in circular[0].message


def test_a_finding_that_comes_back_is_circular() -> None:
    events = [review_round(1, ["F-1"]), review_round(2, ["F-2"]), review_round(3, ["F-1"])]
    circular = [a for a in evaluate_alerts(events) if a.rule == "circular_retry"]
    assert [a.subject for a in circular] == ["F-1"]
    assert "came back in round 3" in circular[0].message


def test_a_finding_in_two_rounds_is_not_circular() -> None:
    events = [review_round(1, ["F-1"]), review_round(2, ["F-1"]), review_round(3, [])]
    assert "circular_retry" not in [a.rule for a in evaluate_alerts(events)]


def test_advisory_findings_never_make_a_circular_alert() -> None:
    events = [
        VerdictEvent(
            run_id="r",
            round=n,
            decision="approve",
            findings=[FindingRef(id="F-9", severity="minor", status="advisory")],
        )
        for n in (1, 2, 3)
    ]
    assert evaluate_alerts(events) == []


@pytest.mark.parametrize(("rounds", "fires"), [(3, True), (2, False)])
def test_a_check_failing_round_after_round(rounds: int, fires: bool) -> None:
    events = [
        CheckRun(run_id="r", task="T1", command="pytest -q", round=n, passed=False, exit_code=1)
        for n in range(1, rounds + 1)
    ]
    events.append(CheckRun(run_id="r", task="T1", command="pytest -q", round=9, passed=True))
    found = [a for a in evaluate_alerts(events) if a.rule == "circular_retry"]
    assert bool(found) is fires


# ---------------------------------------------------------------- live, config, exit code


def test_alerts_are_raised_live_once_when_the_threshold_is_crossed(tmp_path: Path) -> None:
    log = EventLog.in_run_dir(tmp_path, fsync=False)
    seen: list[Alert] = []
    sink = AlertingSink(log, AlertMonitor(AlertRules()), on_alert=seen.append)
    stream = handoffs(1, 0) + failing_attempts(["x", "x", "x", "x"])
    for event in stream:
        sink.emit(event)
    written = read_events(tmp_path).known()
    alerts = [e for e in written if isinstance(e, Alert)]
    assert [a.rule for a in alerts] == ["circular_retry"]  # raised once, not on the 4th attempt
    assert seen == alerts
    index = written.index(alerts[0])
    assert written[index - 1].kind == "agent.attempt"
    assert written[index - 1].attempt == 3  # right after the third identical failure


def test_a_resumed_run_does_not_raise_an_alert_twice(tmp_path: Path) -> None:
    first = AlertingSink(MemorySink())
    for event in failing_attempts(["x", "x", "x"]):
        first.emit(event)
    assert len(first.alerts) == 1
    again = AlertMonitor()
    replay: list[EventBase] = [*failing_attempts(["x", "x", "x"]), first.alerts[0]]
    raised = [a for e in replay for a in again.observe(e)]
    # the monitor sees the alert only after the events that raised it: it raises it once
    assert len(raised) == 1
    assert again.observe(first.alerts[0]) == []
    assert again.observe(failing_attempts(["x", "x", "x", "x"])[3]) == []


def test_thresholds_come_from_the_alerts_section(tmp_path: Path) -> None:
    (tmp_path / "mergegate.toml").write_text(
        "[alerts]\naverage_retries = 3\ncomponent_seconds = 60\n"
    )
    config = load_config(tmp_path, env={})
    rules = AlertRules.from_config(config.alerts)
    assert (rules.average_retries, rules.component_seconds) == (3.0, 60.0)
    events = [*handoffs(1, 0, retries=3), attempt("implementer", 61.0)]
    assert rules_of(evaluate_alerts(events, rules)) == [("component_timeout", "implementer")]
    assert "average_retries" in [a.rule for a in evaluate_alerts(events)]


def test_disabled_alerts_raise_nothing() -> None:
    rules = AlertRules.from_config(AlertsConfig(enabled=False))
    assert evaluate_alerts(handoffs(0, 5), rules) == []


def test_the_fail_on_alert_decision() -> None:
    alert = evaluate_alerts(handoffs(0, 1))
    assert alert
    assert exit_code_for(0, alert, fail_on_alert=True) == 5
    assert exit_code_for(0, alert, fail_on_alert=False) == 0
    assert exit_code_for(0, [], fail_on_alert=True) == 0
    assert exit_code_for(1, alert, fail_on_alert=True) == 5
    assert exit_code_for(2, alert, fail_on_alert=True) == 2  # a usage error stays the worst


# ---------------------------------------------------------------- live = batch, at any size


def _stream(spec: list[tuple[int, int, bool, int, int]]) -> list[EventBase]:
    """Checks and review rounds over a few tasks, in rounds that go up as a run's do: (task,
    exit code when failing, passed, finding, seconds)."""
    events: list[EventBase] = []
    for rnd, (task, exit_code, passed, finding, seconds) in enumerate(spec, start=1):
        where = {"run_id": "r", "task": f"T{task}", "round": rnd}
        events.append(
            CheckRun(
                **where,
                command="pytest",
                passed=passed,
                exit_code=0 if passed else exit_code,
                duration_s=float(seconds),
            )
        )
        found = [FindingRef(id=f"F-{finding}", severity="important", status="open")]
        events.append(
            VerdictEvent(
                **where, stage="quality", decision="fixes", findings=found if finding else []
            )
        )
    return events


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.integers(1, 5),
            st.booleans(),
            st.integers(0, 2),
            st.sampled_from([1, 299, 301, 400]),
        ),
        max_size=30,
    )
)
def test_the_live_monitor_raises_what_the_whole_stream_raises(
    spec: list[tuple[int, int, bool, int, int]],
) -> None:
    """Checking only what each event touched raises the same alerts, once each, as checking
    the whole stream after the fact."""
    events = _stream(spec)
    monitor = AlertMonitor()
    live = [a for event in events for a in monitor.observe(event)]
    assert len({a.key for a in live}) == len(live)
    assert {a.key for a in live} == {a.key for a in evaluate_alerts(events)}


def test_a_live_check_costs_the_same_on_the_last_task_as_on_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each event is checked against the check or review stage it adds to, not against every
    task before it: a 1,000-task run's replay was quadratic (seconds of a resume)."""
    import mergegate.metrics._alerts as alerts_module

    calls = 0

    def counting_sorted(*args: Any, **kwargs: Any) -> list[Any]:
        nonlocal calls
        calls += 1
        return sorted(*args, **kwargs)

    monkeypatch.setattr(alerts_module, "sorted", counting_sorted, raising=False)
    monitor = AlertMonitor()
    tasks = 300
    for event in _stream([(n, 1, True, 1, 1) for n in range(tasks)]):
        monitor.observe(event)
    assert calls <= 4 * tasks
