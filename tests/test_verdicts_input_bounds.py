"""Bounds no review reaches (issue 23, "Linear time"). A round with more approving verdict
statements than any review writes is not read as an approval: each statement's block and
clauses are read, so a text made of nothing but approvals cost seconds per MB. And only the
last `MAX_INPUT_LINES` lines of the window are read: a window of short lines cost seconds to
read line by line. Both fail closed: an approval past either bound never approves."""

from __future__ import annotations

from pathlib import Path

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._text import MAX_INPUT_CHARS, MAX_INPUT_LINES

_GATE = "gate: PASS\nstatus_reason: 'all checks green, nothing pending'\nnotes: fine\n"
_LINE = "Verdict: APPROVE\n"
_BULLET = "- **Ready to merge?** Yes\n"


@pytest.mark.parametrize("unit", [_GATE, _LINE, _BULLET], ids=["gate", "line", "bullet"])
def test_hundreds_of_approvals_in_one_round_are_malformed(unit: str) -> None:
    verdict = parse_verdict(unit * 300)
    assert verdict.decision is Decision.MALFORMED
    assert "no review writes so many" in verdict.reasons[0]
    assert not verdict.approved


@pytest.mark.parametrize("unit", [_LINE, _BULLET], ids=["line", "bullet"])
def test_a_review_with_a_few_approving_statements_is_read_as_before(unit: str) -> None:
    verdict = parse_verdict(unit * 20)
    assert all("no review writes so many" not in reason for reason in verdict.reasons)


def test_a_no_among_hundreds_of_approvals_still_names_the_decision() -> None:
    verdict = parse_verdict(_LINE * 300 + "Verdict: REJECT\n")
    assert verdict.decision is Decision.REJECT


def test_earlier_rounds_do_not_count_toward_the_limit() -> None:
    text = "## Review 1\n\n" + _LINE * 300 + "\n## Review 2\n\nVerdict: APPROVE\n"
    verdict = parse_verdict(text)
    assert all("no review writes so many" not in reason for reason in verdict.reasons)


def test_the_line_window_is_well_inside_the_character_window() -> None:
    # Otherwise the line bound would never cut anything the character bound keeps.
    assert MAX_INPUT_LINES * 2 < MAX_INPUT_CHARS


def test_an_approval_after_more_lines_than_the_window_never_approves() -> None:
    lines = MAX_INPUT_LINES + 10
    verdict = parse_verdict("x\n" * lines + "Ready to merge? Yes\n")
    assert verdict.decision is Decision.MALFORMED
    assert any("cut" in reason for reason in verdict.reasons)
    assert any(f"only the last {MAX_INPUT_LINES:,} lines" in w for w in verdict.warnings)
    # Evidence still points at the line of the whole input.
    assert verdict.evidence is not None
    assert verdict.evidence.line == lines + 1


def test_a_no_after_more_lines_than_the_window_still_stands() -> None:
    lines = MAX_INPUT_LINES + 10
    verdict = parse_verdict("x\n" * lines + "Ready to merge? No\n")
    assert verdict.decision is Decision.REJECT
    assert verdict.evidence is not None
    assert verdict.evidence.line == lines + 1


def test_a_long_review_inside_the_line_window_is_read_whole() -> None:
    lines = MAX_INPUT_LINES - 10
    verdict = parse_verdict("Checked.\n\n" * (lines // 2) + "Ready to merge? Yes\n")
    assert all("only the last" not in w for w in verdict.warnings)
    assert all("cut" not in reason for reason in verdict.reasons)


def test_the_line_window_holds_every_real_review_twice(shared_dir: Path) -> None:
    # The window bounds the time of an approval's reading; it must not bound real reviews:
    # an approval in a cut input never approves, so a window near a real review's length
    # would refuse genuine work.
    reviews = sorted((shared_dir / "corpus" / "reviews").glob("*.md"))
    assert reviews
    longest = max(
        len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in reviews
    )
    assert longest * 2 <= MAX_INPUT_LINES
