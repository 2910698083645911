"""Issue 23, session 21: 'None blocking.' as the whole item of a findings or blocking section.

It answers the section's blocking slot: none of what the section would list blocks. It is
read so only as the whole item; a sentence after it is one of the findings it concedes (not
an explanation of a none), and a further item in the section is still read.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(section: str) -> str:
    return (
        "# Review: cache eviction\n\n## Summary\n\nEviction order matches the spec.\n\n"
        f"## Verdict\n\nAPPROVED\n\n## Outstanding Defects\n\n{section}\n"
    )


@pytest.mark.parametrize("section", ["**None blocking.**", "None blocking", "- *None blocking.*"])
def test_none_blocking_as_the_whole_item_is_an_empty_section(section: str) -> None:
    assert parse_verdict(_review(section)).decision is A


@pytest.mark.parametrize(
    "section",
    [
        "**None blocking.** The eviction callback still runs twice.",
        "- None blocking.\n- The eviction callback still runs twice.",
        "None blocking yet",
        "None blocking; rename `evict_all` before merge.",
    ],
)
def test_what_follows_none_blocking_is_still_read(section: str) -> None:
    assert parse_verdict(_review(section)).decision is not A
