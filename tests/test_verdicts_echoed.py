"""Issue 23: a genuine review filled in under an echoed template heading (`## Output Format`,
`## Your Output`, `### Response format`) is the review (`_echoed`), decided from structure.

Written from the class: the heading opens the document and its section runs to the end,
nothing inside is still a template or an instruction, and a recogniser finds its findings
sections. Each genuine document (refused on main) has hostile twins that must not approve:
the same heading with a "no", with a blocking item, with the template left unfilled, with other
text around it, or with a nested example.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _filled(heading: str, *, critical: str = "None.", answer: str = "Yes", extra: str = "") -> str:
    sub = "#" * (heading.count("#") + 1)
    return (
        f"{heading}\n\n{sub} Strengths\n- The parser change is small and tested.\n\n"
        f"{sub} Issues\n\n{sub}# Critical (Must Fix)\n{critical}\n\n"
        f"{sub}# Important (Should Fix)\nNone.\n\n"
        f"{sub}# Minor (Nice to Have)\n- Rename `tmp` to `buffer` in `load()`.\n\n{extra}"
        f"{sub} Assessment\n\n**Ready to merge?** {answer}\n\n"
        "**Reasoning:** Every acceptance criterion is met and the tests pass.\n"
    )


GENUINE = [
    _filled("## Output Format"),
    _filled("## Expected output"),
    _filled("### Response format"),
    _filled("## Sample response"),
    _filled("## Output Template"),
    "---\ntitle: review\n---\n" + _filled("## Output Format"),
]


@pytest.mark.parametrize("text", GENUINE)
def test_a_review_filled_in_under_an_echoed_heading_is_the_review(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, (verdict.reasons, verdict.warnings)
    assert any("filled-in review" in w for w in verdict.warnings)


NOT_APPROVED = [
    # The same documents saying no, or with a blocking item: a no counts either way.
    (_filled("## Output Format", answer="No"), R),
    (_filled("## Output Format", answer="With fixes"), F),
    (_filled("## Your Output", critical="- The migration drops the users table."), F),
    (_filled("## Usage", answer="No"), R),
    (_filled("## Prompt injection", critical="- Data loss on retry."), F),
    (_filled("## 测试用例", answer="No"), R),
    # The template echoed, not filled in: a choice of answers is still a template.
    (_filled("## Output Format", answer="[Yes/No/With fixes]"), M),
    # Something under it is an example by itself.
    (_filled("## Output Format", extra="### Example\n\n**Ready to merge?** No\n\n"), M),
    # Other text of the reviewer's around it: the heading may introduce an example of it.
    ("Use this format for the review.\n\n" + _filled("## Output Format"), M),
    (_filled("## Output Format") + "\n## Notes\n\nThis was only a sample.\n", M),
    # No findings sections: a bare verdict under an example heading is an example.
    ("## Example output\n\n**Ready to merge?** Yes\n", M),
    ("## Output Format\n\n### Assessment\n\n**Ready to merge?** Yes\n", M),
]


@pytest.mark.parametrize(("text", "expected"), NOT_APPROVED)
def test_an_echoed_heading_never_lets_an_approval_through(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert not verdict.approved, verdict.reasons
    if expected is not M:
        assert verdict.decision is expected, (verdict.reasons, verdict.warnings)
