"""A section whose heading names a condition field (issue 23, white-box round 21).

`Conditions: rotate the key` beside an approval conditions it; `## Conditions` / `- Rotate
the key` is the same field written large, but a heading was read only as a part of the
review: under an opening verdict its body is the review, and above a closing verdict it is
a section like any other, so the approval stood. Its lines are now the field's value: any
that is not a "none" conditions the approval (`fixes`), wherever the section stands in the
deciding round.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._signals import NONE_ITEM

_SUMMARY = "# Review: retry backoff\n\n## Summary\n\nAdds backoff; tests cover it.\n\n"
_VERDICT = "## Verdict\n\n**Verdict:** APPROVED\n\n"


def _above(heading: str, body: str) -> str:
    return _SUMMARY + f"{heading}\n\n{body}\n\n" + _VERDICT


def _below_opening(heading: str, body: str) -> str:
    return "# Review: retry backoff\n\n" + _VERDICT + f"{heading}\n\n{body}\n"


@pytest.mark.parametrize(
    "heading",
    ["## Conditions", "### Before merge", "### Prerequisites (2)", "## Open items:", "### Pending"],
)
@pytest.mark.parametrize("place", [_above, _below_opening])
@pytest.mark.parametrize("strict", [False, True])
def test_a_condition_section_with_an_item_conditions_the_approval(
    heading: str, place: Callable[[str, str], str], strict: bool
) -> None:
    text = place(heading, "- [ ] Rotate the staging API key.")
    verdict = parse_verdict(text, strict=strict)
    assert verdict.decision is Decision.FIXES
    assert "a condition is attached" in verdict.reasons[0]


@pytest.mark.parametrize("body", ["None.", "- None", "- n/a", "Nothing blocking."])
@pytest.mark.parametrize("place", [_above, _below_opening])
def test_a_condition_section_that_says_none_approves(
    body: str, place: Callable[[str, str], str]
) -> None:
    assert parse_verdict(place("## Conditions", body)).approved


@pytest.mark.parametrize("heading", ["## Dependencies", "### Requires"])
def test_an_inventory_of_what_the_change_needs_is_no_condition(heading: str) -> None:
    text = _below_opening(heading, "- Adds `httpx` 0.27 for the retry transport.")
    assert parse_verdict(text).approved


def test_a_condition_section_of_a_superseded_round_does_not_condition() -> None:
    text = (
        "# Review\n\n## Round 1\n\n### Conditions\n\n- Rotate the key.\n\n"
        "Verdict: CHANGES REQUESTED\n\n## Round 2\n\nThe key is rotated; tests cover it.\n\n"
        + _VERDICT
    )
    assert parse_verdict(text).approved


_ITEM = st.from_regex(r"[a-z]{3,9}( [a-z]{2,9}){0,4}", fullmatch=True).filter(
    lambda item: NONE_ITEM.fullmatch(item) is None
)


@given(item=_ITEM)
def test_any_item_that_is_not_a_none_conditions(item: str) -> None:
    verdict = parse_verdict(_below_opening("### Conditions", f"- {item}"))
    assert not verdict.approved
