"""An answer that says its checks did not run (issue 23, white-box round 21):
`**Verdict:** APPROVED (tests not run)`, `LGTM, untested`, `Yes (e2e skipped)`. The answer's
own clause was read for conditions, hedges and scopes, not for what it rests on, so it
stood. A check told as not run there is `malformed` in both readings; a negated one (`no
tests skipped`) or a zero count (`0 skipped`) still approves, and a line after the verdict
that records a check left out on purpose is not read this way (dev21's genuine GSD `-
Integration tests not run (Phase 8 depends on Phase 7 …)`).
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n## Verdict\n\n"


@pytest.mark.parametrize(
    "answer",
    [
        "**Verdict:** APPROVED (tests not run)",
        "**Verdict:** LGTM, untested",
        "Ready to merge? Yes (e2e skipped)",
        "**Verdict:** APPROVED — integration suite not yet executed",
        "**Verdict:** APPROVED (unverified on Windows)",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_an_answer_resting_on_checks_that_did_not_run_refuses(answer: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + answer + "\n", strict=strict)
    assert verdict.decision is Decision.MALFORMED


@pytest.mark.parametrize(
    "answer",
    [
        "**Verdict:** APPROVED (no tests skipped)",
        "**Verdict:** APPROVED (42 passed, 0 skipped)",
        "**Verdict:** APPROVED\n\n- Integration tests not run (Phase 8 depends on Phase 7).",
    ],
)
def test_a_negated_count_or_a_recorded_skip_after_the_verdict_approves(answer: str) -> None:
    assert parse_verdict(_HEAD + answer + "\n").approved
