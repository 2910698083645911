"""The recovery decision table (seed 002: stuck vs parse error vs timeout), as a table test and
the rules that must hold for every situation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.agents import RunStatus
from mergegate.config import load_config
from mergegate.decisions import ExitCode
from mergegate.implementer import (
    RecoveryAction,
    RecoveryCounters,
    RecoveryLimits,
    Situation,
    decide_recovery,
)

A = RecoveryAction
OK, TIMEOUT, STALLED, MISSING = (
    RunStatus.OK,
    RunStatus.TIMEOUT,
    RunStatus.STALLED,
    RunStatus.MISSING,
)

TABLE: list[tuple[dict[str, Any], dict[str, int], RecoveryAction, ExitCode | None]] = [
    # a valid result, an invalid one (parse error: same session), one still invalid at the cap
    ({"run_status": OK, "handoff": "valid"}, {}, A.ACCEPT, None),
    ({"run_status": OK, "handoff": "invalid"}, {}, A.ASK_AGAIN, None),
    ({"run_status": OK, "handoff": "escalated"}, {}, A.ESCALATE, ExitCode.UNDECIDABLE),
    # help: consulted up to max_help_requests (2), then escalated
    ({"run_status": OK, "handoff": "valid", "help_requested": True}, {}, A.CONSULT, None),
    ({"run_status": OK, "handoff": "invalid", "help_requested": True}, {}, A.CONSULT, None),
    (
        {"run_status": OK, "handoff": "valid", "help_requested": True},
        {"help_requests": 1},
        A.CONSULT,
        None,
    ),
    (
        {"run_status": OK, "handoff": "valid", "help_requested": True},
        {"help_requests": 2},
        A.ESCALATE,
        ExitCode.ESCALATED,
    ),
    # a help line before a hang is still a help request
    ({"run_status": TIMEOUT, "handoff": "fatal", "help_requested": True}, {}, A.CONSULT, None),
    # stuck: a fresh start once, then escalate
    ({"run_status": TIMEOUT, "handoff": "fatal", "stuck": True}, {}, A.FRESH_START, None),
    ({"run_status": STALLED, "handoff": "fatal"}, {}, A.FRESH_START, None),
    (
        {"run_status": STALLED, "handoff": "fatal", "stuck": True},
        {"fresh_starts": 1},
        A.ESCALATE,
        ExitCode.ESCALATED,
    ),
    # a retry that hung while the implementer's own run was fine
    (
        {"run_status": TIMEOUT, "handoff": "fatal", "stuck": True},
        {"fresh_starts": 0},
        A.FRESH_START,
        None,
    ),
    # transport: retried with backoff, then an agent failure
    (
        {"run_status": MISSING, "handoff": "fatal", "transport_failure": True},
        {},
        A.RETRY_TRANSPORT,
        None,
    ),
    (
        {"run_status": MISSING, "handoff": "fatal"},
        {"transport_retries": 2},
        A.FAIL,
        ExitCode.AGENT_FAILURE,
    ),
    # a CLI that is not installed fails at once: no backoff brings it onto PATH (issue 24)
    (
        {"run_status": RunStatus.NOT_INSTALLED, "handoff": "fatal", "transport_failure": True},
        {},
        A.FAIL,
        ExitCode.AGENT_FAILURE,
    ),
    # other failures are agent failures
    ({"run_status": RunStatus.ERROR, "handoff": "fatal"}, {}, A.FAIL, ExitCode.AGENT_FAILURE),
    ({"run_status": RunStatus.CRASHED, "handoff": "fatal"}, {}, A.FAIL, ExitCode.AGENT_FAILURE),
    ({"run_status": RunStatus.KILLED, "handoff": "fatal"}, {}, A.FAIL, ExitCode.AGENT_FAILURE),
    ({"run_status": OK, "handoff": "fatal"}, {}, A.FAIL, ExitCode.AGENT_FAILURE),
    ({"run_status": RunStatus.ERROR, "handoff": "valid"}, {}, A.FAIL, ExitCode.AGENT_FAILURE),
]


@pytest.mark.parametrize(("facts", "used", "action", "code"), TABLE)
def test_decision_table(
    facts: dict[str, Any], used: dict[str, int], action: RecoveryAction, code: ExitCode | None
) -> None:
    decision = decide_recovery(Situation(**facts), RecoveryCounters(**used), RecoveryLimits())
    assert (decision.action, decision.exit_code) == (action, code)
    assert decision.reason


def test_limits_come_from_the_configuration() -> None:
    config = load_config(
        env={
            "MERGEGATE_AGENTS__MAX_HELP_REQUESTS": "0",
            "MERGEGATE_AGENTS__STUCK_RESTARTS": "0",
            "MERGEGATE_AGENTS__TRANSPORT_RETRIES": "0",
        }
    )
    limits = RecoveryLimits.from_config(config.agents)
    none = RecoveryCounters()
    help_ = Situation(run_status=OK, handoff="valid", help_requested=True)
    assert decide_recovery(help_, none, limits).action is A.ESCALATE
    assert decide_recovery(Situation(run_status=TIMEOUT, handoff="fatal"), none, limits).action is (
        A.ESCALATE
    )
    assert decide_recovery(Situation(run_status=MISSING, handoff="fatal"), none, limits).action is (
        A.FAIL
    )


def test_counters_advance_only_for_the_action_they_count() -> None:
    counters = RecoveryCounters()
    counters = counters.after(A.CONSULT).after(A.CONSULT).after(A.FRESH_START)
    counters = counters.after(A.RETRY_TRANSPORT).after(A.ACCEPT).after(A.ASK_AGAIN)
    assert counters == RecoveryCounters(help_requests=2, fresh_starts=1, transport_retries=1)


situations = st.builds(
    Situation,
    run_status=st.sampled_from(list(RunStatus)),
    handoff=st.sampled_from(["valid", "invalid", "escalated", "fatal"]),
    help_requested=st.booleans(),
    stuck=st.booleans(),
    transport_failure=st.booleans(),
)
counters_ = st.builds(
    RecoveryCounters,
    help_requests=st.integers(0, 5),
    fresh_starts=st.integers(0, 5),
    transport_retries=st.integers(0, 5),
)


@given(situations, counters_)
def test_only_a_completed_run_with_a_valid_result_and_no_help_is_accepted(
    situation: Situation, counters: RecoveryCounters
) -> None:
    decision = decide_recovery(situation, counters)
    if decision.action is A.ACCEPT:
        assert situation.run_status is OK
        assert situation.handoff == "valid"
        assert not situation.help_requested
        assert not situation.stuck
        assert not situation.transport_failure
    # an ending decision always says how the task ends; a continuing one never does
    ends = decision.action in (A.ESCALATE, A.FAIL)
    assert (decision.exit_code is not None) == ends


@given(situations, counters_)
def test_every_loop_is_bounded_by_its_counter(
    situation: Situation, counters: RecoveryCounters
) -> None:
    limits = RecoveryLimits()
    action = decide_recovery(situation, counters, limits).action
    if action is A.CONSULT:
        assert counters.help_requests < limits.max_help_requests
    if action is A.FRESH_START:
        assert counters.fresh_starts < limits.stuck_restarts
    if action is A.RETRY_TRANSPORT:
        assert counters.transport_retries < limits.transport_retries
