"""A run's summary that counts failures, after an approval (issue 23): '212 passed, 3 failed'
is a failing check whatever passed beside it, by default and strictly; a zero count, or a
failure the same sentence says is put right, is not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the importer change.\n\n**Verdict:** APPROVE\n\n"

FAILING = [
    "Test run: 48 passed, 2 failed.",
    "- e2e: 9 passed, 1 failed",
    "| Check | Result |\n|---|---|\n| integration | 30 passed, 4 failed |",
    "Results: 1 failed, 120 passed.",
    "Suite summary — 17 passed, 5 failing",
]
GENUINE = [
    "Test run: 48 passed, 0 failed.",
    "The failing tests from the last round now pass.",
    "| Check | Result |\n|---|---|\n| integration | 30 passed, 0 failed |",
]


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("line", FAILING)
def test_a_count_of_failures_after_an_approval_is_not_one(line: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + line + "\n", strict=strict)
    assert not verdict.approved, verdict.reasons


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("line", GENUINE)
def test_no_failures_or_failures_put_right_still_approve(line: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + line + "\n", strict=strict)
    assert verdict.approved, verdict.reasons


@given(
    passed=st.integers(min_value=0, max_value=10_000),
    failed=st.integers(min_value=1, max_value=10_000),
    label=st.sampled_from(["Tests", "Unit tests", "CI", "pytest", "Run"]),
    strict=st.booleans(),
)
def test_any_nonzero_failure_count_refuses(
    passed: int, failed: int, label: str, strict: bool
) -> None:
    line = f"{label}: {passed} passed, {failed} failed."
    assert not parse_verdict(_HEAD + line + "\n", strict=strict).approved
