"""Issue 23, session 20: 'blocked by default' says how a thing behaves, not what holds work.

A GSD truth row 'Outbound HTTP calls are blocked by default in the test suite | VERIFIED' is
a claim the verifier checked; 'blocked by' with an agent ('blocked by the migration lock',
'blocked by default settings') still states blocked work.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(truth: str) -> str:
    return (
        "---\nphase: 07-http\nstatus: passed\nscore: 2/2 must-haves verified\n---\n\n"
        "# Phase 7: HTTP Stubs Verification Report\n\n**Status:** passed\n\n"
        "### Observable Truths\n\n| # | Truth | Status | Evidence |\n|---|---|---|---|\n"
        "| 1 | The stub server starts with the suite | VERIFIED | `stubs.rb` line 4 |\n"
        f"| 2 | {truth} | VERIFIED | `stubs.rb` line 9 |\n\n"
        "### Human Verification Required\n\nNone.\n\n### Gaps Summary\n\nNo gaps found.\n"
    )


@pytest.mark.parametrize(
    "truth",
    [
        "Outbound HTTP calls are blocked by default in the test suite",
        "Writes to the cache are blocked by default, and tests opt in",
    ],
)
def test_blocked_by_default_is_a_claim(truth: str) -> None:
    assert parse_verdict(_report(truth)).decision is A


@pytest.mark.parametrize(
    "truth",
    [
        "Outbound HTTP calls are blocked by the proxy rollout",
        "The release is blocked by default settings in staging",
    ],
)
def test_blocked_by_an_agent_still_blocks(truth: str) -> None:
    assert parse_verdict(_report(truth)).decision is not A
