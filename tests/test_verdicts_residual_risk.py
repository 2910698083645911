"""Issue 23: a `Residual risk` section after a clean review is the reviewer's account of what
remains once the change is accepted, not a finding the verdict has not weighed.

A finding is something to fix; a residual risk is, by the term's meaning, what is left when
nothing more will be fixed. Reviewers add such a section to GSD code reviews after
`status: clean` (0 findings counted), and main refused those as "a finding after the
approval". The section is read like any advisory section (`Follow-ups`, `Deferred`): blocking
prose tied to the merge, a tagged item, a count, a stated defect or a condition still refuse.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE


def _gsd_review(heading: str, body: str) -> str:
    return (
        "---\nphase: 04-export\nreviewed: 2026-02-01T10:00:00Z\ndepth: standard\n"
        "files_reviewed: 3\nfindings:\n  critical: 0\n  warning: 0\n  info: 0\n  total: 0\n"
        "status: clean\n---\n\n# Phase 4: Code Review Report\n\n"
        "**Reviewed:** 2026-02-01T10:00:00Z\n**Depth:** standard\n**Files Reviewed:** 3\n"
        "**Status:** clean\n\n## Summary\n\nReviewed the export endpoint and its tests.\n\n"
        "All reviewed files meet quality standards. No issues found.\n\n"
        f"## {heading}\n\n{body}\n\n---\n\n_Reviewer: Claude (gsd-code-reviewer)_\n"
    )


GENUINE = [
    (
        "Residual Risk",
        "Residual risk is low. The benchmark for tiny exports is flat, which matches the"
        " phase research and is reported explicitly by `bench_test.go`.",
    ),
    (
        "Residual Test Risk",
        "The HTTP smoke test against a live server was not run in this review; the unit"
        " tests cover the changed branch directly.",
    ),
    ("Residual risks", "- Large exports are streamed; memory stays bounded in the tests."),
]
HOSTILE = [
    ("Residual Risk", "The export must be rate-limited before merge."),
    ("Residual Risk", "- **Critical**: the export leaks the API token in its logs."),
    ("Residual Risk", "The export endpoint is broken for empty accounts."),
    ("Residual Risk", "Merge once the nightly load test passes."),
    ("Residual Risk", "Do not merge: the migration drops the users table."),
    ("Residual critical risks", "The retry loop may spin forever on 503 responses."),
    ("Residual Risk: Critical", "The retry loop may spin forever on 503 responses."),
    ("Residual risk (blocking)", "The retry loop may spin forever on 503 responses."),
    # not a residual risk: an ungraded findings section still refuses
    ("Risks", "The retry loop may spin forever on 503 responses."),
    ("Known issues", "The retry loop may spin forever on 503 responses."),
]


@pytest.mark.parametrize(("heading", "body"), GENUINE)
def test_a_residual_risk_section_after_a_clean_review_keeps_the_approval(
    heading: str, body: str
) -> None:
    verdict = parse_verdict(_gsd_review(heading, body))
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "gsd"


@pytest.mark.parametrize(("heading", "body"), HOSTILE)
def test_a_problem_under_a_residual_risk_heading_still_refuses(heading: str, body: str) -> None:
    verdict = parse_verdict(_gsd_review(heading, body))
    assert verdict.decision is not A, verdict.reasons


def test_residual_risk_graded_in_a_label_is_advisory() -> None:
    """The same reading for a label after a prose verdict: `Residual risk:` grades."""
    text = (
        "# Review\n\n## Summary\n\nAdds the export endpoint.\n\n## Verdict\n\nAPPROVE\n\n"
        "**Residual risk:** large exports were not load-tested.\n"
    )
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
