"""Issue 23, session 22: an `Issues Found` heading above findings the change has fixed.

`## Issues Found` is a findings title, but its words are also a verdict value (`issues
found`), so a review that logged its fixed findings under it and approved below was `fixes`.
Now a heading that only names a findings section is a title when every item under it — a
list item or a table row — gives its finding a closing state (fixed, resolved, addressed,
closed, ✅), not negated, not after a modal and in no question. The items are still read by
every other reader; a paragraph in the section, or an item without a closing state, leaves
the heading a verdict.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(heading: str, items: str) -> str:
    return (
        "# Review: webhook retries\n\n"
        f"## {heading}\n\n{items}\n\n## Verdict\n\n**Verdict:** APPROVED\n"
    )


FIXED_LOGS = (
    (
        "Issues Found",
        "1. Important: the backoff ignored `Retry-After`. Fixed in `9f1e2d3`.\n"
        "2. Minor: a log line was noisy — resolved.",
    ),
    (
        "⚠️ Issues found (2)",
        "- ✅ The signature check ran after parsing (addressed in `c0ffee1`)\n"
        "- ✅ A test relied on wall-clock time (closed)",
    ),
    (
        "Issues Found",
        "| # | Severity | Finding | State |\n|---|---|---|---|\n"
        "| 1 | Important | backoff ignored Retry-After | Fixed (`9f1e2d3`) |\n"
        "| 2 | Minor | noisy log line | Resolved |",
    ),
)


@pytest.mark.parametrize(("heading", "items"), FIXED_LOGS, ids=["numbered", "bullets", "table"])
def test_a_log_of_fixed_findings_is_a_title(heading: str, items: str) -> None:
    verdict = parse_verdict(_review(heading, items))
    assert verdict.decision is A, verdict.reasons


STILL_OPEN = (
    "1. Important: the backoff ignores `Retry-After`. Fixed in `9f1e2d3`.\n"
    "2. Minor: a log line is noisy.",
    "- Important: the backoff ignores `Retry-After` — not fixed",
    "- Important: the backoff ignores `Retry-After`; will be fixed in a follow-up",
    "- Important: the backoff ignores `Retry-After` — fixed? unclear",
    "Two problems remain in the retry path.\n\n- Minor: noisy log line (resolved)",
)


@pytest.mark.parametrize(
    "items", STILL_OPEN, ids=["one-open", "negated", "modal", "question", "paragraph"]
)
def test_any_other_issues_found_section_keeps_its_verdict(items: str) -> None:
    assert parse_verdict(_review("Issues Found", items)).decision is not A


# A negation after the closing state, in the same item or cell, takes the state back: the
# fix is somewhere else, or not in yet.
TAKEN_BACK = (
    "- Important: the backoff ignores `Retry-After` — fixed on a branch, not in this PR",
    "- Important: the backoff ignores `Retry-After` — fixed in #415 (not merged yet)",
    "- Important: the backoff ignores `Retry-After` — resolved upstream, never released",
    "- Important: the backoff ignores `Retry-After` — fixed locally but isn't pushed",
    "| # | Finding | State |\n|---|---|---|\n"
    "| 1 | backoff ignores Retry-After | fixed upstream, not yet released |",
)


@pytest.mark.parametrize("items", TAKEN_BACK)
def test_a_state_negated_after_it_is_no_closing_state(items: str) -> None:
    verdict = parse_verdict(_review("Issues Found", items))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "items",
    [
        "- Important: the backoff ignored `Retry-After` — fixed, no regressions",
        "| # | Finding | State |\n|---|---|---|\n| 1 | a note is not shown | fixed |",
    ],
)
def test_a_no_after_the_state_or_a_negation_in_another_cell_leaves_the_log(items: str) -> None:
    verdict = parse_verdict(_review("Issues Found", items))
    assert verdict.decision is A, verdict.reasons
