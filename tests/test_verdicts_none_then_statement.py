"""A blocking section's "none" followed by a plain statement holds that statement (issue 23).

`None. The writer leaks file handles.` under `## Blockers` approved: only the first sentence
was read for a none, and what followed passed unless a reader recognised a turn, an order or
a condition in it (a deny-list). What explains a none must now appraise the change
(`_appraisal`): deny a problem (`The branch breaks nothing.`), judge or report a check;
anything else is content the blocking section holds, so the document does not approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

BEFORE = "## {heading}\n\n{body}\n\n## Verdict\n\n**Verdict:** APPROVED\n"
AFTER = "**Verdict:** APPROVED\n\n## {heading}\n\n{body}\n"
AS_ITEM = "## {heading}\n\n- {body}\n\n## Assessment\n\n**Ready to merge?** Yes\n"
SHAPES = (BEFORE, AFTER, AS_ITEM)
HEADINGS = ("Blockers", "Critical issues", "Must fix")

STATEMENTS = (
    "None. The writer leaks file handles on every retry.",
    "None. Refresh tokens are logged in clear text.",
    "Nothing. The importer skips the header row of each file.",
    "None found. The cron job deletes the wrong bucket.",
)
EXPLANATIONS = (
    "None. The branch breaks nothing.",
    "None. No regressions in the suite.",
    "None found. I could not find anything wrong in the diff.",
    "None.",
)


@pytest.mark.parametrize("shape", SHAPES, ids=["before", "after", "item"])
@pytest.mark.parametrize("heading", HEADINGS)
@pytest.mark.parametrize("body", STATEMENTS)
def test_a_statement_after_a_none_keeps_the_section_open(
    shape: str, heading: str, body: str
) -> None:
    verdict = parse_verdict(shape.format(heading=heading, body=body))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("shape", SHAPES, ids=["before", "after", "item"])
@pytest.mark.parametrize("body", EXPLANATIONS)
def test_a_none_explained_by_an_appraisal_is_empty(shape: str, body: str) -> None:
    verdict = parse_verdict(shape.format(heading="Blockers", body=body))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(["The parser", "Each request", "The new job", "It"]),
    st.sampled_from(["drops", "exposes", "rewrites", "duplicates", "truncates"]),
    st.sampled_from(["the session id", "every row", "the audit log", "its retries"]),
    st.sampled_from(SHAPES),
    st.sampled_from(HEADINGS),
)
def test_no_plain_statement_after_a_none_approves(
    subject: str, verb: str, obj: str, shape: str, heading: str
) -> None:
    body = f"None. {subject} {verb} {obj}."
    assert parse_verdict(shape.format(heading=heading, body=body)).decision is not Decision.APPROVE


@pytest.mark.parametrize("gap", ["\n", "\n\n"], ids=["next-line", "next-paragraph"])
@pytest.mark.parametrize("heading", HEADINGS)
def test_a_statement_on_a_line_after_the_none_is_held_too(gap: str, heading: str) -> None:
    """The statement on its own line or paragraph after the none is read as the none's own
    second sentence is: it must appraise."""
    body = f"None.{gap}Session ids are written to the shared cache without a tenant prefix."
    assert parse_verdict(BEFORE.format(heading=heading, body=body)).decision is not Decision.APPROVE


@pytest.mark.parametrize("gap", ["\n", "\n\n"], ids=["next-line", "next-paragraph"])
def test_an_appraisal_on_a_line_after_the_none_still_explains_it(gap: str) -> None:
    body = f"None.{gap}The retry path is covered by the new tests."
    verdict = parse_verdict(BEFORE.format(heading="Blockers", body=body))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
