"""Issue 23, deliverable 3: which phrase lists the whole-document accounting does *not* make
redundant. Each detector of `_signals` that reads conditions, retractions or scopes after an
approval was removed in turn and the verdict suites and every held-out set were scored: each
removal either broke a pinned hostile case or let one through that no test pinned. The latter
are pinned here, so that deleting the list fails a test.
"""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

# `_signals.scoped_answer_in`: an answer about another change. The partial-scope reader does
# not see these ('PR' names the whole change; 'regarding' is no 'for'); without the list both
# approved.
ABOUT_ANOTHER_CHANGE = [
    "Verdict: APPROVED regarding the other PR\n",
    "Verdict: APPROVED for last week's PR\n",
    "**Ready to merge?** Yes, about the previous merge request\n",
]


@pytest.mark.parametrize("text", ABOUT_ANOTHER_CHANGE)
def test_an_answer_about_another_change_is_not_an_approval(text: str) -> None:
    verdict = parse_verdict(text)
    assert not verdict.approved, verdict.reasons
