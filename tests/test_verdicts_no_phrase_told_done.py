"""Issue 23, session 22: a no's phrase as the subject of a report that it was done.

`### Assessment` / `All issues found above were fixed and re-verified.` was read as the
assessment answering `issues found` (`fixes`), although the sentence reports the findings
fixed and the review approves below. A no's phrase followed, within a short noun-phrase tail
of its own clause, by an indicative report that it is done (`were fixed`, `have been
addressed`) names the findings; it does not answer. A negated or modal report, or a clause
break before the report, leaves the phrase an answer.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(assessment: str) -> str:
    return (
        "# Review: rate limiter\n\n## Strengths\n\n- Clear token-bucket code with tests.\n\n"
        f"## Assessment\n\n{assessment}\n\n**Ready to merge?** Yes\n"
    )


@pytest.mark.parametrize(
    "assessment",
    [
        "All issues found in the first pass were fixed and re-verified.",
        "Changes requested in round 1 have been addressed.",
        "Issues found earlier are now resolved.",
    ],
)
def test_findings_reported_done_are_not_an_answer(assessment: str) -> None:
    verdict = parse_verdict(_review(assessment))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    "assessment",
    [
        "Issues found in the first pass were not fixed.",
        "Changes requested; they must be addressed first.",
        "Issues found: the limiter leaks one token per refill, which has been fixed upstream.",
        "Changes requested — the refill race should have been fixed.",
    ],
)
def test_any_other_no_phrase_still_answers(assessment: str) -> None:
    assert parse_verdict(_review(assessment)).decision is not A
