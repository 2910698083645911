"""Issue 23, session 20: a sentence after an approval that wraps over two lines is read
whole — its start on the line above and its end below — not from the second line's first
sentence end. Fresh wording (not the red-team texts), with genuine twins.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

WRAPPED = [
    "**Verdict:** APPROVED\n\nOne more point from the rerun: the export job\n"
    "has to wait for the nightly backup. Everything else is fine.\n",
    "## Summary\n\nParser rewrite.\n\n## Verdict\n\nLGTM\n\n## Notes\n\n"
    "The parser is bounded. Deploying it\nshould wait for the DBA. Tests are green.\n",
    "**Ready to merge?** Yes\n\nA closing remark: the staging smoke tests I could\n"
    "not run here. The diff itself reads well.\n",
]
TWINS = [
    "**Verdict:** APPROVED\n\nOne more point from the rerun: the export job now finishes in\n"
    "four minutes. Everything else is fine.\n",
    "## Verdict\n\nLGTM\n\n## Summary\n\nThe parser is bounded. The new tests cover\n"
    "the empty input. Tests are green.\n",
]


@pytest.mark.parametrize("text", WRAPPED)
def test_a_wrapped_sentence_after_the_approval_is_read_whole(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", TWINS)
def test_a_wrapped_statement_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
