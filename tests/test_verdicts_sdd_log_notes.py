"""Issue 23, session 23: an SDD run's log holds one entry per task, each of fields — its two
stages as bold-labelled lines or list items, its status, commits, steps. A free paragraph or
list item beside those fields, or in the sections after the log, is an unrecognised sentence
beside approving stages: it must appraise the change or the log does not approve (the rule
of a BMAD gate file's fields and of the text after a GSD signature). What a sentence says is
not read to find it: its place and shape are."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

BOLD_ENTRY = (
    "### Task {n}: {title}\n\n**Spec review:** ✅ Spec compliant\n\n**Code quality:** ✅ Approved\n"
)
LIST_ENTRY = (
    "### Task {n}: {title}\n\n- **Status:** COMPLETED\n- **Implementer commit(s):** `4be07c1`\n"
    "- **Spec review:** ✅ compliant\n- **Quality review:** ✅ APPROVED\n- **Fix rounds:** 0\n"
)


def _log(entry: str) -> str:
    return (
        "# SDD log — invoice export\n\n"
        + entry.format(n=1, title="Invoice query")
        + "\n"
        + entry.format(n=2, title="CSV writer")
    )


# Unrecognised sentences in wordings the readers of text after an approval do not weigh: a
# defect told as a plain fact, a part left unread.
NOTES = [
    "The CSV writer truncates invoice totals above one million to six digits.",
    "Invoice rows for archived customers come back twice in the export.",
    "I looked at the query module; the writer I skipped.",
    "The upload step gives up after the first timeout.",
    "The PDF renderer changes were not part of what I read.",
]


def _placed(entry: str, note: str, place: str) -> str:
    first = entry.format(n=1, title="Invoice query")
    second = entry.format(n=2, title="CSV writer")
    head = "# SDD log — invoice export\n\n"
    return {
        "between_entries": head + first + "\n" + note + "\n\n" + second,
        "item_in_entry": head + first + "- " + note + "\n\n" + second,
        "after_the_last_entry": head + first + "\n" + second + "\n" + note + "\n",
        "notes_section_after": head + first + "\n" + second + "\n## Remarks\n\n" + note + "\n",
        "lead_in_word": head + first + "\nRemark: " + note + "\n\n" + second,
    }[place]


PLACES = [
    "between_entries",
    "item_in_entry",
    "after_the_last_entry",
    "notes_section_after",
    "lead_in_word",
]


@pytest.mark.parametrize("entry", [BOLD_ENTRY, LIST_ENTRY], ids=["bold_lines", "list_items"])
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("note", NOTES)
def test_a_free_note_in_an_sdd_log_keeps_its_stages_from_approving(
    entry: str, place: str, note: str
) -> None:
    verdict = parse_verdict(_placed(entry, note, place), strict=True)
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_free_note_at_any_line_of_the_log_is_weighed(data: st.DataObject) -> None:
    """Property: the note weighs wherever it stands between the first entry and the end."""
    lines = _log(LIST_ENTRY).split("\n")
    first_entry = next(i for i, line in enumerate(lines) if line.startswith("### Task"))
    at = data.draw(st.integers(min_value=first_entry + 1, max_value=len(lines)))
    note = data.draw(st.sampled_from(NOTES))
    text = "\n".join([*lines[:at], "", note, "", *lines[at:]])
    assert parse_verdict(text, strict=True).decision is not A, text


@pytest.mark.parametrize(
    "text",
    [
        _log(BOLD_ENTRY),
        _log(LIST_ENTRY),
        # a field whose value is the list below it, a checked step, an appraising note
        _log(
            LIST_ENTRY.replace(
                "- **Status:** COMPLETED\n",
                "- [x] Step 3: Run the export suite\n- **Files changed:**\n"
                "  - `export/csv.py` — streams rows instead of building one string\n"
                "- **Status:** COMPLETED\n",
            )
            + "\nAll 42 export tests pass.\n"
        ),
        _log(LIST_ENTRY) + "\nCommit: `9e98ea9f`\n",
    ],
    ids=["bold_lines", "list_items", "field_list_step_appraisal", "plain_data_field"],
)
def test_a_log_of_fields_only_still_approves(text: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(text, strict=strict)
        assert verdict.decision is A, (strict, verdict.reasons)


def test_a_task_review_whose_stages_are_headings_is_no_log() -> None:
    """The stage's own section is its review: a description there is read as before."""
    text = (
        "# Task 4 review\n\n## Spec compliance: PASS\n\n"
        "The writer streams rows and closes the file in a finally block.\n\n"
        "## Code quality: Approved\n\nSmall, readable diff.\n"
    )
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("task_id", ["A1", "2.3", "#4", "-12"])
def test_a_log_entry_named_by_any_task_id_holds_fields_only(task_id: str) -> None:
    """A run's log names its tasks by the plan's ids ('Task A1', 'Task 2.3')."""
    entry = BOLD_ENTRY.replace("Task {n}", f"Task {task_id}{{n}}")
    note = "The upload step gives up after the first timeout."
    verdict = parse_verdict(_placed(entry, note, "between_entries"), strict=True)
    assert verdict.decision is Decision.MALFORMED, verdict.reasons
    assert parse_verdict(_log(entry), strict=True).decision is A
