"""AgentRail's Japanese task review (`work/<task-id>/review.md`): numbered sections with
fields. Acceptance criteria and test results answer PASS; `重大` (critical) says `なし` (none);
the conclusion judges the task's state (`本タスクは `done` 判定とする。`); process findings and
commit boundaries follow as fields. Only a filled-in review whose every field passes and whose
conclusion judges the task `done` approves; the template's own skeleton (PENDING, "final
judgement after implementation") is not a verdict."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(
    *,
    ac: str = "PASS",
    result: str = "PASS",
    critical: str = "なし",
    suggestion: str = "出力を JSON にも対応させる",
    conclusion: str = "本タスクは `done` 判定とする。",
    severity: str = "low",
    action: str = "no",
    scope: str = "PASS",
) -> str:
    return f"""# Review: 2026-03-01__add-parser

## 1. レビュー対象

- `tools/parser/parse.ps1`

## 2. 受入条件評価

- AC-001: PASS
- AC-002: {ac}

## 3. テスト結果

### Unit Test

- 実施内容: 入力検証ロジックの確認
- 結果: PASS

### Regression Test

- 実施内容: `check.ps1 -TaskId 2026-02-18__pilot` を実行
- 結果: {result}

## 4. 指摘事項

- 重大: {critical}
- 改善提案:
  - {suggestion}

## 5. 結論

- {conclusion}

## 6. Process Findings

### 6.1 Finding F-001

- finding_id: F-001
- category: quality
- severity: {severity}
- summary: 文字列の展開方法を統一した方が安全。
- evidence: parser error が発生していた。
- action_required: {action}
- linked_task_id: none

## 7. Commit Boundaries

### 7.1 Kickoff Commit

- commit: 9db70a5
- scope_check: PASS

### 7.2 Implementation Commit

- commit: 1a2b3c4
- scope_check: {scope}
"""


def test_a_filled_review_judged_done_approves() -> None:
    verdict = parse_verdict(_review())
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "agentrail"


@pytest.mark.parametrize(
    "fields",
    [
        {"ac": "FAIL"},
        {"ac": "PENDING"},
        {"result": "FAIL"},
        {"result": "PENDING"},
        {"critical": "`parse.ps1:12` で入力が検証されない"},
        {"critical": "なし (ただし CI 未確認)"},
        {"conclusion": "本タスクは `blocked` 判定とする。"},
        {"conclusion": "実装後に最終判定する。"},
        {"conclusion": "本タスクは `done` 判定とする。ただし CI の確認後にマージする。"},
        {"conclusion": "parser blocker は解消済み。次のタスクへ着手可能。"},
        {"severity": "high"},
        {"action": "yes"},
        {"scope": "FAIL"},
        {"scope": "PENDING"},
    ],
)
def test_a_field_that_does_not_pass_keeps_the_review_from_approving(
    fields: dict[str, str],
) -> None:
    verdict = parse_verdict(_review(**fields))
    assert verdict.decision is not A, verdict.reasons


def test_the_template_skeleton_is_not_a_verdict() -> None:
    skeleton = _review(ac="PENDING", result="PENDING", conclusion="実装後に最終判定する。")
    assert parse_verdict(skeleton).decision is Decision.MALFORMED


def test_prose_after_the_conclusion_is_still_read() -> None:
    text = _review() + "\n## 8. 追記\n\nマージ前にセキュリティ修正が必要。\n"
    assert parse_verdict(text).decision is not A
