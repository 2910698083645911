"""superpowers' subagent-driven development task reviews: two stages, spec compliance then
code quality, each named and answered. Both stages answered yes is the whole task approved; a
stage answered no (or with a cross) is not; one stage alone never approves the task."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_BODY = "The implementation matches the brief; the tests cover each case.\n"


def _review(spec: str, quality: str, *, shape: str) -> str:
    if shape == "heading-colon":
        return (
            f"# Task 3 Review\n\n## Spec Compliance: {spec}\n\n{_BODY}\n"
            f"## Code Quality: {quality}\n\n{_BODY}"
        )
    if shape == "answer-below":
        return (
            f"# Task 3 review\n\n## Part 1: Spec compliance\n\n**{spec}**\n\n{_BODY}\n"
            f"## Part 2: Code quality\n\n**{quality}**\n\n{_BODY}"
        )
    if shape == "bold-labels":
        return f"# Task 3 Review\n\n**Spec: {spec}**\n\n**Quality: {quality}**\n{_BODY}"
    assert shape == "numbered-verdicts"
    return (
        f"# Task 3 Review\n\n## Verdict 1: Spec Compliance -- {spec}\n\n{_BODY}\n"
        f"## Verdict 2: Code Quality -- {quality}\n\n{_BODY}"
    )


_SHAPES = ("heading-colon", "answer-below", "bold-labels", "numbered-verdicts")


@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize(
    ("spec", "quality"), [("PASS", "PASS"), ("✅ Pass.", "Approved."), ("✅", "✅")]
)
def test_both_stages_approved_approve_the_task(shape: str, spec: str, quality: str) -> None:
    verdict = parse_verdict(_review(spec, quality, shape=shape))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
    assert verdict.dialect == "superpowers"


@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize(
    ("spec", "quality", "expected"),
    [
        ("PASS", "Needs changes.", Decision.FIXES),
        ("❌", "Approved.", Decision.FIXES),
        ("FAIL", "PASS", Decision.FIXES),
        ("PASS", "Changes requested", Decision.FIXES),
        ("✅", "❌ Approved", Decision.FIXES),
    ],
)
def test_a_stage_that_does_not_pass_keeps_the_task_from_approving(
    shape: str, spec: str, quality: str, expected: Decision
) -> None:
    verdict = parse_verdict(_review(spec, quality, shape=shape))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "text",
    [
        "# Task 3 review\n\n## Part 1: Spec compliance\n\n**✅ Pass.**\n\n" + _BODY,
    ],
)
def test_one_stage_alone_does_not_approve_the_task(text: str) -> None:
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_a_critical_finding_beside_two_passing_stages_is_blocking() -> None:
    text = _review("PASS", "PASS", shape="heading-colon") + (
        "\n### Critical\n\n- `auth.py:12`: the token is logged in plain text.\n"
    )
    assert parse_verdict(text).decision is Decision.FIXES


# A verdict line that answers both stages at once is the stage table on one line:
# '**Verdict:** Spec ✅ · Task quality **Approved**', '总体 verdict：Spec PASS；Quality APPROVED'.
_FINDINGS = "\n### Critical\n\nNone.\n\n### Minor\n\n- `a.py:3`: a name could be clearer.\n"


def _compound(line: str) -> str:
    return f"# Task 4 re-review\n\n{line}\n\n{_BODY}{_FINDINGS}"


@pytest.mark.parametrize(
    "line",
    [
        "**Verdict:** Spec ✅ · Task quality **Approved**",
        "**Verdict:** Spec PASS; Code quality APPROVED",
        "- **总体 verdict**：**Spec PASS；Quality APPROVED；可集成。**",
        "Overall verdict: Spec compliance ✅ | Code quality ✅",
        "**总体结论**：规格符合性 通过；代码质量 通过",
    ],
)
def test_a_verdict_line_answering_both_stages_approves(line: str) -> None:
    verdict = parse_verdict(_compound(line))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
    assert verdict.dialect == "superpowers"


@pytest.mark.parametrize(
    "line",
    [
        "**Verdict:** Spec ✅ · Task quality **Changes requested**",
        "**Verdict:** Spec ❌ · Task quality **Approved**",
        "**Verdict:** Spec PASS; Code quality APPROVED; not ready to merge",
        "**Verdict:** Spec PASS; Code quality APPROVED; fix the retry loop first",
        "- **总体 verdict**：**Spec PASS；Quality APPROVED；不可集成。**",
        "- **总体 verdict**：**Spec PASS；Quality 需要修改**",
        "**Verdict:** Spec PASS; Code quality APPROVED once the test is fixed",
        "**Verdict:** Spec PASS",
        "**Verdict:** Task quality **Approved**",
        "**Verdict:** Spec PASS; Spec PASS",
    ],
)
def test_a_compound_verdict_with_a_stage_or_clause_that_does_not_approve_refuses(
    line: str,
) -> None:
    verdict = parse_verdict(_compound(line))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_a_compound_verdict_does_not_hide_a_critical_finding() -> None:
    text = _compound("**Verdict:** Spec ✅ · Task quality **Approved**").replace(
        "### Critical\n\nNone.", "### Critical\n\n- `auth.py:12`: the token is logged."
    )
    assert parse_verdict(text).decision is not Decision.APPROVE
