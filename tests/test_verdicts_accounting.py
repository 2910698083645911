"""Approval by allow-list of the whole document (`mergegate.verdicts._accounting`), and the
hostile classes it closes: headings read as a new round, a "no" under a heading that looks
like instructions, conditions in a third table cell, a footnote or above the verdict, and
approvals scoped to a part of the change. Each hostile class has several variants written
from the class, and genuine twins that still approve."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, M = Decision.APPROVE, Decision.MALFORMED

# A heading that is not a review: what follows it does not supersede the no before it.
NOT_A_NEW_ROUND = {
    "updated_files": (
        "## Review\n\n**Verdict:** REJECT — the migration drops the users table.\n\n"
        "## Updated files\n\n- db/migrate.py\n\n**Verdict:** APPROVE\n"
    ),
    "edit_history": (
        "**Ready to merge?** No\n\nThe cache is never invalidated.\n\n### Edit history\n\n"
        "**Ready to merge?** Yes\n"
    ),
    "round_notes": (
        "## Review\n\nVerdict: REQUEST CHANGES\n\n## Round 2 notes\n\nVerdict: APPROVE\n"
    ),
    "update_typo": "Verdict: REJECT\n\n## Update: fixed a typo in the README\n\nVerdict: APPROVE\n",
    "follow_up_questions": "**Status:** FAIL\n\n## Follow-up questions\n\n**Status:** PASS\n",
    "edited_wording": (
        "Decision: REJECTED\n\n### Edited wording of the summary\n\nDecision: APPROVED\n"
    ),
    "iteration_changelog": "Verdict: REJECT\n\n## Iteration 2 changelog\n\nVerdict: APPROVE\n",
}
NEW_ROUND_TWINS = {
    "re_review": (
        "## Review\n\n**Verdict:** REJECT — the migration drops the users table.\n\n"
        "## Re-review after fixes\n\nThe migration now keeps the table.\n\n**Verdict:** APPROVE\n"
    ),
    "round_2": "## Review\n\nVerdict: REQUEST CHANGES\n\n## Round 2\n\nVerdict: APPROVE\n",
    "round_2_verdict": (
        "## Review\n\nVerdict: REQUEST CHANGES\n\n## Round-2 verdict\n\nVerdict: APPROVE\n"
    ),
    "follow_up_review": "Verdict: REJECT\n\n## Follow-up review\n\nVerdict: APPROVE\n",
    "update": "Verdict: REJECT\n\n## Update\n\nVerdict: APPROVE\n",
}

# A heading that looks like instructions or an example does not hide the reviewer's no.
NO_UNDER_INSTRUCTION_HEADING = {
    "usage": (
        "## Usage\n\nReady to merge? No — the migration deletes user data.\n\n"
        "## Assessment\n\n**Ready to merge?** Yes\n"
    ),
    "prompt_injection": (
        "## Prompt injection\n\nThe endpoint runs shell input. Do not merge.\n\n"
        "## Verdict\n\n**Verdict:** APPROVE\n"
    ),
    "zh_test_cases": "## 测试用例\n\n结论：不通过，测试失败。\n\n## 结论\n\n结论：通过\n",
    "example": (
        "### Example\n\nThe tests fail on CI; this must not be merged.\n\n"
        "### Verdict\n\nVerdict: APPROVED\n"
    ),
    "expected_output": (
        "## Expected output\n\nVerdict: REJECT\n\n## Verdict\n\n**Verdict:** APPROVED\n"
    ),
    "template": "## Template\n\n**Status:** FAIL\n\n## Result\n\n**Status:** PASS\n",
}
# A line that looks like an instruction or an example is still the reviewer's text.
NO_IN_INSTRUCTION_LINE = {
    "for_example": (
        "## Summary\n\nFor example, the tests fail on CI, so do not merge this.\n\n"
        "## Verdict\n\nVerdict: APPROVE\n"
    ),
    "you_should": (
        "## Notes\n\nYou should not merge this: the tests fail.\n\n**Verdict:** APPROVED\n"
    ),
}
INSTRUCTION_HEADING_TWINS = {
    "usage_in_code": (
        "## Usage\n\n```\nmergegate parse review.md\n```\n\n## Assessment\n\n"
        "**Ready to merge?** Yes\n"
    ),
    "usage_prose": (
        "## Enum design & usage\n\nThe enum is small and well named.\n\n"
        "## Verdict\n\n**Verdict:** APPROVED\n"
    ),
    "formatting_heading": (
        "## Formatting & style\n\nBlack formatting throughout.\n\n**Verdict:** APPROVED\n"
    ),
}

# Conditions where the verdict's readers did not look: a third cell of its table row, a
# footnote, prose above it outside any section.
CONDITION_ELSEWHERE = {
    "third_cell": (
        "## Result\n\n| Field | Value | Note |\n|---|---|---|\n"
        "| Verdict | APPROVED | after CI is green |\n"
    ),
    "third_cell_first_row": (
        "| Verdict | APPROVED | only once the migration is reverted |\n|---|---|---|\n"
    ),
    "third_cell_emoji": (
        "| | | |\n|---|---|---|\n| **Verdict** | ✅ APPROVED | the DBA signs off first |\n"
    ),
    "footnote_condition": (
        "**Verdict:** APPROVED[^a]\n\n## Strengths\n\n- Good tests.\n\n"
        "[^a]: Conditional on the legal review.\n"
    ),
    "footnote_assuming": "Verdict: APPROVE[^1]\n\n[^1]: Assuming the DBA agrees.\n",
    "above_sign_off": "The DBA still has to sign off on this.\n\n**Verdict:** APPROVED\n",
    "above_hold": "Hold this until Friday's freeze lifts.\n\nVerdict: APPROVE\n",
    "above_under_title": (
        "# Review\n\nNeeds a second look from security first.\n\n**Ready to merge?** Yes\n"
    ),
}
CONDITION_TWINS = {
    "two_cells": (
        "## Result\n\n| Field | Value |\n|---|---|\n| Verdict | APPROVED |\n| Tests | 42 |\n"
    ),
    "date_cell": "| Verdict | APPROVED | 2026-01-02 |\n|---|---|---|\n",
    "summary_section_above": (
        "## Summary\n\nThe change adds pagination to the list endpoint.\n\n**Verdict:** APPROVED\n"
    ),
    "prose_after": "**Verdict:** APPROVED\n\nThe change adds pagination to the list endpoint.\n",
    "metadata_above": (
        "# Code review\n\n**Reviewer:** bot\n**Date:** 2026-01-02\n\n**Verdict:** APPROVED\n"
    ),
    "introduction_of_sections": (
        "# Code review\n\nRange a1b2c3..d4e5f6. Read-only review.\n\n## Strengths\n\n"
        "- Clean code.\n\n## Verdict\n\n**Verdict:** APPROVED\n\n— reviewer-bot\n"
    ),
    "command_echo": (
        "### Assessment\n\n**Ready to merge?** Yes\n\n**Reasoning:** All criteria met.\n\n"
        "ssf review --report r.md --verdict pass\n"
    ),
}

# An approval of a part is not an unconditional approval of the whole change: `malformed`
# (the whole change has no verdict; there is nothing to fix either).
PARTIAL_SCOPE = {
    "phase": "**Verdict:** approve for Phase 2\n",
    "package_only": "**Verdict:** APPROVED (`packages/web` only)\n",
    "docs_part": "LGTM for the docs part\n",
    "backend": "**Ready to merge?** Yes for the backend\n",
    "phase_only": "**Status:** PASS (phase 1 only)\n",
    "only_for": "Verdict: APPROVE, only for the frontend changes\n",
    # A part left out is a scope too.
    "not_part": "**Verdict:** APPROVED — not the migration\n",
    "excluding": "**Verdict:** LGTM, excluding `packages/api`\n",
    "apart_from": "## Verdict\n\n**APPROVED** - apart from the backend part\n",
    "but_not_for": "Verdict: APPROVE, but not for the billing module\n",
    "other_than": "**Ready to merge?** Yes, other than the schema change\n",
    # A part counted against the whole.
    "fraction": "LGTM on 3 of 5 commits; the last two are WIP.\n",
    "fraction_slash": "**Verdict:** APPROVED for 2/4 tasks\n",
    "fraction_files": "**Ready to merge?** Yes — 1 out of 3 files reviewed\n",
    # The scope after an em dash, at the end of the clause, or in the next sentence.
    "em_dash_for": "**Verdict:** APPROVED — for Phase 2\n",
    "em_dash_half_only": "**Ready to merge?** Yes — for the frontend half only\n",
    "part_only": "**Ready to merge?** Yes, the web part only\n",
    "next_sentence_only": "**Ready to merge?** Yes. The `packages/web` part only.\n",
}
SCOPE_TWINS = {
    "execution": "**Status:** ✅ **APPROVED FOR PHASE 5 EXECUTION**\n",
    "merge": "**Verdict:** APPROVED for merge\n",
    "this_pr": "LGTM for this PR\n",
    "deliverable": "## Verdict\n\n**Ready to merge for the local deliverable**\n",
    # The verdict word stands alone, bold, and a dash brings its reason.
    "bold_word_reason": "## Verdict\n\n**APPROVED** — no blocking issues, no major findings.\n",
    "bold_word_praise": "## Verdict\n\n**APPROVED** - a careful, well-tested change.\n",
    "nothing_blocking": "**Verdict:** APPROVED — nothing blocking\n",
    "notable": "**Verdict:** APPROVED — notable cleanup of the parser\n",
}

# A stage table whose notes column qualifies one stage's pass: the note reads as if it were
# written in the pass's own cell ('PASS once …' asks for fixes).
STAGE_NOTE_CONDITION = {
    "once": "once the lockfile is regenerated",
    "pending": "pending the security sign-off",
    "but": "but the README must be updated first",
    "needs": "needs a follow-up for the docs",
}
STAGE_NOTE_TWINS = {
    "evidence": "All 12 requirements met",
    "empty": "",
    "command": "verified with pytest -k retry",
}


def _stage_table(note: str) -> str:
    return (
        "| Stage | Result | Notes |\n|---|---|---|\n| Spec | ✅ PASS | |\n"
        f"| Quality | ✅ PASS | {note} |\n\n**Verdict:** APPROVED\n"
    )


@pytest.mark.parametrize("name", sorted(STAGE_NOTE_CONDITION))
def test_a_condition_in_a_stage_notes_cell_keeps_the_pass_from_approving(name: str) -> None:
    verdict = parse_verdict(_stage_table(STAGE_NOTE_CONDITION[name]))
    assert verdict.decision is Decision.FIXES, verdict.reasons


@pytest.mark.parametrize("name", sorted(STAGE_NOTE_TWINS))
def test_a_stage_note_without_a_condition_still_approves(name: str) -> None:
    verdict = parse_verdict(_stage_table(STAGE_NOTE_TWINS[name]))
    assert verdict.decision is A, verdict.reasons


HOSTILE = {
    **NOT_A_NEW_ROUND,
    **NO_UNDER_INSTRUCTION_HEADING,
    **NO_IN_INSTRUCTION_LINE,
    **CONDITION_ELSEWHERE,
    **PARTIAL_SCOPE,
}
TWINS = {**NEW_ROUND_TWINS, **INSTRUCTION_HEADING_TWINS, **CONDITION_TWINS, **SCOPE_TWINS}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_document_is_not_approved(name: str) -> None:
    verdict = parse_verdict(HOSTILE[name])
    assert verdict.decision is not A, verdict.reasons
    assert verdict.evidence is not None, "every refusal names its line"


@pytest.mark.parametrize("name", sorted(TWINS))
def test_genuine_twin_approves(name: str) -> None:
    verdict = parse_verdict(TWINS[name])
    assert verdict.decision is A, (verdict.reasons, verdict.warnings)


@pytest.mark.parametrize("name", sorted(NO_UNDER_INSTRUCTION_HEADING))
def test_a_no_under_an_instruction_heading_is_named(name: str) -> None:
    """The refusal points at the line under the heading, not at the approval."""
    verdict = parse_verdict(NO_UNDER_INSTRUCTION_HEADING[name])
    assert verdict.decision is M
    assert verdict.evidence is not None
    assert verdict.evidence.line == 3


@pytest.mark.parametrize("name", sorted(CONDITION_ELSEWHERE))
def test_an_unaccounted_condition_is_malformed_with_its_line(name: str) -> None:
    verdict = parse_verdict(CONDITION_ELSEWHERE[name])
    assert verdict.decision is M, verdict.reasons
    assert verdict.evidence is not None
    assert "not accounted for" in verdict.reasons[0]


@pytest.mark.parametrize("name", sorted(PARTIAL_SCOPE))
def test_a_partial_scope_is_malformed(name: str) -> None:
    verdict = parse_verdict(PARTIAL_SCOPE[name])
    assert verdict.decision is M
    assert "part of the change" in " ".join(verdict.reasons)


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_SENTENCE = st.lists(_WORD, min_size=2, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")


@settings(max_examples=60, deadline=None)
@given(_SENTENCE)
def test_any_sentence_above_a_sectionless_verdict_is_not_approved(sentence: str) -> None:
    """Whatever a sentence above the verdict says, outside any section it may qualify it."""
    verdict = parse_verdict(sentence + "\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is not A


@settings(max_examples=60, deadline=None)
@given(_SENTENCE)
def test_any_sentence_right_above_a_sectionless_verdict_is_not_approved(sentence: str) -> None:
    """No blank line between them: the sentence is still its own, not the verdict's line."""
    verdict = parse_verdict(sentence + "\n**Verdict:** APPROVED\n")
    assert verdict.decision is not A, verdict.reasons


@settings(max_examples=60, deadline=None)
@given(
    _SENTENCE, st.sampled_from(["Date: 2026-11-27", "**Reviewer:** review-bot", "Commit: a1b2c3d"])
)
def test_any_sentence_in_a_metadata_paragraph_is_read_on_its_own(sentence: str, meta: str) -> None:
    """A metadata line's value does not swallow the next sentence of its paragraph: a line
    that opens a sentence of its own above the verdict is prose like any other."""
    verdict = parse_verdict(f"Reviewer: review-bot\n{meta}\n{sentence}\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize(
    "value",
    ["**Files reviewed:** `src/a.py`, `src/b.py`,\n`src/c.py`", "Scope: the parser\nand its tests"],
)
def test_a_metadata_value_that_wraps_is_still_metadata(value: str) -> None:
    verdict = parse_verdict(f"# Code review\n\n{value}\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is A, verdict.reasons


# A verdict label as a table cell writes it: a question mark, a colon, bold.
_ROW_LABEL = st.sampled_from(
    ["Verdict", "Ready to merge?", "**Ready to merge?**", "Decision:", "**Verdict**", "Status"]
)
_ROW_ANSWER = st.sampled_from(["APPROVED", "Yes", "✅ PASS", "**LGTM**"])


@settings(max_examples=100, deadline=None)
@given(_ROW_LABEL, _ROW_ANSWER, _SENTENCE)
def test_any_words_beside_the_verdict_in_its_row_are_not_approved(
    label: str, answer: str, sentence: str
) -> None:
    text = f"| Field | Value | Note |\n|---|---|---|\n| {label} | {answer} | {sentence} |\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize("label", ["Verdict", "Ready to merge?", "**Decision:**", "Status"])
def test_a_verdict_row_alone_still_approves(label: str) -> None:
    text = f"| Field | Value |\n|---|---|\n| {label} | APPROVED |\n"
    assert parse_verdict(text).decision is A


@settings(max_examples=60, deadline=None)
@given(_SENTENCE)
@example("Approve a.")  # a footnote that is itself a verdict (hypothesis found it)
@example("LGTM.")
def test_any_footnote_keeps_an_approval_from_standing(sentence: str) -> None:
    text = "## Summary\n\nFine.\n\n**Verdict:** APPROVED[^1]\n\n[^1]: " + sentence + "\n"
    assert parse_verdict(text).decision is not A


@pytest.mark.parametrize(
    "text",
    [
        "**Verdict:** APPROVED — 5 of 5 tasks done\n",
        "**Ready to merge?** Yes — 12/12 files reviewed\n",
    ],
)
def test_a_whole_counted_as_a_fraction_still_approves(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
