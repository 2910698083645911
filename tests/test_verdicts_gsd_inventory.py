"""GSD reports read by their templates' definitions (`_templates/_gsd_inventory.py`).

Every document here is generated from the inventory: one passing report per template version
of the verifier (its frontmatter keys, title fields, every section it defines with the
table columns and passing value the template gives), then one part changed. A describing
section with any prose keeps a passing report approving; a deciding field set to a value
that does not approve refuses. Plus the classes the inventory exposed: human checks still
listed under `passed`, regressions a re-verification records, a frontmatter key dated after
the report, a re-verification heading dated with its month's name.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._templates._gsd_inventory import (
    CODE_REVIEWS,
    CROSS_AI_REVIEWS,
    UAT,
    VERIFICATIONS,
    Part,
    Role,
    Version,
    section_roles,
)

A, F, M = Decision.APPROVE, Decision.FIXES, Decision.MALFORMED

_IDS = [version.name for version in VERIFICATIONS]


def _front(version: Version, extra: str = "") -> str:
    keys = {part.title for part in version.frontmatter}
    lines = [
        "phase: 03-chat",
        "verified: 2026-03-10T18:00:00Z",
        "status: passed",
        "score: 5/5 must-haves verified",
    ]
    if "overrides_applied" in keys:
        lines.append("overrides_applied: 0")
    if "gaps" in keys:
        lines.append("gaps: []")
    return "---\n" + "\n".join(lines) + "\n" + extra + "---\n"


def _table(part: Part, value: str | None = None) -> str:
    status = value or part.passing
    cells = [
        status
        if col in ("Status", "Severity")
        else "-"
        if col == "Blocking Issue"
        else f"{col} cell"
        for col in part.columns
    ]
    head = "| " + " | ".join(part.columns) + " |"
    rule = "|" + "---|" * len(part.columns)
    return f"{head}\n{rule}\n| " + " | ".join(cells) + " |\n"


def _section(part: Part, prose: str, status: str | None = None) -> str:
    heading = f"### {part.title.title()}\n\n"
    if part.title == "human verification required":
        return heading + "None — all verifiable items checked programmatically.\n\n"
    if part.title == "gaps summary":
        return heading + "**No gaps found.** Phase goal achieved. Ready to proceed.\n\n"
    if part.role is Role.DECIDES:
        return ""  # written only with gaps found (fix plans, critical gaps)
    if part.role is Role.TABLE:
        return heading + _table(part, status) + "\n" + prose + "\n\n"
    if part.columns:
        return heading + _table(part) + "\n" + prose + "\n\n"
    return heading + prose + "\n\n"


def _report(
    version: Version,
    prose: dict[str, str] | None = None,
    *,
    extra_front: str = "",
    body_status: str = "passed",
    status_of: dict[str, str] | None = None,
    after: str = "",
) -> str:
    texts = prose or {}
    statuses = status_of or {}
    fields = {part.title for part in version.fields}
    body = [
        "# Phase 3: Chat Verification Report\n",
        "**Phase Goal:** Working chat interface where users can send and receive messages",
        "**Verified:** 2026-03-10T18:00:00Z",
        f"**Status:** {body_status}",
    ]
    if "re-verification" in fields:
        body.append("**Re-verification:** No — initial verification")
    body.append("")
    for part in version.sections:
        default = "Checked against the plan's must-haves."
        body.append(_section(part, texts.get(part.title, default), statuses.get(part.title)))
    signature = "---\n\n_Verified: 2026-03-10T18:00:00Z_\n_Verifier: Claude (gsd-verifier)_\n"
    return _front(version, extra_front) + "\n" + "\n".join(body) + after + signature


def _decision(text: str) -> Decision:
    return parse_verdict(text).decision


# -- the inventory -------------------------------------------------------------------------------


def test_every_version_names_its_source_commit() -> None:
    for version in (*VERIFICATIONS, *CODE_REVIEWS, *CROSS_AI_REVIEWS, *UAT):
        path, _, commit = version.source.partition("@")
        assert path, version.name
        assert len(commit) == 40, version.name  # a full hash


def test_a_title_has_one_role_in_every_version() -> None:
    """Adding a version adds rows; it never turns a deciding part into a describing one."""
    for versions in (VERIFICATIONS, CODE_REVIEWS):
        roles = section_roles(versions)
        for version in versions:
            for part in version.sections:
                assert roles[part.title] is part.role, (version.name, part.title)


def test_every_check_table_has_a_status_column_and_its_passing_value() -> None:
    for version in VERIFICATIONS:
        for part in version.sections:
            if part.role is Role.TABLE:
                assert {"Status", "Severity"} & set(part.columns), part.title
                assert part.passing, part.title


# -- a passing report of every version approves --------------------------------------------------


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_the_passing_report_of_every_version_approves(version: Version) -> None:
    assert _decision(_report(version)) is A


# Prose a verifier writes under a describing section: its evidence and notes, told in any
# words — a negation, a defect it checked for, a word that elsewhere blocks. One line each,
# not shaped as a heading, list, table, quote, break or verdict field (those are structure).
_WORDS = st.sampled_from(
    [
        "the", "export", "handler", "does", "not", "crash", "fails", "blocker", "TODO",
        "pending", "should", "must", "fix", "merge", "rejected", "no", "stub", "placeholder",
        "was", "checked", "by", "grep", "wired", "missing", "until", "after", "deploy",
        "`src/chat.ts:42`", "3/5", "tests", "pass", "error", "warning", "later", "phase",
    ]
)  # fmt: skip
_PROSE = st.lists(_WORDS, min_size=1, max_size=14).map(lambda words: "Note " + " ".join(words))
_DESCRIBING = [
    (version, part.title)
    for version in VERIFICATIONS
    for part in version.sections
    if part.role is Role.DESCRIBES
]


@pytest.mark.parametrize(
    ("version", "title"), _DESCRIBING, ids=[f"{v.name}: {t}" for v, t in _DESCRIBING]
)
@settings(max_examples=8, deadline=None)
@given(prose=_PROSE)
def test_any_prose_in_a_describing_section_keeps_the_report_approving(
    version: Version, title: str, prose: str
) -> None:
    assert _decision(_report(version, {title: prose})) is A


# -- a deciding field that does not approve refuses ----------------------------------------------

_LATEST = VERIFICATIONS[-1]
_TABLES_OF = [
    (version, part.title)
    for version in VERIFICATIONS
    for part in version.sections
    # the sections the strict field-section reader holds (`_field_sections`)
    if part.role is Role.TABLE
    and part.title not in ("anti-patterns found", "data-flow trace", "probe execution")
]


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
@pytest.mark.parametrize("status", ["gaps_found", "human_needed"])
def test_a_status_that_does_not_pass_refuses(version: Version, status: str) -> None:
    text = _report(version, body_status=status).replace("status: passed", f"status: {status}")
    assert _decision(text) is F


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_a_body_status_that_disagrees_with_the_frontmatter_refuses(version: Version) -> None:
    assert _decision(_report(version, body_status="gaps_found")) is not A


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_a_partial_score_refuses(version: Version) -> None:
    text = _report(version).replace("score: 5/5", "score: 4/5")
    assert _decision(text) is not A


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_an_open_gap_refuses(version: Version) -> None:
    text = _report(version, extra_front='gaps_remaining:\n  - "send does not persist"\n')
    assert _decision(text) is not A


_FAILING = {
    "observable truths": "✗ FAILED",
    "required artifacts": "✗ STUB",
    "key link verification": "✗ NOT WIRED",
    "requirements coverage": "✗ BLOCKED",
    "data-flow trace": "✗ DISCONNECTED",
    "behavioral spot-checks": "✗ FAIL",
    "probe execution": "FAILED",
    "anti-patterns found": "🛑 Blocker",
}
_TABLES = [
    (version, part.title)
    for version in VERIFICATIONS
    for part in version.sections
    if part.role is Role.TABLE
]


@pytest.mark.parametrize(("version", "title"), _TABLES, ids=[f"{v.name}: {t}" for v, t in _TABLES])
def test_a_failing_check_row_refuses(version: Version, title: str) -> None:
    assert _decision(_report(version, status_of={title: _FAILING[title]})) is not A


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_a_verdict_field_in_a_describing_section_is_still_read(version: Version) -> None:
    text = _report(version, {"goal achievement": "**Status:** gaps_found"})
    assert _decision(text) is not A


@pytest.mark.parametrize(
    ("version", "title"), _TABLES_OF, ids=[f"{v.name}: {t}" for v, t in _TABLES_OF]
)
def test_a_plain_statement_beside_a_check_table_is_still_read_strictly(
    version: Version, title: str
) -> None:
    """A check section's prose is not accounted for: its table decides, and a defect told as
    a fact beside passing rows stays outside every field when read strictly."""
    text = _report(version, {title: "Deleting a project leaves its API keys active."})
    assert parse_verdict(text, strict=True).decision is M


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_the_template_header_rows_are_accounted_for_strictly(version: Version) -> None:
    assert parse_verdict(_report(version), strict=True).decision is A


@pytest.mark.parametrize("version", VERIFICATIONS, ids=_IDS)
def test_a_partial_count_under_a_check_table_is_still_read(version: Version) -> None:
    text = _report(version, {"observable truths": "**Score:** 3/5 truths verified"})
    assert _decision(text) is not A


def test_a_section_the_template_does_not_define_is_read_as_written() -> None:
    after = "## Notes\n\nDo not merge: the export still crashes on empty carts.\n\n"
    assert _decision(_report(_LATEST, after=after)) is not A


# -- the classes the inventory exposed -----------------------------------------------------------

_CHECK = (
    "human_verification:\n"
    '  - test: "Open the chat in Safari"\n'
    '    expected: "Messages render"\n'
    '    why_human: "Visual"\n'
)


def test_human_checks_listed_under_passed_follow_the_status() -> None:
    """Under `passed` the frontmatter's human checks are notes for a person (the labelling
    rule: "`passed` with no open gaps = approve"); `human_needed` makes them conditions."""
    assert _decision(_report(_LATEST, extra_front=_CHECK)) is A
    needed = _report(_LATEST, extra_front=_CHECK).replace("status: passed", "status: human_needed")
    assert _decision(needed) is not A


@pytest.mark.parametrize(
    "front",
    [
        "behavior_unverified: 1\n",
        'behavior_unverified_items:\n  - truth: "cancel cleans up"\n    test: "Cancel mid-run"\n',
    ],
)
def test_behaviour_checks_a_fork_routes_to_a_person_refuse_under_passed(front: str) -> None:
    assert _decision(_report(_LATEST, extra_front=front)) is F


def test_no_behaviour_checks_keep_the_report_approving() -> None:
    front = "behavior_unverified: 0\nbehavior_unverified_items: []\n"
    assert _decision(_report(_LATEST, extra_front=front)) is A


def test_human_checks_a_newer_frontmatter_settled_do_not_refuse() -> None:
    settled = _CHECK + "human_uat_completed: 2026-03-11T10:00:00Z\n"
    assert _decision(_report(_LATEST, extra_front=settled)) is A


def test_regressions_a_re_verification_lists_refuse() -> None:
    front = (
        "re_verification:\n  previous_status: gaps_found\n  previous_score: 3/5\n"
        '  gaps_closed:\n    - "send persists"\n  gaps_remaining: []\n'
        '  regressions:\n    - "history no longer loads"\n'
    )
    assert _decision(_report(_LATEST, extra_front=front)) is not A


def test_no_regressions_keep_a_re_verification_approving() -> None:
    front = (
        "re_verification:\n  previous_status: gaps_found\n  previous_score: 3/5\n"
        '  gaps_closed:\n    - "send persists"\n  gaps_remaining: []\n  regressions: []\n'
    )
    assert _decision(_report(_LATEST, extra_front=front)) is A


@pytest.mark.parametrize("key", ["passed_at", "uat_signed_off"])
def test_a_key_dated_after_the_report_makes_the_frontmatter_the_newer_record(key: str) -> None:
    """`passed_at: …` after `verified: …`: the body's `human_needed` is the older record."""
    text = _report(
        _LATEST, extra_front=f"{key}: 2026-03-14T00:00:00Z\n", body_status="human_needed"
    )
    assert _decision(text) is A


@pytest.mark.parametrize("value", ["2026-03-09T00:00:00Z", "2026-03-10", "soon"])
def test_a_key_dated_no_later_than_the_report_is_no_newer_record(value: str) -> None:
    text = _report(_LATEST, extra_front=f"passed_at: {value}\n", body_status="human_needed")
    assert _decision(text) is not A


@pytest.mark.parametrize(
    "heading",
    [
        "## Re-verification (21 Nov 2026)",
        "## Re-verification — Nov 23",
        "## Update November 21, 2026",
    ],
)
def test_a_round_dated_with_its_months_name_after_the_frontmatter_refuses(heading: str) -> None:
    front = "updated: 2026-11-20T10:00:00Z\n"
    after = f"{heading}\n\nTruth 3 regressed after the cache change.\n\n"
    assert _decision(_report(_LATEST, extra_front=front, after=after)) is M


@pytest.mark.parametrize("heading", ["## Re-verification (19 Nov 2026)", "## Re-verification"])
def test_a_round_dated_before_the_frontmatter_leaves_it_the_newer_record(heading: str) -> None:
    front = "updated: 2026-11-20T10:00:00Z\n"
    after = f"{heading}\n\nAll five truths verified again.\n\n"
    assert _decision(_report(_LATEST, extra_front=front, after=after)) is A
