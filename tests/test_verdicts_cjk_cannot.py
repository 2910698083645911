"""Issue 23, session 20: a CJK approving word followed by "cannot" / "will not".

`承認不可` is "approval impossible", `承認できません` "cannot approve", `승인 불가` "approval not
possible": the approving word is negated by what follows it, so the value is a no — never the
approval its first characters spell.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("承認不可", R),
        ("承認できません", R),
        ("承認しない", R),
        ("合格不可", R),
        ("승인 불가", R),
        # the same words without the negation still approve
        ("承認", A),
        ("合格", A),
        ("승인", A),
    ],
)
def test_negated_cjk_approval_is_a_no(value: str, expected: Decision) -> None:
    text = f"# 設定画面のレビュー\n\n**判定:** {value}\n\nキャッシュの扱いを確認しました。\n"
    assert parse_verdict(text).decision is expected


@pytest.mark.parametrize("value", ["通过不能", "承認不可能です", "合格できない"])
def test_any_negated_cjk_approval_never_approves(value: str) -> None:
    text = f"# 审查\n\n**结论：** {value}\n"
    assert parse_verdict(text).decision is not A
