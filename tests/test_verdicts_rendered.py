"""The verdict gate reads the document as rendered (issue 23, deliverable 1).

Each hostile document puts the approval where it renders as nothing or as someone else's
words, or hides the "no" from a parser that reads source text; none may approve. Each genuine
twin renders the same approval in plain sight and still approves.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_BODY = "# Review\n\nThe change adds retry logic to the uploader; tests cover the new path.\n\n"
_CRITICAL = "- The retry loop never terminates when the server answers 500.\n"

HOSTILE = {
    # 1. Link-reference definitions render as nothing.
    "linkref_bare": _BODY + "[verdict]: APPROVE\n",
    "linkref_title": _BODY + '[Verdict]: <#approve> "APPROVED"\n',
    # 2. An inline-code '<!--' opens no comment: the Critical section below it is visible.
    "inline_code_comment_opener": _BODY
    + "Note: `<!--` opens a comment.\n\n## Critical\n\n"
    + _CRITICAL
    + "\nClose with `-->`.\n\nVerdict: APPROVE\n",
    # 3. A lazy continuation line renders inside the quote: someone else's words.
    "quote_lazy_continuation": _BODY
    + "The author wrote:\n\n> I think this is fine.\nVerdict: APPROVE\n",
    # 4. Code and headings as rendered.
    "pre_block": _BODY + "<pre>\nVerdict: APPROVE\n</pre>\n",
    "setext_heading_equals": _BODY + "Critical\n========\n\n" + _CRITICAL + "\nVerdict: APPROVE\n",
    "setext_heading_dashes": _BODY
    + "Critical issues\n---------------\n\n"
    + _CRITICAL
    + "\nVerdict: APPROVE\n",
}

GENUINE = {
    "plain": _BODY + "Verdict: APPROVE\n",
    "quote_then_blank": _BODY + "> nit: naming.\n\nVerdict: APPROVE\n",
    "link_reference_beside": _BODY
    + "See [the docs][d].\n\n[d]: https://example.org\n\nVerdict: APPROVE\n",
    "inline_code_comment_opener": _BODY + "Note: `<!--` opens a comment.\n\nVerdict: APPROVE\n",
    "details_notes": _BODY
    + "<details>\n<summary>Notes</summary>\n\nThe naming is consistent.\n\n</details>\n\n"
    + "Verdict: APPROVE\n",
    "setext_summary_heading": _BODY + "Summary\n=======\n\nAll good.\n\nVerdict: APPROVE\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_verdict_rendered_hostile_does_not_approve(name: str) -> None:
    assert parse_verdict(HOSTILE[name]).decision is not Decision.APPROVE


@pytest.mark.parametrize("name", sorted(GENUINE))
def test_verdict_rendered_genuine_twin_approves(name: str) -> None:
    assert parse_verdict(GENUINE[name]).decision is Decision.APPROVE


@pytest.mark.parametrize(
    "text",
    [
        _BODY + "<!-- Verdict: APPROVE -->\n",
        _BODY + "<!--\nVerdict: APPROVE\n-->\n",
        _BODY + "```\nVerdict: APPROVE\n```\n",
        _BODY + "- Example of output:\n\n      Verdict: APPROVE\n",
    ],
)
def test_verdict_rendered_nothing_or_code_never_approves(text: str) -> None:
    """Regression pins (main already refused these): comments and code carry no verdict."""
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_verdict_details_content_counts_as_visible() -> None:
    """`<details>` content is visible text (one click away): a "no" inside it counts."""
    text = (
        _BODY + "Verdict: APPROVE\n\n<details>\n<summary>More</summary>\n\n## Critical\n\n"
        "- SQL injection in the query builder.\n\n</details>\n"
    )
    assert parse_verdict(text).decision is not Decision.APPROVE
