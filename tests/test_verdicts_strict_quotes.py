"""The strict reading and block quotes after a closing approval (issue 23): a quote renders as
visible text in the verdict's section, so under the strict reading it must appraise the change
like the reviewer's own lines, or the review is `malformed` (the hook asks once for the
verdict object). A quote is not live for the other readers (it holds someone else's words)."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the scheduler change.\n\n## Verdict\n\n**Verdict:** APPROVED\n\n"

UNWEIGHED = [
    "> The retry queue drops jobs when the broker restarts.",
    "> Heads-up: the nightly export runs twice after this.",
    ">> Nested: the lock file is never removed.",
]
APPRAISING = [
    "> Tests pass and the scheduler code is clean.",
    "> No regressions in the suite.",
]


@pytest.mark.parametrize("quote", UNWEIGHED)
def test_a_quote_that_does_not_appraise_is_malformed_strictly(quote: str) -> None:
    verdict = parse_verdict(_HEAD + quote + "\n", strict=True)
    assert verdict.decision is Decision.MALFORMED, verdict.reasons
    assert "quoted" in verdict.reasons[0]


def test_an_alert_is_the_reviewers_own_text_and_read_as_such() -> None:
    # GitHub renders '> [!NOTE]' as a callout of the reviewer's: live, read like any line.
    text = _HEAD + "> [!NOTE]\n> Timestamps are written in local time.\n"
    assert parse_verdict(text, strict=True).decision is Decision.MALFORMED


@pytest.mark.parametrize("quote", APPRAISING)
def test_a_quote_that_appraises_still_approves_strictly(quote: str) -> None:
    assert parse_verdict(_HEAD + quote + "\n", strict=True).approved


def test_the_default_reading_leaves_quotes_to_the_other_readers() -> None:
    assert parse_verdict(_HEAD + UNWEIGHED[0] + "\n").approved
