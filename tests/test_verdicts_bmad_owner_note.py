"""Issue 23, session 21: BMAD's Recommended Status value with the template's own note.

The QA task's template writes its value with '(Story owner decides final status)' after it,
on the same line or the next. The note is the template's text, not the reviewer's: the
section is still 'Ready for Done'. The note alone is no value, and anything else in the
section is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _story(recommended: str) -> str:
    return (
        "# Story 4.2: Export Ledger\n\n## QA Results\n\n### Review Date: 2025-06-03\n\n"
        "### Reviewed By: Quinn (Test Architect)\n\n### Code Quality Assessment\n\n"
        "The exporter streams rows and is covered by unit tests.\n\n### Gate Status\n\n"
        "Gate: PASS → docs/qa/gates/4.2-export-ledger.yml\n\n"
        f"### Recommended Status\n\n{recommended}\n"
    )


@pytest.mark.parametrize(
    "recommended",
    [
        "✓ Ready for Done (Story owner decides final status)",
        "[✓ Ready for Done]\n(Story owner decides final status)",
        "✓ Ready for Done\n\n(Story owner decides the final status)",
    ],
)
def test_the_templates_note_beside_ready_for_done(recommended: str) -> None:
    assert parse_verdict(_story(recommended)).decision is A


@pytest.mark.parametrize(
    "recommended",
    [
        "(Story owner decides final status)",
        "✓ Ready for Done (Story owner decides final status once the CSV bug is fixed)",
        "✓ Ready for Done\n\n(Story owner decides final status)\n\nRe-run the export suite first.",
        "✗ Changes Required - See unchecked items above\n(Story owner decides final status)",
    ],
)
def test_anything_else_in_the_section_is_still_read(recommended: str) -> None:
    assert parse_verdict(_story(recommended)).decision is not A
