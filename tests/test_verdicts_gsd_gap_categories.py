"""Issue 23, session 27: a GSD frontmatter's gaps kept by category, every category empty.

GSD's milestone audit (`*-MILESTONE-AUDIT.md`) writes its gaps as a mapping of categories,
`gaps: {requirements: [], integration: [], flows: []}`: a mapping whose every category is an
empty list lists no open gap. A category with an entry, a category whose value is anything
but an empty list (`flows:` with nothing after it, `flows: see below`), or a key that is
itself the gap still blocks.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _audit(gaps: str) -> str:
    return (
        "---\nmilestone: v3.0\naudited: 2026-03-04T00:28:12Z\nstatus: passed\n"
        f"scores:\n  requirements: 12/12\n  phases: 4/4\n{gaps}---\n\n"
        "# Milestone v3.0 Audit Report\n\n## Result\n\n- Milestone status: **passed**\n"
        "- Requirements satisfied: **12/12**\n\nAll requirements are satisfied.\n"
    )


EMPTY = (
    "gaps:\n  requirements: []\n  integration: []\n  flows: []\n",
    "gaps: {requirements: [], integration: [], flows: []}\n",
    "gaps:\n  requirements: []\n",
)


@pytest.mark.parametrize("gaps", EMPTY, ids=["block", "flow", "one"])
def test_a_mapping_of_empty_categories_lists_no_gap(gaps: str) -> None:
    verdict = parse_verdict(_audit(gaps))
    assert verdict.decision is A, verdict.reasons


OPEN = (
    'gaps:\n  requirements: []\n  integration:\n    - "orders never reach billing"\n',
    "gaps:\n  requirements: []\n  flows:\n",
    "gaps:\n  requirements: []\n  flows: see the flows section\n",
    "gaps:\n  checkout drops the coupon:\n",
    "gaps:\n  requirements: []\n  integration: {billing: [webhook]}\n",
    "gaps: {}\ngaps_remaining:\n  flows: [checkout]\n",
)


@pytest.mark.parametrize("gaps", OPEN, ids=["entry", "bare", "text", "key", "nested", "remaining"])
def test_any_category_that_is_not_an_empty_list_blocks(gaps: str) -> None:
    assert parse_verdict(_audit(gaps)).decision is not A


_NAME = st.from_regex(r"[a-z]{3,10}", fullmatch=True)
_ENTRY = st.from_regex(r"[A-Za-z][A-Za-z ]{2,30}[a-z]", fullmatch=True)


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(_NAME, min_size=1, max_size=4, unique=True), entry=_ENTRY, at=st.integers(0, 3)
)
def test_one_entry_in_any_category_blocks(names: list[str], entry: str, at: int) -> None:
    lines = [f"  {name}: []" for name in names]
    lines[at % len(names)] = f'  {names[at % len(names)]}:\n    - "{entry}"'
    assert parse_verdict(_audit("gaps:\n" + "\n".join(lines) + "\n")).decision is not A
