"""superpowers' two-stage task reviews whose stage answer is worded a little more fully than
'PASS' (issue 23: genuine approvals refused as `malformed`): the stage heading names its answer
('## Code quality verdict: PASS'), or the answer opens with a word that says how much of the
stage it covers ('✅ All passed', '✅ 全部通过', '✅ 整体合格'). Both are the stage's answer; a
no, a condition or a hedge worded the same way still refuses."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _two_stage_review(spec: str, quality: str) -> str:
    return (
        "# Review of the cache task\n\n"
        f"{spec}\n\n"
        "The brief's four requirements are met.\n\n"
        f"{quality}\n\n"
        "Small, well-named functions.\n\n"
        "## Findings\n\n"
        "None.\n"
    )


@pytest.mark.parametrize(
    ("spec", "quality"),
    [
        ("## Spec compliance verdict: PASS", "## Code quality verdict: PASS"),
        ("## Specification verdict: Approved", "## Task quality verdict — Approved"),
        ("## Spec compliance\n✅ All passed", "## Code quality\n✅ All passed"),
        ("## 规格合规性\n✅ 全部通过", "## 代码质量\n✅ 全部通过"),
        ("## 规格合规性\n✅ 整体合格", "## 代码质量\n✅ 总体通过"),
    ],
)
def test_a_stage_answer_with_its_name_or_a_quantifier_approves(spec: str, quality: str) -> None:
    verdict = parse_verdict(_two_stage_review(spec, quality))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize(
    ("spec", "quality"),
    [
        ("## Spec compliance verdict: PASS", "## Code quality verdict: FAIL"),
        ("## Spec compliance verdict: PASS", "## Code quality verdict: PASS once lint passes"),
        ("## Spec compliance\n✅ All passed", "## Code quality\n❌ All failed"),
        ("## 规格合规性\n✅ 全部通过", "## 代码质量\n✅ 全部通过（修复测试后）"),
        ("## 规格合规性\n✅ 全部通过", "## 代码质量\n整体需要修改"),
    ],
)
def test_a_stage_that_says_no_or_sets_a_condition_still_refuses(spec: str, quality: str) -> None:
    assert parse_verdict(_two_stage_review(spec, quality)).decision is not A


@pytest.mark.parametrize(
    "answer",
    ["All approved, once CI is green", "All passed but the schema must be reverted", "all fail"],
)
def test_the_all_lead_in_keeps_conditions_and_noes(answer: str) -> None:
    assert parse_verdict(f"**Verdict:** {answer}\n").decision is not A
