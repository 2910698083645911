"""A heading after the approval that names the evidence a review shows — what was run, the
commands, the record it leaves ('## What Was Run', '## Commands run', '## Release record') —
names a section of the review, not something outside it (issue 23, class 8). Its lines are
read like any section's: a failure, a block or a no under it still refuses."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

HEAD = """# Review: nightly backup pruning

## Summary

Backups older than 30 days are now pruned after the upload succeeds.

## Verdict

APPROVED

"""


@pytest.mark.parametrize(
    "section",
    [
        "## What Was Run\n\n- `pytest tests/backup`: 31 passed\n",
        "## Commands run\n\n```\nmake lint test\n```\n",
        "## Release record\n\n- Tag: v4.2.0\n- Commit: 9c1e07d\n",
        "## What we tested\n\n- `pytest -k empty_bucket`: 2 passed\n",
    ],
)
def test_a_heading_that_names_evidence_is_a_section_of_the_review(section: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(HEAD + section, strict=strict)
        assert verdict.decision is A, (strict, verdict.reasons)


@pytest.mark.parametrize(
    "section",
    [
        "## What Was Run\n\nThe pruning test fails against the MinIO fixture.\n",
        "## Commands run\n\nBlocking: the prune job deletes the newest backup too.\n",
        "## Release record\n\nNo, hold this release: the retention flag is inverted.\n",
    ],
)
def test_its_lines_are_still_read(section: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(HEAD + section, strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)
