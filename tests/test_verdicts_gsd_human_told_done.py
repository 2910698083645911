"""Issue 23, session 20: a GSD Human Verification section opened by its checks told as done
without a determiner ('Human verification was completed as part of plan execution …').

The opening sentence goes on after its participle ('as part of …', 'during …'): that tail
is read for a condition, an obligation or a mood, not for how it opens (it is not a
sentence of its own); the sentences after it must still only explain it.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _report(human: str) -> str:
    return (
        "---\nphase: 05-sync\nstatus: passed\nscore: 4/4 must-haves verified\n---\n\n"
        "# Phase 5: Sync Verification Report\n\n**Status:** passed\n\n"
        f"### Human Verification Required\n\n{human}\n\n### Gaps Summary\n\nNo gaps found.\n"
    )


@pytest.mark.parametrize(
    "human",
    [
        "Human verification was completed as part of plan execution (checkpoint in 05-02-PLAN).",
        "Human verification was completed during the 05-03 checkpoint. The SUMMARY records it.",
        "Human checks were confirmed by the developer at the plan checkpoint.",
    ],
)
def test_human_checks_told_done_without_a_determiner(human: str) -> None:
    assert parse_verdict(_report(human)).decision is A


@pytest.mark.parametrize(
    "human",
    [
        "Human verification was completed, please re-check the sync banner on Safari.",
        "Human verification was completed on staging; it should be repeated on production.",
        "Human verification was completed for the desktop app only.",
        "Human verification was completed once the flag was on. Check the mobile layout by hand.",
        "Human verification will be completed after release.",
    ],
)
def test_what_the_told_done_sentence_says_besides_is_still_read(human: str) -> None:
    assert parse_verdict(_report(human)).decision is not A
