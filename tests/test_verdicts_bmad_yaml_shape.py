"""A BMAD gate file is YAML: what its mapping holds decides, however the text spells it.

An alias (`top_issues: *open`) and quoted keys (`"severity": "high"`) still put a blocking
issue in the gate's `top_issues`; a key given twice, or a second YAML document, leave a file
whose mapping no reader sees whole (the loader keeps one of the two keys, or refuses the file
and so every field that could refuse the PASS). Such a PASS does not approve."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = 'schema: 1\nstory: "2.3"\ngate: PASS\nstatus_reason: "All criteria are covered."\n'


def _decide(text: str) -> Decision:
    return parse_verdict(text).decision


def _issue_lists(severity: str) -> list[str]:
    """A `top_issues` list holding one issue of `severity`, written in the shapes YAML reads
    alike: an alias of a list under another key, a merge of an anchored mapping, quoted keys
    in block and flow style."""
    return [
        f'known: &open\n  - id: "X-1"\n    severity: {severity}\n    finding: "f"\n'
        "top_issues: *open\n",
        f'base: &issue {{id: "X-1", severity: {severity}}}\n'
        'top_issues:\n  - <<: *issue\n    finding: "f"\n',
        f'top_issues:\n  - "id": "X-1"\n    "severity": "{severity}"\n',
        f'top_issues: [{{"id": "X-1", "severity": "{severity}", "finding": "f"}}]\n',
        f"top_issues: [{{'severity' : '{severity}'}}]\n",
    ]


@pytest.mark.parametrize("severity", ["medium", "high", "HIGH", "critical", "urgent"])
@pytest.mark.parametrize("shape", range(5))
def test_a_blocking_top_issue_in_any_yaml_spelling_keeps_the_pass_from_approving(
    severity: str, shape: int
) -> None:
    text = _HEAD + _issue_lists(severity)[shape] + "waiver: { active: false }\n"
    assert _decide(text) is not Decision.APPROVE


@pytest.mark.parametrize("shape", range(5))
def test_a_low_top_issue_in_any_yaml_spelling_leaves_the_pass(shape: int) -> None:
    text = _HEAD + _issue_lists("low")[shape] + "waiver: { active: false }\n"
    assert _decide(text) is Decision.APPROVE


@pytest.mark.parametrize("status", ["RESOLVED", "fixed - added checks", "closed", "done"])
def test_a_quoted_issue_its_own_status_closes_leaves_the_pass(status: str) -> None:
    text = _HEAD + f'top_issues: [{{"severity": "high", "status": "{status}"}}]\n'
    assert _decide(text) is Decision.APPROVE


def test_an_anchor_elsewhere_in_the_file_changes_nothing() -> None:
    text = (
        _HEAD + 'reviewer: &q "Quinn"\ntop_issues: []\nhistory:\n'
        '  - at: "2026-11-20T10:00:00Z"\n    gate: PASS\n    reviewer: *q\n'
    )
    assert _decide(text) is Decision.APPROVE


@pytest.mark.parametrize(
    "fields",
    [
        # the second of two keys is the one the loader keeps
        "nfr_validation:\n  security: {status: FAIL}\n  security: {status: PASS}\n",
        "top_issues:\n  - severity: high\ntop_issues: []\n",
        "waiver: { active: true }\nwaiver: { active: false }\n",
        "gate: PASS\n",  # the gate key itself twice
    ],
)
def test_a_key_given_twice_keeps_the_pass_from_approving(fields: str) -> None:
    verdict = parse_verdict(_HEAD + fields)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "rest",
    [
        "---\nhistory:\n  - gate: PASS\n",
        "---\nreviewer: Quinn\n",
        "...\n---\ngate: FAIL\n",
    ],
)
def test_a_second_yaml_document_keeps_the_pass_from_approving(rest: str) -> None:
    text = _HEAD + "top_issues: []\nwaiver:\n  active: true\n" + rest
    assert _decide(text) is not Decision.APPROVE


def test_a_leading_document_marker_is_one_document() -> None:
    assert _decide("---\n" + _HEAD + "top_issues: []\n") is Decision.APPROVE


_KEYS = st.sampled_from(["story", "reviewer", "updated", "quality_score", "notes", "risk"])


@given(st.lists(_KEYS, min_size=2, max_size=6))
def test_a_pass_approves_only_when_no_key_repeats(keys: list[str]) -> None:
    text = _HEAD.replace('story: "2.3"\n', "") + "".join(f"{k}: x\n" for k in keys)
    approved = _decide(text) is Decision.APPROVE
    assert approved == (len(set(keys)) == len(keys))
