"""One backoff formula (issue 26, item 4): `mergegate.handoff.backoff_delay`.

Every retry of mergegate waits by it — handoff asks and agent transport retries
(`RetryPolicy.delay`), the reviewer's transport retries, the engine's implementer transport
retries and the agent-result file's I/O retries — so each is capped and jittered alike (the
engine's wait had no jitter: implementers that failed together came back together). A tree
walk keeps a doubling `2 ** …` from being spelled anywhere else.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.config import load_config
from mergegate.engine._steps import implementer_turn
from mergegate.handoff import RetryPolicy, backoff_delay
from mergegate.implementer import RecoveryCounters
from mergegate.implementer._io import io_retried
from mergegate.review import _attempt
from mergegate.review.options import ReviewOptions

SRC = Path(__file__).resolve().parents[1] / "src" / "mergegate"
HOME = SRC / "handoff" / "_retry.py"
NOT_A_BACKOFF = {SRC / "integrations" / "_settings.py": "the subsets of a set of hook events"}
"""Files that raise 2 to a power for something other than a wait, and what they count."""

delays = st.floats(0, 3600, allow_nan=False)
jitters = st.floats(0, 1, allow_nan=False)


@given(retry=st.integers(1, 10_000), base=delays, cap=delays, jitter=jitters, exp=st.booleans())
def test_a_wait_is_between_half_and_all_of_the_capped_step(
    retry: int, base: float, cap: float, jitter: float, exp: bool
) -> None:
    step = min(base * (2 ** min(retry - 1, 30) if exp else 1), cap)
    delay = backoff_delay(retry, jitter, base=base, cap=cap, exponential=exp)
    assert step / 2 - 1e-9 <= delay <= step + 1e-9
    assert 0 <= delay <= cap


@given(retry=st.integers(1, 100), base=delays, cap=delays, jitter=jitters)
def test_with_the_same_jitter_a_later_retry_never_waits_less(
    retry: int, base: float, cap: float, jitter: float
) -> None:
    first = backoff_delay(retry, jitter, base=base, cap=cap)
    assert backoff_delay(retry + 1, jitter, base=base, cap=cap) >= first


@given(retry=st.integers(1, 100), base=delays, cap=delays, jitter=st.floats(-5, 5))
def test_jitter_outside_its_range_is_clamped(
    retry: int, base: float, cap: float, jitter: float
) -> None:
    clamped = min(max(jitter, 0.0), 1.0)
    assert backoff_delay(retry, jitter, base=base, cap=cap) == backoff_delay(
        retry, clamped, base=base, cap=cap
    )


@given(retry=st.integers(1, 100), base=delays, cap=delays, jitter=jitters, exp=st.booleans())
def test_the_handoff_policy_waits_by_the_one_formula(
    retry: int, base: float, cap: float, jitter: float, exp: bool
) -> None:
    policy = RetryPolicy(base_delay=base, max_delay=cap, exponential=exp)
    expected = backoff_delay(retry, jitter, base=base, cap=cap, exponential=exp)
    assert policy.delay(retry, jitter) == expected


def _fixed_jitter(monkeypatch: pytest.MonkeyPatch, value: float) -> None:
    monkeypatch.setattr(random, "random", lambda: value)


def _engine_turns(transport_retries: int, **retry: str) -> Any:
    env = {f"MERGEGATE_RETRY__{k.upper()}": v for k, v in retry.items()}
    rt = SimpleNamespace(config=load_config(env=env, project_file=False), journal=None)
    turns = implementer_turn._Turns(cast(Any, SimpleNamespace(rt=rt)))
    turns.counters = RecoveryCounters(transport_retries=transport_retries)
    return turns


@pytest.mark.parametrize("retries", [1, 2, 3, 9])
def test_the_engines_implementer_transport_backoff_is_jittered(
    monkeypatch: pytest.MonkeyPatch, retries: int
) -> None:
    settings = {"json_retry_delay": "2", "max_backoff_delay": "10"}
    waits = []
    for jitter in (0.0, 1.0):
        _fixed_jitter(monkeypatch, jitter)
        waits.append(_engine_turns(retries, **settings).backoff())
    full = backoff_delay(retries, 1.0, base=2.0, cap=10.0)
    assert waits == [full / 2, full]


def test_the_engines_backoff_follows_the_exponential_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fixed_jitter(monkeypatch, 1.0)
    flat = {"json_retry_delay": "3", "use_exponential_backoff": "false"}
    assert [_engine_turns(n, **flat).backoff() for n in (1, 2, 5)] == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("retry", [1, 2, 4])
def test_the_reviewers_transport_backoff_is_the_one_formula(
    monkeypatch: pytest.MonkeyPatch, retry: int
) -> None:
    options = ReviewOptions(base="main", backoff_base_s=1.5, backoff_max_s=4.0)
    for jitter in (0.0, 0.25, 1.0):
        _fixed_jitter(monkeypatch, jitter)
        expected = backoff_delay(retry, jitter, base=1.5, cap=4.0)
        assert _attempt._backoff(options, retry) == expected


def test_the_agent_result_io_retries_are_jittered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def flaky() -> str:
        raise OSError(5, "EIO")

    for jitter in (0.0, 1.0):
        _fixed_jitter(monkeypatch, jitter)
        sleeps: list[float] = []
        with pytest.raises(OSError, match="EIO"):
            io_retried("read", tmp_path / "result.json", flaky, sleep=sleeps.append)
        assert sleeps == [backoff_delay(n, jitter, base=0.05, cap=1.0) for n in (1, 2)]
    assert sleeps == [0.05, 0.1]  # the full waits are the doubling ones they always were


def _doublings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(SRC)}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 2
    ]


def test_no_backoff_is_spelled_outside_its_home() -> None:
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        if path != HOME and path not in NOT_A_BACKOFF
        for line in _doublings(path)
    ]
    assert found == [], "wait by mergegate.handoff.backoff_delay, not a formula of your own"
    assert _doublings(HOME), "the walk reads the formula's home (else it reads nothing)"
    for path in NOT_A_BACKOFF:
        assert _doublings(path), f"{path} no longer raises 2 to a power: drop its exception"
