"""BMAD's QA gate file keeps an append-only `history:` list beside the top-level `gate:`.

The top-level gate is the current decision; the history's entries are older records (its
last entry is the latest). Before this rule every `gate:` line of the file was a verdict of
its own and "parts of one review do not outvote each other" refused a file whose first
review asked for fixes and whose re-review passed — the common life of a gate file."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _gate_file(top: str, history: list[str], *, top_issues: str = "[]") -> str:
    entries = "".join(
        f'  - at: "2026-01-0{n + 1}T10:00:00Z"\n    gate: {gate}\n    note: "review {n + 1}"\n\n'
        for n, gate in enumerate(history)
    )
    return (
        "# Quality Gate Decision for Story 3.2\n"
        "# Powered by BMAD™ Core\n\n"
        "schema: 1\n"
        'story: "3.2"\n'
        f"gate: {top}\n"
        'status_reason: "All acceptance criteria met; tests pass."\n'
        'reviewer: "Quinn (Test Architect)"\n'
        f"top_issues: {top_issues}\n\n"
        "nfr_validation:\n"
        "  security:\n"
        "    status: PASS\n\n"
        f"history:\n{entries}"
    )


@pytest.mark.parametrize(
    "history",
    [["CONCERNS", "PASS"], ["FAIL", "CONCERNS", "PASS"], ["PASS"], []],
    ids=["concerns-then-pass", "fail-concerns-pass", "pass", "no-history"],
)
def test_a_passed_gate_whose_history_ends_in_pass_approves(history: list[str]) -> None:
    verdict = parse_verdict(_gate_file("PASS", history))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("top", "history", "expected"),
    [
        ("CONCERNS", ["FAIL", "CONCERNS"], Decision.FIXES),
        ("FAIL", ["PASS", "FAIL"], Decision.REJECT),
        ("WAIVED", ["CONCERNS", "WAIVED"], Decision.FIXES),
    ],
)
def test_the_top_level_gate_decides_over_older_entries(
    top: str, history: list[str], expected: Decision
) -> None:
    assert parse_verdict(_gate_file(top, history)).decision is expected


@pytest.mark.parametrize("latest", ["CONCERNS", "FAIL"])
def test_a_pass_the_latest_history_entry_contradicts_does_not_approve(latest: str) -> None:
    verdict = parse_verdict(_gate_file("PASS", ["PASS", latest]))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("value", ["EXCELLENT", "GREEN", "OK"])
def test_a_top_level_gate_outside_the_four_values_is_malformed(value: str) -> None:
    verdict = parse_verdict(_gate_file(value, ["PASS"]))
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


def test_a_blocking_top_issue_still_refuses_a_pass_with_history() -> None:
    issues = '\n  - id: "SEC-001"\n    severity: high\n    finding: "tokens logged"'
    verdict = parse_verdict(_gate_file("PASS", ["CONCERNS", "PASS"], top_issues=issues))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("history", "approves"),
    [
        # Any spelling YAML allows: another key ending in 'history', flow mappings, another
        # key for the entry's gate.
        (
            'gate_history:\n  - { at: "1", gate_status: PASS }\n'
            '  - { at: "2", gate_status: FAIL }\n',
            False,
        ),
        ('review_history:\n  - {at: "1", status: PASS}\n  - {at: "2", status: CONCERNS}\n', False),
        ('"history":\n  - {"gate": "PASS"}\n  - {"gate": "FAIL"}\n', False),
        (
            'gate_history:\n  - { at: "1", gate_status: FAIL }\n'
            '  - { at: "2", gate_status: PASS }\n',
            True,
        ),
    ],
)
def test_the_latest_entry_of_any_history_list_is_read_through_yaml(
    history: str, approves: bool
) -> None:
    head = 'schema: 1\nstory: "5.4"\ngate: PASS\nreviewer: "Quinn"\n'
    text = head + history + "top_issues: []\n"
    verdict = parse_verdict(text)
    assert (verdict.decision is Decision.APPROVE) is approves, verdict.reasons


def _packed_history(notes: list[tuple[str, str]]) -> str:
    """A gate file whose history entries stand with no blank line between them."""
    entries = "".join(
        f'  - at: "2026-01-0{n + 1}T10:00:00Z"\n    gate: {gate}\n    note: "{note}"\n'
        for n, (gate, note) in enumerate(notes)
    )
    return (
        'schema: 1\nstory: "3.2"\ngate: PASS\n'
        'status_reason: "All acceptance criteria met; tests pass."\n'
        f"top_issues: []\n\nhistory:\n{entries}"
    )


def test_an_older_entrys_note_speaks_for_its_own_entry() -> None:
    """An older entry is a record the later ones replaced, note and all: its words are not
    read beside the latest entry's gate (issue 23)."""
    text = _packed_history(
        [
            ("CONCERNS", "Good work but missing unit tests; pass once they are added"),
            ("PASS", "Re-review after the test suite landed - all concerns resolved"),
            ("PASS", "Accessibility labels added."),
        ]
    )
    verdict = parse_verdict(text)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "note",
    ["Pass once the nightly job is green.", "Good, but the migration must be reverted first."],
)
def test_the_latest_entrys_note_is_still_read(note: str) -> None:
    text = _packed_history([("CONCERNS", "Missing unit tests"), ("PASS", note)])
    assert parse_verdict(text).decision is not Decision.APPROVE


def _named_history(key: str, gates: list[str]) -> str:
    """A gate file whose block-style history list stands under `key`."""
    entries = "".join(
        f'  - date: "2026-02-0{n + 1}T09:00:00Z"\n    gate: {gate}\n'
        f'    reviewer: "Quinn (Test Architect)"\n    reason: "review {n + 1}"\n'
        for n, gate in enumerate(gates)
    )
    return (
        'schema: 1\nstory: "8.1"\ngate: PASS\n'
        'status_reason: "All acceptance criteria met; tests pass."\n'
        f"top_issues: []\n\n{key}:\n{entries}\nimplementation_quality: HIGH\n"
    )


_HISTORY_KEYS = ["gate_history", "review_history", "Gate-History", "qa_gate_history"]


@pytest.mark.parametrize("key", _HISTORY_KEYS)
@pytest.mark.parametrize("older", [["CONCERNS"], ["FAIL", "CONCERNS"], ["WAIVED"]])
def test_older_entries_of_a_history_list_under_any_history_key_are_records(
    key: str, older: list[str]
) -> None:
    """`gate_history:` is a history list like `history:`: its block-style entries above the
    last are older records the top-level gate replaced, not verdicts of their own (a real
    gate file: CONCERNS, then PASS after the missing E2E tests landed)."""
    verdict = parse_verdict(_named_history(key, [*older, "PASS"]))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("key", _HISTORY_KEYS)
@pytest.mark.parametrize("latest", ["CONCERNS", "FAIL", "WAIVED"])
def test_the_latest_entry_under_any_history_key_still_decides_against_a_pass(
    key: str, latest: str
) -> None:
    verdict = parse_verdict(_named_history(key, ["PASS", latest]))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("key", ["history_notes", "gate_historyx", "prehistory"])
def test_a_key_that_only_contains_history_lists_verdicts_that_still_count(key: str) -> None:
    """Only a key that ends in 'history' names a history list; under another key a CONCERNS
    beside the PASS still counts."""
    verdict = parse_verdict(_named_history(key, ["CONCERNS", "PASS"]))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
