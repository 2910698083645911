"""Issue 23, session 26 class 4: a list item of a BMAD-style gate that notes a dependency of
another story ('- Story 3.4 blocked on Story 4.1 (vendor API access)') says that story
waits, not the change under review (`_blocking.other_unit_waits`). The document's own
story is its top-level `story_id:` / `story:` key. The item still blocks when the waiting
story is the document's own, when the document names no story, or when the item says more
than the dependency.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _gate(item: str, own: str = 'story_id: "3.2"\n') -> str:
    return (
        f'{own}story_title: "Invoice export"\nstatus: "PASS"\nquality_score: 94\n\n'
        "notes: |\n  Export covers all 4 acceptance criteria; 38 tests pass.\n\n"
        'technical_debt:\n  retry_key:\n    priority: "LOW"\n    mitigation: |\n'
        f"      - Documented in the dev notes\n      {item}\n"
    )


@pytest.mark.parametrize(
    "item",
    [
        "- Story 3.4 blocked on Story 4.1 (vendor API access)",
        "- Story 5 is blocked by Story 4.1",
        "- Story 3.10 blocked on the vendor sandbox",
    ],
)
def test_another_storys_dependency_does_not_block(item: str) -> None:
    assert parse_verdict(_gate(item)).decision is A


@pytest.mark.parametrize(
    ("item", "own"),
    [
        ("- Story 3.2 blocked on Story 4.1 (vendor API access)", 'story_id: "3.2"\n'),
        ("- Story 3.4 blocked on Story 4.1 (vendor API access)", ""),
        ("- Story 3.2.1 blocked on Story 4.1", 'story_id: "3.2"\n'),
        ("- Story 3.4 blocked on Story 4.1; the export must be fixed first", 'story_id: "3.2"\n'),
        ("- Story 3.4 blocked on Story 4.1, and this PR is blocked too", 'story_id: "3.2"\n'),
        ("- This story is blocked on Story 4.1", 'story_id: "3.2"\n'),
    ],
)
def test_the_own_storys_or_an_unknown_dependency_still_blocks(item: str, own: str) -> None:
    assert parse_verdict(_gate(item, own=own)).decision is not A


@given(minor=st.integers(min_value=0, max_value=20))
def test_only_the_own_id_blocks(minor: int) -> None:
    item = f"- Story 3.{minor} blocked on Story 4.1"
    decision = parse_verdict(_gate(item)).decision
    assert (decision is A) is (minor != 2)
