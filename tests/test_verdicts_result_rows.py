"""A table below the verdict whose row reports a check that did not pass (issue 23): its rows
hold no verdict, so no reader read them, and `| e2e | ❌ |` under `Verdict: APPROVE`
approved by default and strictly. Tables that record passing checks, descriptions and an
earlier state still approve."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the change and ran the suites.\n\n**Verdict:** APPROVE\n\n"


def _table(header: str, *rows: str) -> str:
    cells = header.count("|") - 1
    return "\n".join([header, "|" + "---|" * cells, *rows]) + "\n"


@pytest.mark.parametrize(
    "table",
    [
        _table("| Suite | Result |", "| unit | ✅ 412 passed |", "| browser | ❌ |"),
        _table("| Step | Outcome |", "| lint | clean |", "| load test | not run yet |"),
        _table("| Item | State |", "| rollback script | Pending |"),
        _table("| Job | CI |", "| integration | **Failed** (2 of 9) |"),
        _table("| Check | Result | Note |", "| smoke | timed out | retried once |"),
        _table("| Check | Result |", "| migration dry run | Error: relation does not exist |"),
        _table("| Area | Verified |", "| SSO login | ✗ |"),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_failing_result_below_the_verdict_refuses(table: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + table, strict=strict)
    assert not verdict.approved
    assert "did not pass" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    "table",
    [
        _table("| Suite | Result |", "| unit | ✅ 412 passed |", "| browser | pass |"),
        # the first cell names the row: a check about errors is not an error
        _table("| Check | Result |", "| Error handling | ✅ |", "| Failing-input fuzzing | ok |"),
        # a description cell names a thing ('Error() format'); a code span is a name
        _table("| Id | Requirement | Evidence |", "| E-2 | Error() format | `errors.go` matches |"),
        # a column of the state before the change is history
        _table("| Case | Previous round | This round |", "| flaky retry | ❌ failed | ✅ passed |"),
    ],
)
def test_tables_of_passing_checks_and_descriptions_approve(table: str) -> None:
    assert parse_verdict(_HEAD + table).approved


_FAILING = st.sampled_from(
    [
        "❌",
        "✗ no",
        "failed",
        "FAILING",
        "not run",
        "pending",
        "timed out",
        "red",
        "Broken",
        "queued",
    ]
)
_NAME = st.text(alphabet="abcdefghij ", min_size=1, max_size=12).filter(str.strip)


@given(name=_NAME, value=_FAILING, passing=st.integers(min_value=0, max_value=4))
def test_any_failing_value_in_any_row_refuses(name: str, value: str, passing: int) -> None:
    rows = [f"| check {i} | ✅ |" for i in range(passing)] + [f"| {name} | {value} |"]
    assert not parse_verdict(_HEAD + _table("| Check | Result |", *rows)).approved


# A `Key: value` line is a one-row result table: a failing value below the verdict refuses.
@pytest.mark.parametrize(
    "line",
    [
        "CI: red",
        "- **Security review:** pending",
        "Load test: not run yet",
        "Browser suite: ❌ (see the run)",
        "Smoke test: timed out",
        "**CI:** queued",
        "E2E: not started",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_failing_field_below_the_verdict_refuses(line: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + line + "\n", strict=strict)
    assert not verdict.approved
    assert "did not pass" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    "line",
    ["CI: green", "Errors: none", "Error handling: covered by tests"],
)
def test_a_passing_field_below_the_verdict_approves(line: str) -> None:
    assert parse_verdict(_HEAD + line + "\n").approved


# A short check line that opens or ends with a failing mark is a check that did not pass.
@pytest.mark.parametrize(
    "line", ["Spec ❌", "- ❌ e2e suite", "🔴 Migration rollback", "- [x] Lint ✘"]
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_failing_check_mark_below_the_verdict_refuses(line: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + line + "\n", strict=strict).approved


@pytest.mark.parametrize("line", ["❌→✅ flaky retry fixed", "- ❌ -> ✅ cache key", "Spec ✅"])
def test_a_mark_before_a_fix_or_a_passing_mark_approves(line: str) -> None:
    assert parse_verdict(_HEAD + line + "\n").approved
