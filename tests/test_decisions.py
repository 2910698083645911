from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate import (
    AgentError,
    ConfigError,
    Decision,
    EscalationError,
    ExitCode,
    HandoffError,
    MergegateError,
    UsageError,
    worst_exit_code,
)


@pytest.mark.parametrize(
    ("decision", "proceeds", "code"),
    [
        (Decision.APPROVE, True, ExitCode.OK),
        (Decision.FIXES, False, ExitCode.NO),
        (Decision.REJECT, False, ExitCode.NO),
        (Decision.MALFORMED, False, ExitCode.UNDECIDABLE),
        (Decision.EMPTY, False, ExitCode.UNDECIDABLE),
    ],
)
def test_only_approve_proceeds(decision: Decision, proceeds: bool, code: ExitCode) -> None:
    assert decision.proceeds is proceeds
    assert decision.exit_code is code


def test_worst_exit_code_order() -> None:
    assert worst_exit_code([]) is ExitCode.OK
    assert worst_exit_code([ExitCode.OK, ExitCode.NO]) is ExitCode.NO
    assert worst_exit_code([ExitCode.NO, ExitCode.UNDECIDABLE]) is ExitCode.UNDECIDABLE
    assert worst_exit_code([ExitCode.UNDECIDABLE, ExitCode.USAGE]) is ExitCode.USAGE
    assert worst_exit_code([ExitCode.ESCALATED, ExitCode.AGENT_FAILURE]) is ExitCode.ESCALATED


@given(st.lists(st.sampled_from(list(ExitCode)), min_size=1))
def test_worst_exit_code_is_order_independent(codes: list[ExitCode]) -> None:
    assert worst_exit_code(codes) is worst_exit_code(list(reversed(codes)))
    assert worst_exit_code(codes) in codes


def test_error_tree_exit_codes() -> None:
    assert UsageError("x").exit_code is ExitCode.USAGE
    assert ConfigError("bad", key="retry.max", path="mergegate.toml").exit_code is ExitCode.USAGE
    assert HandoffError("x").exit_code is ExitCode.UNDECIDABLE
    assert AgentError("x").exit_code is ExitCode.AGENT_FAILURE
    assert EscalationError("x").exit_code is ExitCode.ESCALATED
    assert issubclass(ConfigError, MergegateError)


def test_config_error_names_key_and_file() -> None:
    err = ConfigError("must be an integer", key="review.max_rounds", path="mergegate.toml")
    assert "review.max_rounds" in str(err)
    assert "mergegate.toml" in str(err)
