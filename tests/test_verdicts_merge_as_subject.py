"""Issue 23, session 20: after an approval, a clause whose subject is the act the verdict
allows (the merge, the deploy, the rollout) tells what happens to it — a condition told as a
plain statement — not a reason about the change. Fresh wording, with genuine twins.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

MERGE_ACT = [
    "**Verdict:** APPROVED\n\nThe deploy is tied to the infra team's quota bump.\n",
    "## Verdict\n\nLGTM\n\n## Summary\n\n- Clean diff.\n- Rollout hinges on the CDN purge.\n",
    "**Ready to merge?** Yes\n\nShipping is tied to the Thursday window.\n",
    "Verdict: approve\n\nMerging stays parked behind ticket OPS-77.\n",
    "**Verdict:** APPROVED\n\nThe merge of this branch will follow the DBA's review.\n",
]
MERGE_ACT_TWINS = [
    "**Verdict:** APPROVED\n\nMerge conflicts with `main` were resolved cleanly.\n",
    "**Verdict:** APPROVED\n\nThe deployment is unchanged by this refactor.\n",
    "**Verdict:** APPROVED\n\nThe merge is a fast-forward.\n",
    "**Verdict:** APPROVED\n\nThe release notes cover the new flag.\n",
]


@pytest.mark.parametrize("text", MERGE_ACT)
def test_the_merge_as_subject_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", MERGE_ACT_TWINS)
def test_the_change_as_subject_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
