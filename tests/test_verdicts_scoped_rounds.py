"""A later round replaces an earlier no only when it reviews the whole change. A round heading
that names one small part — a document, a typo, the wording, a file, "… only" — scopes its
yes to that part, like a scope after a verdict's answer (`docs/verdicts.md`, *Scope*): the
earlier no still stands. A round heading that names the fixes or the review itself
(`## Re-review after fixes`) still supersedes what came before."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
NO = "## Review\nThe design stores card numbers in plain text.\n\n**Verdict:** REJECT\n\n"

SCOPED = [
    "## Follow-up round: CHANGELOG wording",
    "## After the fix for the typo in README",
    "## Addendum (docs commit only)",
    "## Re-review: `src/cli.py`",
    "### Second pass — documentation",
    "## Re-review of the spelling fixes",
    # a file of any kind: a manifest, a config, a build file without an extension, a
    # dot-directory
    "## Re-review: Dockerfile",
    "## Re-review — go.mod",
    "## Re-review of the Makefile and .github/workflows only",
    "## Second pass: `package.json` and `yarn.lock`",
    "## Addendum — config/settings.yaml",
    "## Re-review: Jenkinsfile",
]
WHOLE = [
    "## Re-review after fixes",
    "## Follow-up round",
    "## Round 2",
    "## Re-review (2026-07-12)",
    "## Addendum",
    "## Re-review: all blockers resolved",
    "## Re-review (after 5b0e11c)",
    "## Re-review: PR #781 — tenant-aware background jobs",
    "## Re-review — v1.2 release candidate",
]


@pytest.mark.parametrize("heading", SCOPED)
@pytest.mark.parametrize("yes", ["LGTM.", "**Verdict:** APPROVED"])
def test_a_round_that_names_one_part_does_not_replace_the_no(heading: str, yes: str) -> None:
    verdict = parse_verdict(NO + heading + "\n" + yes + "\n")
    assert verdict.decision is not A, verdict.reasons
    assert not verdict.approved


@pytest.mark.parametrize("heading", WHOLE)
def test_a_round_of_the_whole_change_still_replaces_the_no(heading: str) -> None:
    verdict = parse_verdict(NO + heading + "\nThe blockers are fixed.\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("heading", SCOPED)
def test_a_scoped_round_after_a_yes_still_approves(heading: str) -> None:
    yes = "## Review\nClean change, tests pass.\n\n**Verdict:** APPROVED\n\n"
    verdict = parse_verdict(yes + heading + "\nLooks good.\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is A, verdict.reasons
