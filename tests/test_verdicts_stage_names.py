"""superpowers' two review stages named in other languages (issue 23: "None." under a findings
heading in another language, Chinese SDD task reviews), and a tally in parentheses beside an
answer ('通过（11/11）', 'Approved (5/5)'): a count of what passed, which narrows the approval
only when it falls short."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


@pytest.mark.parametrize(
    ("spec", "quality"),
    [
        ("规格符合性", "代码质量"),
        ("规范符合性", "质量"),
        ("仕様準拠", "コード品質"),
        ("사양 준수", "코드 품질"),
    ],
)
def test_both_stages_named_in_another_language_approve(spec: str, quality: str) -> None:
    text = f"## 结论\n\n**{spec}：** ✅ 通过\n\n**{quality}：** Approved\n"
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    "quality_answer", ["需要修改", "❌", "Needs changes", "Approved after the token fix"]
)
def test_a_stage_that_does_not_approve_keeps_the_review_from_approving(
    quality_answer: str,
) -> None:
    text = f"## 结论\n\n**规格符合性：** ✅ 通过\n\n**代码质量：** {quality_answer}\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    ("answer", "approves"),
    [
        ("Approved (5/5)", True),
        ("- **规格符合性：✅ 通过（11/11）**，无不符合项。", True),
        ("Approved (3/5)", False),
        ("- **规格符合性：✅ 通过（9/11）**", False),
        ("Approved for 3/5", False),
    ],
)
def test_a_tally_beside_the_answer_narrows_it_only_when_short(answer: str, approves: bool) -> None:
    verdict = parse_verdict(f"## Verdict\n\n{answer}\n")
    assert (verdict.decision is A) is approves, verdict.reasons
