"""A BMAD gate file generated with a comment header and its gate as a mapping:

    # Quality Gate: Story 2.4 …
    gate:
      story_id: "2.4"
      decision: "PASS"
      decision_rationale: |
        …

The file opens with `#` comments, so it was read as Markdown: its comments were headings
('# Ready for Production Deployment' after the verdict names no part of a review) and a
genuine PASS was `malformed` (issue 23). It is a gate file when the first line that is not a
comment is the `gate:` key; the mapping's value key (`decision`, `status`, `result`, `gate`)
on the first level under it is the gate field, read like a scalar `gate:`; a reason beside
it is read like `status_reason`; a mapping with no gate value is `malformed`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEADER = (
    "# Quality Gate: Story 2.4 Invoice export\n"
    "# Generated: 2026-03-02T10:00:00Z\n"
    "# Architect: Quinn (Test Architect & Quality Advisor)\n\n"
)
_REST = (
    '\n# Overall Metrics\nmetrics:\n  coverage_percentage: 91\n  build_status: "SUCCESS"\n\n'
    "recommendations:\n  immediate_actions: []  # None required - ready for production\n"
    '  future_enhancements:\n    - "Add caching for large exports"\n'
)
_FOOTER = "\n# Gate Status: PASS ✅\n# Ready for Production Deployment\n"


def _gate_file(gate: str, extra: str = "", *, header: str = _HEADER) -> str:
    return header + gate + _REST + extra + _FOOTER


_PASSING = [
    'gate:\n  story_id: "2.4"\n  evaluator: "Quinn"\n  decision: "PASS"\n'
    "  decision_rationale: |\n    All acceptance criteria met and tested.\n",
    "gate:\n  status: PASS\n",
    "gate:  # the story's gate\n  epic: 2\n  result: 'pass'\n",
    'gate: PASS\nstatus_reason: "All criteria met."\n',
]


@pytest.mark.parametrize("gate", _PASSING)
def test_a_passing_gate_after_a_comment_header_approves(gate: str) -> None:
    verdict = parse_verdict(_gate_file(gate))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    ("value", "expected"),
    [("FAIL", Decision.REJECT), ("CONCERNS", Decision.FIXES), ("WAIVED", Decision.FIXES)],
)
@pytest.mark.parametrize("key", ["decision", "status", "gate"])
def test_the_mapping_value_decides_whatever_the_comments_say(
    key: str, value: str, expected: Decision
) -> None:
    verdict = parse_verdict(_gate_file(f'gate:\n  story_id: "2.4"\n  {key}: "{value}"\n'))
    assert verdict.decision is expected, verdict.reasons


@pytest.mark.parametrize(
    "gate",
    [
        'gate:\n  story_id: "2.4"\n  evaluator: "Quinn"\n',
        "gate:\n  decision: EXCELLENT\n",
        "gate:\n  meta:\n    decision: PASS\n",  # not the mapping's own key
    ],
)
def test_a_gate_mapping_without_a_gate_value_is_malformed(gate: str) -> None:
    verdict = parse_verdict(_gate_file(gate))
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


@pytest.mark.parametrize(
    ("gate", "extra"),
    [
        ("gate:\n  decision: PASS  # once CI is green\n", ""),
        (
            "gate:\n  decision: PASS\n"
            '  decision_rationale: "Approved once the DBA signs off the migration."\n',
            "",
        ),
        (
            "gate:\n  decision: PASS\n",
            'top_issues:\n  - id: SEC-1\n    severity: high\n    finding: "token logged"\n',
        ),
        ("gate:\n  decision: PASS\n", "waiver:\n  active: true\n"),
        ("gate:\n  decision: PASS\n", "# Do not merge until the load test passes\n"),
    ],
    ids=["comment", "rationale", "top-issue", "waiver", "comment-line"],
)
def test_what_blocks_a_scalar_pass_blocks_a_mapping_pass(gate: str, extra: str) -> None:
    verdict = parse_verdict(_gate_file(gate, extra))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


_COMMENT_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=60).map(
    lambda t: "# " + t.replace("\n", " ") + "\n"
)


@given(
    header=st.lists(_COMMENT_TEXT, max_size=4).map("".join),
    value=st.sampled_from(["FAIL", "CONCERNS", "WAIVED", "TBD", ""]),
)
def test_no_comment_header_makes_a_mapping_that_does_not_pass_approve(
    header: str, value: str
) -> None:
    text = _gate_file(f"gate:\n  decision: {value}\n", header=header)
    assert parse_verdict(text).decision is not Decision.APPROVE
