"""A preposition of topic right after an approving answer — `regarding`, `concerning`,
`as regards`, `with regard to`, `in terms of`, `as far as … go` — limits the approval to its
object: a part of the change, not the whole (`_scope._LEADS`; `docs/verdicts.md`, *Scope*).
The object may still be the change as a whole (`regarding this PR`), and `as far as I can
tell` frames the reviewer's certainty, not a part."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
BODY = "\n\n## Notes\n\nThe importer now streams rows instead of loading the file.\n"


@pytest.mark.parametrize(
    "answer",
    [
        "**Verdict:** APPROVED regarding the importer",
        "**Verdict:** LGTM concerning the Kotlin side",
        "**Verdict:** PASS in terms of the public interface",
        "Ship it as far as the CSV reader goes.",
    ],
)
def test_a_topic_after_the_answer_is_a_partial_scope(answer: str) -> None:
    verdict = parse_verdict(answer + BODY)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "answer",
    [
        "**Verdict:** APPROVED regarding this PR",
        "**Verdict:** LGTM as far as I can tell",
    ],
)
def test_the_whole_change_or_the_reviewers_frame_still_approves(answer: str) -> None:
    verdict = parse_verdict(answer + BODY)
    assert verdict.decision is A, verdict.reasons
