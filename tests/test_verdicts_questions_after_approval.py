"""Issue 23, session 20: a question or a request after an approval. Fresh wording (not the
held-out red-team texts), with genuine twins that must still approve.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

# A question, or a modal before its subject (a request), after the verdict: work handed to
# someone, or doubt — no reason for the verdict.
ASKS = [
    "**Verdict:** APPROVED\n\nWould you drop the debug print in `jobs/run.py` too?\n",
    "## Verdict\n\nLGTM\n\nCan you bump the retry budget to three.\n",
    "**Ready to merge?** Yes\n\n## Summary\n\nDid anyone confirm the index exists in prod?\n",
    "Verdict: approve\n\nAny chance the fallback path gets a test?\n",
]
ASKS_TWINS = [
    "**Verdict:** APPROVED\n\nThe fallback path is still reachable and covered by a test.\n",
    "**Verdict:** APPROVED\n\n**Breaking changes?**\nNo.\n",
]


@pytest.mark.parametrize("text", ASKS)
def test_a_question_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", ASKS_TWINS)
def test_a_statement_or_an_answered_question_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
