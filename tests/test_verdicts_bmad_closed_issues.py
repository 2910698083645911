"""A BMAD gate's `top_issues` item that carries its own closing status (`status: RESOLVED`,
closed, fixed, done) is a record of an issue the reviewer closed in a later pass: a PASS beside
only closed issues approves. An open item beside them, or an item without a closing status,
still keeps the PASS from approving."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = 'schema: 1\nstory: "2.3"\ngate: PASS\nstatus_reason: "second review: all fixed"\n'


def _gate(items: str) -> str:
    return _HEAD + "top_issues:\n" + items + "waiver: { active: false }\n"


def _item(severity: str, status: str | None = None) -> str:
    lines = [f'  - id: "X-{severity}"', f"    severity: {severity}", '    finding: "a thing"']
    if status is not None:
        lines.append(f'    status: "{status}"')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("status", ["RESOLVED", "resolved", "Closed", "FIXED", "done"])
def test_a_pass_beside_only_closed_issues_approves(status: str) -> None:
    text = _gate(_item("high", status) + _item("medium", status) + _item("low"))
    assert parse_verdict(text).decision is Decision.APPROVE


@pytest.mark.parametrize(
    "items",
    [
        _item("high", "RESOLVED") + _item("medium"),  # the second is open
        _item("medium") + _item("high", "RESOLVED"),  # the first is open
        _item("high", "OPEN") + _item("low"),
        _item("high", "resolved later") + _item("low"),  # not a closing value
        _item("medium", "in progress"),
    ],
)
def test_an_open_issue_beside_closed_ones_keeps_the_pass_from_approving(items: str) -> None:
    verdict = parse_verdict(_gate(items))
    assert verdict.decision is Decision.FIXES
    assert "top issue" in verdict.reasons[0]


def test_flow_style_items_are_settled_one_by_one() -> None:
    closed = "{severity: high, status: resolved}"
    assert parse_verdict(_HEAD + f"top_issues: [{closed}]\n").decision is Decision.APPROVE
    mixed = f"top_issues: [{closed}, {{severity: high}}]\n"
    assert parse_verdict(_HEAD + mixed).decision is Decision.FIXES


@pytest.mark.parametrize(
    ("resolution", "approves"),
    [
        ('"FIXED - added validateLogo() with MIME checks"', True),
        ("RESOLVED", True),
        ('"fixed — escapes every user input"', True),
        ('"fixed later"', False),  # not a closing value: a plan
        ('"FIXED? not yet"', False),
        ('"pending"', False),
    ],
)
def test_an_items_resolution_field_closes_it_like_its_status(
    resolution: str, approves: bool
) -> None:
    item = '  - id: "SEC-1"\n    severity: high\n    finding: "x"\n'
    verdict = parse_verdict(_gate(item + f"    resolution: {resolution}\n"))
    assert (verdict.decision is Decision.APPROVE) is approves, verdict.reasons


@pytest.mark.parametrize(
    ("comment", "approves"),
    [
        ("# Issues found during review (ALL RESOLVED)", True),
        ("# Always present but only active when WAIVED", True),
        ("# Issues found: the token check is broken", False),
        ("# do not merge until the key is rotated", False),
        ("# the build is broken on CI", False),
    ],
)
def test_a_gate_files_comment_lines_are_comments_not_headings(comment: str, approves: bool) -> None:
    text = _HEAD + comment + "\ntop_issues: []\nwaiver: { active: false }\n"
    verdict = parse_verdict(text)
    assert (verdict.decision is Decision.APPROVE) is approves, verdict.reasons
