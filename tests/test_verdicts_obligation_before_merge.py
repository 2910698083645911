"""An obligation tied to the merge is blocking prose, whatever its verb (issue 23).

`Audit logging is postponed to next sprint and must land before release.` above a closing
`**Verdict:** APPROVE` approved: blocking prose knew `must be fixed|addressed|… before`, a
passive of a few verbs, and not an active verb under the same obligation. A modal of
obligation (closed class: `must`, `needs to`, `has to`, `have to`) whose verb phrase is tied
to the merge by `before` / `prior to` (`merge`, `release`, `ship`, `going live`) is blocking
content now. Advice (`should … before merge`), or an obligation for later work not tied to
the merge, is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

_REVIEW = (
    "## Review\n\nRead the billing change and its tests.\n\n{line}\n\n"
    "## Verdict\n\n**Verdict:** APPROVE\n"
)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "line",
    [
        "The rate limiter is stubbed for now and has to ship before release.",
        "Key rotation is deferred and needs to be wired up prior to merging.",
        "The cron entry must move to the new scheduler before this ships.",
    ],
)
def test_an_obligation_tied_to_the_merge_does_not_approve(line: str, strict: bool) -> None:
    verdict = parse_verdict(_REVIEW.format(line=line), strict=strict)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "Callers must pass a currency code; the tests cover a missing one.",
        "The schema check passes and the migration is reversible.",
    ],
)
def test_an_obligation_not_tied_to_the_merge_still_approves(line: str) -> None:
    verdict = parse_verdict(_REVIEW.format(line=line))
    assert verdict.decision is A, verdict.reasons
