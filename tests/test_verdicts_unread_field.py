"""Issue 23: an approval read from one instance of a field whose other instances hold values
the reader does not know.

A report may write its status once per stage (`**状态**: 通过` three times, then `**状态**:
失败` twice: "pass", then "fail", a word outside the vocabulary) or in its frontmatter and
its body (`status: partial` above `**Status:** PASS`). Reading the instances it knows and
skipping the others approved a report whose own field says part of the work failed. The
allow-list applies to every instance of the field: a value that is no verdict is not a yes,
so the document is `malformed` with that line as evidence.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, M = Decision.APPROVE, Decision.MALFORMED


def _stages(values: list[str], label: str = "Status", heading: str = "Stage") -> str:
    parts = ["# Acceptance run\n"]
    for number, value in enumerate(values, start=1):
        parts.append(f"#### {heading} {number}\n\n```\nmake check\n```\n**{label}**: {value}\n")
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("label", "heading", "unknown"),
    [
        ("状态", "阶段", "失败"),  # Chinese: the reader knows 通过, not 失败
        ("Status", "Step", "wobbly"),
        ("Estado", "Etapa", "fallido a medias"),
        ("Result", "Check", "partial"),
    ],
)
def test_a_stage_status_the_reader_cannot_read_stops_the_approval(
    label: str, heading: str, unknown: str
) -> None:
    known = "通过" if label == "状态" else "PASS"
    text = _stages([known, known, unknown, known], label=label, heading=heading)
    verdict = parse_verdict(text)
    assert verdict.decision is M
    assert verdict.evidence is not None
    assert unknown in verdict.evidence.text


def test_every_stage_status_approving_still_approves() -> None:
    assert parse_verdict(_stages(["通过", "通过"], label="状态", heading="阶段")).decision is A


def test_a_frontmatter_status_that_is_no_verdict_stops_a_body_status_approval() -> None:
    text = "---\ntask: acceptance\nstatus: partial\n---\n\n# Acceptance\n\n**Status:** PASS\n"
    verdict = parse_verdict(text)
    assert verdict.decision is M
    assert verdict.evidence is not None
    assert verdict.evidence.line == 3


def test_a_lifecycle_status_beside_a_verdict_of_another_label_still_approves() -> None:
    # 'status' in the frontmatter is the file's lifecycle; the verdict is another field.
    text = "---\nstatus: current\n---\n\n# Review\n\n**Verdict:** APPROVE\n"
    assert parse_verdict(text).decision is A


def test_a_sentence_under_the_label_is_prose_not_an_unknown_value() -> None:
    text = (
        "# Review\n\n**Status:** PASS\n\n## Notes\n\n**Status:** the migration was checked "
        "against a copy of the production schema and the indexes match the plan\n"
    )
    assert parse_verdict(text).decision is A


_WORD = st.text(alphabet="qwxzjkvbdfgh", min_size=3, max_size=12)


@settings(max_examples=60, deadline=None)
@given(_WORD)
def test_any_unknown_word_in_a_sibling_status_never_approves(word: str) -> None:
    alone = parse_verdict(f"# Run\n\n**Status:** {word}\n")
    if alone.decision is not M:  # the word is a verdict the reader knows
        return
    assert parse_verdict(_stages(["PASS", word, "PASS"])).decision is not A


def test_a_sub_items_own_status_one_level_deeper_is_not_the_field() -> None:
    text = (
        "# Review\n\n**Status:** APPROVED\n\n## Risks\n\n### Schedule risks: none\n\n"
        "**Status:** ten days ahead\n\n## Decision\n\n**Verdict:** APPROVED\n"
    )
    assert parse_verdict(text).decision is A
    # the same line at the approving field's own depth is that field again
    same_depth = text.replace("## Risks\n\n### Schedule risks: none\n\n", "")
    assert parse_verdict(same_depth).decision is M


def test_a_nested_key_is_an_items_field_not_the_documents() -> None:
    text = (
        "gate: PASS\nstatus: PASS\nchecks:\n  upload:\n    status: verified-by-hand\n"
        "  resize:\n    status: unable-to-verify\n"
    )
    assert parse_verdict(text).decision is A
