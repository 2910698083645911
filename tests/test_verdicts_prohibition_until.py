"""A prohibition of the merge or the release until something (issue 23): 'Don't cut the
release until the rotation test is fixed.' under a known section after an approval approved
by default; only 'Do not merge/deploy/ship …' was read (a no). A verb phrase naming the
release, tagging or publishing, before until/before/unless, holds too."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the change.\n\n**Verdict:** APPROVE\n\n## Notes\n\n"


@pytest.mark.parametrize(
    "line",
    [
        "Don't cut the release until the rotation test is fixed.",
        "Do not tag this until QA has signed off.",
        "Never publish the package before the changelog is written.",
        "Do not ship it unless the load test comes back clean.",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_prohibition_of_the_release_until_something_holds(line: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + line + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "line", ["Nothing blocks the release.", "The release notes are clear and complete."]
)
def test_notes_that_hold_nothing_approve(line: str) -> None:
    assert parse_verdict(_HEAD + line + "\n").approved
