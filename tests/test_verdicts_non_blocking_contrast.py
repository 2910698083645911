"""Issue 23, session 20: a contrast beside the answer that declares itself non-blocking.

`APPROVED, but the log prefix differs from the other jobs — non-blocking` and
`通过，但日志前缀与其他任务不一致，不阻塞合并` approve: the corpus rule keeps an approval whose
extras are explicitly non-blocking. What the contrast says besides the declaration is read
like a sentence after the approval, so an instruction, an obligation, a condition, a defect,
a hedge or a partial scope still refuses — the declaration is not a pass.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _review(verdict: str) -> str:
    return f"# Review of the log rotation\n\n**Verdict:** {verdict}\n"


@pytest.mark.parametrize(
    "verdict",
    [
        "APPROVED, but the log prefix differs from the other jobs — non-blocking.",
        "APPROVED, though the rotation test is slow; not blocking.",
        "LGTM, but two comments still say 'daily' — not a blocker.",
        "通过，但日志前缀与其他任务不一致，不阻塞合并。",
        "通过，不过轮转测试偏慢，不阻塞。",
    ],
)
def test_a_declared_non_blocking_contrast_approves(verdict: str) -> None:
    assert parse_verdict(_review(verdict)).decision is A


@pytest.mark.parametrize(
    "verdict",
    [
        # an instruction, an obligation, a condition: the declaration does not excuse them
        "APPROVED, but rename the rotate flag first — non-blocking.",
        "APPROVED, but you must add a size cap — not a blocker.",
        "APPROVED, but merge only after the cron change lands — non-blocking.",
        "通过，但必须先补充轮转测试，不阻塞。",
        # a defect of the change now, a partial review, a hedge, a review still to come
        "APPROVED, but rotation crashes on an empty log file — not blocking.",
        "APPROVED, but only the config part was reviewed — non-blocking.",
        "APPROVED, but maybe the handle leaks — non-blocking.",
        "APPROVED, but I have not run the rotation tests yet — non-blocking.",
        # no declaration: a contrast in the answer's clause stays a condition
        "APPROVED, but the log prefix differs from the other jobs.",
        "通过，但日志前缀与其他任务不一致。",
    ],
)
def test_the_rest_of_a_non_blocking_contrast_is_still_read(verdict: str) -> None:
    assert parse_verdict(_review(verdict)).decision is not A


@pytest.mark.parametrize(
    "section",
    ["通过。日志前缀与其他任务不一致，但不阻塞。", "通过。轮转测试偏慢，不过不影响合并。"],
)
def test_a_cjk_full_stop_ends_the_answer_sentence(section: str) -> None:
    """'通过。' then a sentence: the full stop needs no space after it to end the answer."""
    assert parse_verdict(f"# 审查\n\n## 结论\n\n{section}\n").decision is A


@pytest.mark.parametrize("section", ["通过。但必须先补充轮转测试。", "通过。修复测试后再合并。"])
def test_a_cjk_sentence_after_the_answer_is_still_read(section: str) -> None:
    assert parse_verdict(f"# 审查\n\n## 结论\n\n{section}\n").decision is not A


@pytest.mark.parametrize(
    "line", ["The size cap is hard-coded — not a blocker.", "Two log lines repeat; non-blocking."]
)
def test_a_non_blocking_declaration_after_a_dash_is_a_statement(line: str) -> None:
    """'… — not a blocker.' read as its own clause opens with a negator, not a verb."""
    text = f"# Review\n\n**Verdict:** APPROVED\n\n{line}\n"
    assert parse_verdict(text).decision is A


def test_a_blocker_after_a_dash_still_blocks() -> None:
    text = "# Review\n\n**Verdict:** APPROVED\n\nThe size cap is hard-coded — a blocker.\n"
    assert parse_verdict(text).decision is not A
