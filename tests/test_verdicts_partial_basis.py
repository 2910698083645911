"""Issue 23, session 20: prose after an approval that narrows what the verdict rests on.
Fresh wording for each class (not the held-out red-team texts), each with genuine twins that
must still approve.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

# The verdict's noun limited by a focus particle, or the reviewer's own reading limited, or
# the reviewer telling what they could not or have not done: the verdict speaks for a part.
PARTIAL_BASIS = [
    "**Verdict:** APPROVED\n\nThe approval applies to the CLI package solely.\n",
    "## Decision\n\nLGTM\n\nMy review touched the parser only, nothing under `web/`.\n",
    "**Ready to merge?** Yes\n\nThe Helm chart we only glanced at.\n",
    "Verdict: approve\n\n## Notes\n\nI only spot-checked the generated bindings.\n",
    "**Verdict:** APPROVED\n\nThe e2e job couldn't start on my runner, so I read the diff.\n",
    "**Verdict:** APPROVED\n\nThe GPU kernels have not been benchmarked by me.\n",
    "## Verdict\n\nShip it.\n\nWe were unable to build the Windows wheel here.\n",
]
BASIS_TWINS = [
    "**Verdict:** APPROVED\n\nI could not find anything that needs changing.\n",
    "**Verdict:** APPROVED\n\nThe token cannot be replayed once it is spent.\n",
    "**Verdict:** APPROVED\n\nThe change touches the parser only.\n",
    "**Verdict:** APPROVED\n\nAll 212 tests pass locally.\n",
]


@pytest.mark.parametrize("text", PARTIAL_BASIS)
def test_a_partial_basis_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", BASIS_TWINS)
def test_a_full_basis_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
