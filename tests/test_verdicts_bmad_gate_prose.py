"""A BMAD gate file is YAML read whole by its recogniser, so every line at its left margin is
a comment, a `key:`, a document marker or an item of a list a key just opened. A sentence
there — added after the last field, under a `## Notes` comment, as a stray list item — is
outside every field: YAML would not load it and a person sees it beside `gate: PASS`, so the
file is not fully accounted for and does not approve (`docs/verdicts.md`, BMAD)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

GATE = """# Quality Gate: Story 3.2 - Export Scheduler
schema: 1
story: "3.2"
story_title: "Export Scheduler"
gate: PASS
status_reason: "All five acceptance criteria are met and the scheduler tests cover retries."
reviewer: "Quinn (Test Architect)"
updated: "2026-03-02T10:00:00Z"

waiver: { active: false }

top_issues: []

evidence:
  tests_reviewed: 14
  risks_identified: 0

recommendations:
  immediate: []
  future:
    - action: "Consider a metric for skipped exports"
      refs: ["src/export/scheduler.ts"]
"""

STRAY = {
    "sentence": "\nThe nightly export double-sends when two workers start in the same second.\n",
    "spaced_key": "\nRetention of old exports: nobody owns the purge job.\n",
    "under_heading": "\n## Reviewer notes\n\nThe backfill job has never run on staging.\n",
    "item_after_mapping": "\n- Exports to S3 skip encryption at rest.\n",
}


@pytest.mark.parametrize("name", list(STRAY))
def test_text_outside_every_gate_field_keeps_pass_from_approving(name: str) -> None:
    verdict = parse_verdict(GATE + STRAY[name])
    assert verdict.decision is Decision.MALFORMED, verdict.reasons
    assert any("outside every gate field" in r for r in verdict.reasons), verdict.reasons


def test_prose_above_the_fields_is_outside_them_too() -> None:
    verdict = parse_verdict("Reviewed in a hurry, most files unread.\n" + GATE)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "shape",
    [
        GATE,
        "\ufeff" + GATE,  # a byte-order mark before the title comment
        GATE.replace(
            "top_issues: []",
            "top_issues:\n- id: DOC-1\n  severity: low\n"
            '  finding: "README lacks the cron syntax"\n- id: DOC-2\n'
            '  severity: low\n  finding: "Typo in a log line"',
        ),
        GATE + "\n# Gate decided after the second review pass.\n",
        GATE.replace("evidence:\n  tests_reviewed", "evidence:\n tests_reviewed"),
        "---\n" + GATE + "...\n",
    ],
    ids=["plain", "bom", "margin_list_after_key", "trailing_comment", "odd_indent", "markers"],
)
def test_a_gate_file_of_fields_only_still_approves(shape: str) -> None:
    verdict = parse_verdict(shape)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


# A margin line a person reads as a sentence: words with a space before any colon.
_WORD = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu")), min_size=1, max_size=9)
_SENTENCE = st.lists(_WORD, min_size=2, max_size=8).map(" ".join)
_MARGINS = [i for i, line in enumerate(GATE.splitlines()) if line and not line[0].isspace()]
_STOP = st.sampled_from(["", ".", ":", "!"])


@settings(max_examples=150, deadline=None)
@given(sentence=_SENTENCE, at=st.sampled_from(_MARGINS), stop=_STOP)
def test_no_sentence_at_any_margin_of_a_pass_gate_approves(
    sentence: str, at: int, stop: str
) -> None:
    lines = GATE.splitlines()
    lines.insert(at + 1, sentence + stop)
    verdict = parse_verdict("\n".join(lines) + "\n")
    assert verdict.decision is not Decision.APPROVE, (sentence, at, verdict.reasons)
