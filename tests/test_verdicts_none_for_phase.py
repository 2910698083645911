"""Issue 23, session 20: "None for Phase 3" empties a section like "None." does.

GSD verifiers scope their "none" to the phase the report is about ('None for Phase 3 — the
phase adds a parser and its tests; nothing to look at by hand.'). The scope names the unit
of work the report covers; anything after it is still read (a contrast or an instruction
keeps the section non-empty).
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._templates._none import says_none

A = Decision.APPROVE


def _report(human: str) -> str:
    return (
        "---\nphase: 03-parser\nstatus: passed\nscore: 6/6 must-haves verified\n---\n\n"
        "# Phase 3: Parser Verification Report\n\n**Status:** passed\n\n"
        f"### Human Verification Required\n\n{human}\n\n### Gaps Summary\n\nNo gaps found.\n"
    )


@pytest.mark.parametrize(
    "human",
    [
        "None for Phase 3.",
        "None for this phase — it adds a parser and its unit tests; no UI, no network.",
        "_None for plan 03-02._",
    ],
)
def test_none_scoped_to_the_phase_is_empty(human: str) -> None:
    assert parse_verdict(_report(human)).decision is A


@pytest.mark.parametrize(
    "human",
    [
        "None for Phase 3 — but open the import dialog by hand before release.",
        # (a check for a person alone no longer blocks under `passed`: session 22)
        "None for Phase 3. 1. The error colours are wrong in a terminal; do not merge.",
        "None for Phase 3 except the Windows path check.",
    ],
)
def test_what_follows_the_scoped_none_is_still_read(human: str) -> None:
    assert parse_verdict(_report(human)).decision is not A


@pytest.mark.parametrize(
    ("text", "empty"),
    [("None for Phase 1.", True), ("- None found for plan 02-03", True), ("None for users", False)],
)
def test_says_none_scope(text: str, empty: bool) -> None:
    assert says_none(text) is empty
