"""A record of the approving round, under that round's own heading (issue 23: SDD task
reviews keep their re-review's method and verification as subsections: '## Re-review' /
'### Verdict' / 'APPROVED' / '### Re-review verification'). Such a heading names the round
and one of its records and nothing else; nested in the round it is a section of that round,
not a later review with no verdict. Alone, or naming anything else ('Re-review 2'), it still
opens a round; and a finding written in the record is read as in the verdict's own section."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

FIRST_ROUND = (
    "# Task 4 review\n\n## Verdict\n\nCHANGES REQUESTED\n\n"
    "- **Important:** `cache.py:40` evicts live keys.\n\n"
)
APPROVING_ROUND = (
    "## Re-review\n\n### Verdict\n\nAPPROVED\n\nThe eviction now skips live keys and a test "
    "covers it.\n\n"
)
RECORD_HEADINGS = [
    "Re-review verification",
    "Re-review method",
    "Re-review evidence",
    "Re-review commands",
    "Re-check method",
]
RECORD_BODY = "- `pytest tests/test_cache.py` passed: 14 tests.\n"


@pytest.mark.parametrize("heading", RECORD_HEADINGS)
def test_a_record_of_the_approving_round_under_its_heading_approves(heading: str) -> None:
    text = FIRST_ROUND + APPROVING_ROUND + f"### {heading}\n\n" + RECORD_BODY
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("heading", RECORD_HEADINGS)
def test_a_record_heading_at_the_rounds_own_level_still_opens_a_round(heading: str) -> None:
    text = FIRST_ROUND + APPROVING_ROUND + f"## {heading}\n\n" + RECORD_BODY
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.MALFORMED
    assert "later round" in verdict.reasons[0]


@pytest.mark.parametrize("heading", ["Re-review 2", "Re-review of the pinned keys", "Addendum"])
def test_a_nested_heading_that_names_more_than_a_record_still_opens_a_round(
    heading: str,
) -> None:
    text = FIRST_ROUND + APPROVING_ROUND + f"### {heading}\n\n- `cache.py:52` evicts pinned keys.\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize("heading", RECORD_HEADINGS)
@pytest.mark.parametrize(
    "finding",
    [
        "- **Important:** `cache.py:52` still evicts pinned keys.\n",
        "- **Critical:** the lock is taken twice.\n",
        "- `cache.py:52` — pinned keys are still evicted.\n",
    ],
)
def test_a_finding_in_the_rounds_record_refuses(heading: str, finding: str) -> None:
    text = FIRST_ROUND + APPROVING_ROUND + f"### {heading}\n\n" + RECORD_BODY + finding
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize("heading", RECORD_HEADINGS)
@pytest.mark.parametrize(
    "no",
    [
        "CHANGES REQUESTED",
        "**Verdict:** NEEDS FIXES",
        "FAIL",
        "The pinned keys are still evicted, which must be fixed before merge.",
        "Merge only after the DBA signs off.",
    ],
)
def test_a_no_in_the_rounds_record_refuses(heading: str, no: str) -> None:
    text = FIRST_ROUND + APPROVING_ROUND + f"### {heading}\n\n{no}\n"
    assert parse_verdict(text).decision is not A


def test_a_record_under_a_section_that_is_no_round_still_opens_one() -> None:
    text = (
        "# Task 4 review\n\n## Verdict\n\nAPPROVED\n\nThe eviction skips live keys.\n\n"
        "### Re-review verification\n\n" + RECORD_BODY
    )
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.MALFORMED
    assert "later round" in verdict.reasons[0]
