"""A list under a label that grades it low ('Suggestions:', '- Minor:', '改善提案:') after an
approval is graded by that label, like an item that carries the label inline ('Minor: …'):
not a finding the approval has not weighed. What the items say is still read (a defect stated
there, blocking prose), and the list ends at the first line that is not one of its items."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
_HEAD = "## Verdict\n\n**Verdict:** APPROVE\n\n## Findings\n\n- Critical: none\n"

GRADED = [
    "- Suggestions:\n  - add JSON output to the checker\n  - rename `run_all`\n",
    "\n**Suggestions:**\n- add JSON output to the checker\n",
    "- Minor:\n  - the log line could name the file\n",
    "- 改善提案:\n  - checker 出力を JSON にも対応させる\n",
    "- 제안:\n  - 로그에 파일 이름 추가\n",
]
NOT_GRADED = [
    # An item after the list, at the label's own depth, is a finding of the section again.
    "- Suggestions:\n  - add JSON output\n- `auth.py:3` leaks the session token\n",
    # A paragraph ends the list under a paragraph label.
    "\n**Suggestions:**\n- add JSON output\n\nThe token is logged in `auth.py:3`.\n"
    "- `db.py:9` drops a table\n",
    # What an item states is still read.
    "- Suggestions:\n  - the migration drops the users table\n",
    "- Minor:\n  - must be fixed before merge: the token is logged\n",
]


@pytest.mark.parametrize("tail", GRADED)
def test_a_list_under_a_low_label_is_graded_by_it(tail: str) -> None:
    verdict = parse_verdict(_HEAD + tail)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("tail", NOT_GRADED)
def test_what_the_list_does_not_hold_is_still_read(tail: str) -> None:
    assert parse_verdict(_HEAD + tail).decision is not A


@pytest.mark.parametrize(
    ("tally", "expected"),
    [
        ("- 重大: なし\n- 改善提案:\n  - なし\n", A),
        ("- 심각: 없음\n", A),
        ("- 重大: 1\n", None),
        ("- 重大: ログにトークンが残る\n", None),
    ],
)
def test_japanese_and_korean_grades_tally_a_findings_section(
    tally: str, expected: Decision | None
) -> None:
    """'重大' (critical) and '심각' (severe) grade like 'Critical': a zero tally under them is
    an empty section; anything else under them is a finding."""
    verdict = parse_verdict("## 判定\n\n**判定:** PASS\n\n## 指摘事項\n\n" + tally)
    if expected is None:
        assert verdict.decision is not A
    else:
        assert verdict.decision is expected, verdict.reasons
