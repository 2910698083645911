"""Issue 23, deliverable 2: GSD's `*-REVIEW.md` and `*-VERIFICATION.md`, read by their own
recogniser (`_templates/gsd.py`).

Written from the class, each hostile document beside a genuine twin. The classes main's
line-by-line frontmatter reader got wrong: an open gap spelled the way YAML allows but the line
reader did not expect (a list at the key's own indentation, a quoted key, `gaps_remaining`
under `re_verification`), an empty list spelled `[ ]` or `""`, and a frontmatter YAML cannot
read. The rest pins what moved: the status values, comments, counts, the newer record.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _report(front: str, body_status: str = "passed") -> str:
    return (
        f"---\nphase: 04-output-layer\nverified: 2026-03-10T18:00:00Z\n{front}---\n\n"
        f"# Phase 4: Output Layer Verification Report\n\n**Status:** {body_status}\n\n"
        "## Gaps Summary\n\nNo gaps.\n\n_Verifier: Claude (gsd-verifier)_\n"
    )


def _review(front: str, body_status: str = "clean") -> str:
    return (
        f"---\nphase: 02-command-workflow\nreviewed: 2026-04-17T00:00:00Z\n{front}---\n\n"
        f"# Phase 02: Code Review Report\n\n**Status:** {body_status}\n\n## Summary\n\n"
        "All reviewed files meet quality standards. No issues found.\n\n"
        "_Reviewer: the agent (gsd-code-reviewer)_\n"
    )


_COUNTS = "findings:\n  critical: 0\n  warning: 0\n  info: 0\n  total: 0\n"

STATUS_VALUES = [
    (_review(_COUNTS + "status: clean\n"), A),
    (_review(_COUNTS + "status: issues_found\n", "issues_found"), F),
    (_review("status: clean\n"), M),  # 'clean' without finding counts is a status word
    (_report("status: passed\nscore: 5/5\n"), A),
    (_report("status: gaps_found\nscore: 3/5\n", "gaps_found"), F),
    (_report("status: human_needed\nscore: 5/5\n", "human_needed"), F),
    (_report('status: "passed"\nscore: 5/5\n'), A),
    # A key given twice: every value is a field, and the non-passing one wins.
    (_report("status: gaps_found\nstatus: passed\n"), F),
]

COMMENTS = [
    (_report("status: passed  # pending the UAT\n"), M),
    (_report("status: passed # TODO: re-run after the migration\n"), M),
    (_review(_COUNTS + "status: clean  # two warnings still open\n"), M),
    (_report("status: passed\n"), A),  # the twin without a comment
    (_report("status: gaps_found  # see below\n", "gaps_found"), F),
]

GAPS = [
    # A block list at the key's own indentation is valid YAML (main approved it).
    (_report('status: passed\ngaps:\n- truth: "login works"\n  status: failed\n'), F),
    # A quoted key (main approved it).
    (_report('status: passed\n"gaps": ["login still fails"]\n'), F),
    # Gaps left after a re-verification (main approved it).
    (_report('status: passed\nre_verification:\n  gaps_remaining: ["export"]\n'), F),
    (_report('status: passed\ngaps_remaining:\n  - "export"\n'), F),
    # Unreadable YAML fails closed.
    (_report("status: passed\ngaps: [\n"), F),
    (_report('status: passed\ngaps: {login: "still fails"}\n'), F),
    (_report("status: passed\ngaps:\n  - truth: x\n"), F),
    (_report("status: passed\ngaps: >-\n  one open gap\n"), F),
    # Genuine twins: empty however YAML spells it (main refused `[ ]` and `""`).
    (_report("status: passed\ngaps: [ ]\n"), A),
    (_report('status: passed\ngaps: ""\n'), A),
    (_report("status: passed\ngaps: []\n"), A),
    (_report("status: passed\ngaps:\n"), A),
    (_report("status: passed\nre_verification:\n  gaps_remaining: []\n"), A),
]

COUNTS = [
    (_review("findings: {critical: 1, warning: 0}\nstatus: clean\n"), F),
    (_review('findings:\n  critical: "2"\n  total: "2"\nstatus: clean\n'), F),
    (_review("findings: {critical: 0, warning: 0, total: 0}\nstatus: clean\n"), A),
]

NEWER_RECORD = [
    # The frontmatter was updated after the body: the body's old status is superseded.
    (_report("updated: 2026-03-11T09:00:00Z\nstatus: passed\ngaps: []\n", "gaps_found"), A),
    (_report('human_uat_result: "7/7 PASS"\nstatus: passed\n', "human_needed"), A),
    (
        _report(
            "resolutions:\n  - gap: naming\n    status: resolved\nstatus: passed\n", "gaps_found"
        ),
        A,
    ),
    # Without a newer record both stand, and the non-passing one wins.
    (_report("status: passed\n", "gaps_found"), F),
    (_report("status: passed\n", "human_needed"), F),
    # The newer record supersedes the status line only, not blocking content in the body.
    (
        _report("updated: 2026-03-11T09:00:00Z\nstatus: passed\n", "gaps_found")
        + "\n### Critical\n\n- Data loss on retry: the export drops rows.\n",
        F,
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(t, e, id=f"{name}-{i}")
        for name, rows in (
            ("status", STATUS_VALUES),
            ("comments", COMMENTS),
            ("gaps", GAPS),
            ("counts", COUNTS),
            ("newer", NEWER_RECORD),
        )
        for i, (t, e) in enumerate(rows)
    ],
)
def test_gsd_reports(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, (verdict.reasons, verdict.warnings)
    assert verdict.dialect == "gsd"


def test_gsd_is_a_restrictable_dialect() -> None:
    text = _review(_COUNTS + "status: clean\n")
    assert parse_verdict(text, dialect="gsd").approved
    assert not parse_verdict(text, dialect="verdict-line").approved


def test_a_newer_record_is_reported() -> None:
    text = _report("updated: 2026-03-11T09:00:00Z\nstatus: passed\n", "gaps_found")
    verdict = parse_verdict(text)
    assert any("superseded by the gsd record" in w for w in verdict.warnings)


@pytest.mark.parametrize(
    "front",
    [
        "status: approved\n",  # another tool's status: the generic frontmatter reader's
        "verdict: approve\n",
        "title: notes\n",
    ],
)
def test_other_frontmatter_is_not_gsd(front: str) -> None:
    text = f"---\n{front}---\n\nVerdict: APPROVE\n"
    assert parse_verdict(text).dialect != "gsd"


def test_a_gsd_gap_key_claims_a_report_whatever_its_status() -> None:
    text = "---\nstatus: approved\ngaps:\n- login still fails\n---\n\n**Status:** approved\n"
    verdict = parse_verdict(text)
    assert verdict.decision is F, verdict.reasons
    assert verdict.dialect == "gsd"


GSD_PASSED = "---\nphase: 03-tables\nstatus: passed\nscore: 3/3\n---\n\n# Phase 3 Verification\n\n"


@pytest.mark.parametrize(
    "verdict_line",
    [
        "**PASSED** — All 3 must-haves verified. Phase 3 complete.",
        "## Verdict\n\nPASSED: the must-haves hold.",
    ],
)
def test_gsd_must_haves_are_a_noun_not_an_obligation(verdict_line: str) -> None:
    """GSD names a phase's required truths 'must-haves': counting them verified is no
    condition on the pass."""
    verdict = parse_verdict(GSD_PASSED + verdict_line + "\n")
    assert verdict.decision is Decision.APPROVE, verdict.reasons


def test_a_pass_that_must_still_have_something_is_not_an_approval() -> None:
    verdict = parse_verdict(GSD_PASSED + "**PASSED** — must have the e2e run before merge.\n")
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


def test_a_status_outside_gsds_values_is_malformed_and_named() -> None:
    # GSD's by its verifier keys (`human_uat`): its status field is the verdict.
    verdict = parse_verdict(_report("status: verified\nhuman_uat: 5/5 passed\n", "verified"))
    assert verdict.decision is M
    assert "'verified'" in verdict.reasons[0], verdict.reasons


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        ("score: 4/6 must-haves verified\n", F),
        ("score: 11 / 12 truths verified\n", F),
        ("score: 0/3\n", F),
        ("score: 6/6 must-haves verified\n", A),
        ("score: 12/12\n", A),
    ],
)
def test_a_partial_score_is_a_gap_whatever_the_status(score: str, expected: Decision) -> None:
    """The verifier's own count: fewer truths hold than the phase has, so `passed` beside it
    is inconsistent and does not approve."""
    verdict = parse_verdict(_report(f"status: passed\n{score}"))
    assert verdict.decision is expected, verdict.reasons
    if expected is F:
        assert verdict.evidence is not None
        assert verdict.evidence.text.startswith("score:")


# GSD's signature after its last '---' ends whatever section stands before it. Under a
# findings section (a heading naming findings) main read it as a finding after the approval.
_CLEAN_REVIEW_HEAD = (
    "---\nphase: 49-brand\nreviewed: 2026-06-25T15:38:49Z\ndepth: standard\nstatus: clean\n"
    f"{_COUNTS}---\n\n# Phase 49: Code Review Report\n\n**Status:** clean\n\n## Summary\n\n"
    "All reviewed files meet quality standards. No issues found.\n\n"
    "## Narrative Findings (AI reviewer)\n\nNo Critical, Warning, or Info findings.\n\n---\n\n"
)
SIGNATURES = [
    (
        "_Reviewed: 2026-06-25T15:38:49Z_\n_Reviewer: the agent (gsd-code-reviewer)_\n"
        "_Depth: standard_\n",
        A,
    ),
    ("_Reviewed: 2026-06-25_\n\n_Reviewer: Claude (gsd-code-reviewer)_\n", A),
    # A sentence where the template puts a value is not the signature.
    ("_Reviewed: 2026-06-25T15:38:49Z_\n_Reviewer: the migration drops the users table_\n", None),
    ("_Reviewed: 2026-06-25T15:38:49Z_\n_Depth: standard, but the login is broken_\n", None),
    # Any other line after the break leaves the signature unrecognised.
    ("_Reviewed: 2026-06-25T15:38:49Z_\n_Note: the login page 500s for SSO users_\n", None),
    ("The login page 500s for SSO users.\n\n_Reviewed: 2026-06-25T15:38:49Z_\n", None),
]


@pytest.mark.parametrize(("tail", "expected"), SIGNATURES)
def test_the_signature_after_the_last_break_is_the_templates(
    tail: str, expected: Decision | None
) -> None:
    """`expected` None: anything but an approval."""
    verdict = parse_verdict(_CLEAN_REVIEW_HEAD + tail)
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


def test_a_signature_line_inside_a_findings_section_is_still_read() -> None:
    # Without the break, the line belongs to the section above it (no signature).
    text = _CLEAN_REVIEW_HEAD.replace("---\n\n", "", 1).replace("\n---\n\n", "\n\n")
    text += "_Reviewer: Claude (gsd-code-reviewer)_\n- `auth.py:12` leaks the session token\n"
    assert parse_verdict(text).decision is not A


# A review's `findings:` tally may name its own grades (`high/medium/low`) instead of GSD's
# `critical/warning/info`: all zero, it confirms `clean` as GSD's counts do; a non-zero grade
# this reader cannot weigh leaves `clean` unconfirmed.
@pytest.mark.parametrize(
    ("tally", "expected"),
    [
        ("findings:\n  high: 0\n  medium: 0\n  low: 0\n  total: 0\n", A),
        ("findings: {high: 0, medium: 0, low: 0}\n", A),
        ("findings:\n  high: 0\n  medium: 2\n  low: 0\n  total: 2\n", None),
        ("findings:\n  high: 0\n  medium: many\n", None),
    ],
)
def test_a_tally_of_other_grades_confirms_clean_only_at_zero(
    tally: str, expected: Decision | None
) -> None:
    verdict = parse_verdict(_review(f"status: clean\n{tally}"))
    if expected is None:
        assert verdict.decision is not A, verdict.reasons
    else:
        assert verdict.decision is expected, verdict.reasons


@pytest.mark.parametrize(
    ("line", "approves"),
    [
        ("- No open findings in scoped review targets.", True),
        ("- No issues found in the changed files.", True),
        ("- No open findings in the docs, but `auth.py:3` logs the session token.", False),
        ("- No findings in the docs. `auth.py:3` logs the session token.", False),
    ],
)
def test_a_none_that_says_where_it_looked_is_a_none(line: str, approves: bool) -> None:
    text = _review("status: clean\n" + _COUNTS) + f"\n## Findings (post-fix)\n\n{line}\n"
    assert (parse_verdict(text).decision is A) is approves
