"""superpowers' code-reviewer template marks its blocking section `(Must Fix)`: a section
under any other title with that mark (`#### Security (Must Fix)`) is blocking like
`Critical (Must Fix)` — the mark says what its items are. Listing something there keeps
`Ready to merge? Yes` from approving; saying none there leaves it."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_NONE_SECTIONS = (
    "#### Critical (Must Fix)\nNone.\n\n#### Important (Should Fix)\nNone.\n\n"
    "#### Minor (Nice to Have)\nNone.\n\n"
)


def _review(extra: str) -> str:
    return (
        "### Strengths\n- Reversible migrations.\n\n### Issues\n\n"
        + _NONE_SECTIONS
        + extra
        + "### Assessment\n\n**Ready to merge?** Yes\n"
    )


_TITLES = [
    "#### Security (Must Fix)",
    "#### Data Integrity (must fix before merge)",
    "### Regressions (MUST FIX)",
    "#### Token handling (Must Fix):",
]


@pytest.mark.parametrize("title", _TITLES)
@pytest.mark.parametrize(
    "item",
    [
        "1. The migration drops `orders.customer_id` before copying it.",
        "- `reset()` accepts a used token.",
        "The webhook signature is never checked.",
    ],
)
def test_an_item_under_a_must_fix_mark_keeps_the_yes_from_approving(title: str, item: str) -> None:
    verdict = parse_verdict(_review(f"{title}\n{item}\n\n"))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("title", _TITLES)
@pytest.mark.parametrize("none", ["None.", "- None found in this diff", "N/A"])
def test_a_must_fix_section_that_says_none_leaves_the_yes(title: str, none: str) -> None:
    verdict = parse_verdict(_review(f"{title}\n{none}\n\n"))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "title",
    ["#### Follow-ups (Nice to Have)", "#### Docs (Consider)", "#### Performance (optional)"],
)
def test_a_section_with_another_mark_is_not_blocking(title: str) -> None:
    verdict = parse_verdict(_review(f"{title}\n- Cache the parsed config.\n\n"))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
