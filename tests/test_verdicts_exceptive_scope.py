"""Issue 23, session 20: an exceptive preposition after an approval carves a part out of
what the verdict covers. Fresh wording (not the red-team texts), with genuine twins.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

EXCEPTED = [
    "**Verdict:** APPROVED\n\nAll of it reads well, bar none excluding the SQL layer.\n",
    "## Verdict\n\nLGTM\n\nAside from the Terraform module, this is ready.\n",
    "**Ready to merge?** Yes\n\n## Summary\n\nSolid work, save for the CSV exporter.\n",
    "Verdict: approve\n\nThe whole diff is sound besides the cron changes.\n",
]
TWINS = [
    "**Verdict:** APPROVED\n\nThe whole diff is sound, including the cron changes.\n",
    "## Verdict\n\nLGTM\n\nThe Terraform module and the SQL layer both read well.\n",
]


@pytest.mark.parametrize("text", EXCEPTED)
def test_an_excepted_part_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", TWINS)
def test_the_whole_change_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
