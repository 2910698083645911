"""A defect stated in a later sentence of the verdict's own line is read as it is on a line
of its own after the approval: the approval has not weighed it (`docs/verdicts.md`, *What the
approval has not weighed*). A sentence there that tells what the change mends, or what was
checked, still approves."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

LINES = ["**Verdict:** APPROVED. {s}", "LGTM. {s}", "Status: approved. {s}"]
DEFECTS = [
    "The migration drops the audit table without a backup.",
    "The retry loop never terminates on a closed socket.",
    "The scheduler crashes on an empty queue.",
]
FINE = [
    "This fixes the crash on an empty queue.",
    "Tests cover the retry path and the closed-socket case.",
    "The export endpoint now pages with a cursor.",
]


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("said", DEFECTS)
def test_a_defect_beside_the_answer_keeps_it_from_approving(line: str, said: str) -> None:
    verdict = parse_verdict("## Review\n\n" + line.format(s=said) + "\n")
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("said", FINE)
def test_a_reason_beside_the_answer_still_approves(line: str, said: str) -> None:
    verdict = parse_verdict("## Review\n\n" + line.format(s=said) + "\n")
    assert verdict.decision is Decision.APPROVE, verdict.reasons
