"""Issue 23, deliverable 2: spectacular's phase review, read by its own recogniser
(`_templates/spectacular.py`).

Written from spectacular's template (arittr/spectacular `skills/executing-parallel-phase/
SKILL.md` Step 8 and `skills/executing-sequential-phase/SKILL.md`; the reviewer output shape of
`tests/scenarios/execute/*.md`): superpowers' code-reviewer sections under a phase heading, one
binary verdict field `Ready to merge? Yes | No | With fixes`, Critical and Important issues sent
to the fixer. Each class beside genuine twins. The classes main approved: an Important item
beside `Yes`, an answer that is not binary (soft language, a scope, an extra), and a review
without the field that approves in another form.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _review(
    verdict: str = "**Ready to merge? Yes**",
    *,
    critical: str = "None.",
    important: str = "None.",
    minor: str = "- `schema.prisma:40` could carry a comment on the index.",
    heading: str = "## Code Review: Phase 2 - API Contracts & Schemas",
) -> str:
    """A phase review in spectacular's shape, its verdict line as given."""
    return (
        f"{heading}\n\n### Changes Summary\n\n**Files Modified:**\n"
        "1. `src/lib/api/contracts.ts` - Added MagicLinkRequest/Response types ✓\n"
        "2. `prisma/schema.prisma` - Added magicLinkTokens table ✓\n\n"
        f"### Issues\n\n#### Critical\n{critical}\n\n#### Important\n{important}\n\n"
        f"#### Minor\n{minor}\n\n### Assessment\n\n**Scope verification:**\n"
        "- Phase 2 tasks: Update contracts ✓, Add schema ✓\n"
        "- Phase 3 tasks: NOT implemented (correct)\n\n"
        f"{verdict}\n\n"
        "**Reasoning:** Scope matches Phase 2. Implementation quality is good.\n"
    )


# The template's own approval (its iteration-2 example), and the forms of the same `Yes`.
GENUINE = [
    _review(),
    _review("**Ready to merge?** Yes"),
    _review("**Ready to merge?** Yes."),
    _review("Ready to merge? **Yes** ✅"),
    _review("- **Ready to merge?** ✅ Yes"),
    _review("**Ready to merge?**\n\nYes"),
    _review(critical="- None found", important="- None.", minor="None."),
    _review(heading="## Code Review: Phase 1 (Iteration 2)"),
    # No severity sections at all, as in the template's approving example.
    "## Code Review: Phase 2 - API Contracts & Schemas (Iteration 2)\n\n### Assessment\n\n"
    "**Quality:**\n- Contracts properly typed with Zod\n\n**Ready to merge? Yes**\n\n"
    "**Reasoning:** Scope reduced to Phase 2 boundaries. Ready to proceed to Phase 3.\n",
    # The run's paths name the review when its heading does not.
    "# Review\n\nWORKTREE: `.worktrees/8c8505-main`, PLAN: `specs/8c8505-cognitive-load/plan.md`"
    "\n\n### Assessment\n\n**Ready to merge? Yes**\n\n**Reasoning:** All tasks match the plan.\n",
]


@pytest.mark.parametrize("text", GENUINE)
def test_genuine_spectacular_approvals_approve(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "spectacular"


# Critical and Important issues both go to spectacular's fixer: an item in either blocks.
BLOCKING = [
    _review(important="- Migration missing down migration for rollback safety (001.sql:1)"),
    _review(important="1. `contracts.ts:12` accepts an empty email; validate it."),
    _review(important="- **Scope:** `src/lib/auth/magic-link.ts` belongs to Phase 3"),
    _review(important="The token table has no expiry index, so lookups scan the table."),
    _review(critical="- Missing index on `users.email` (schema.prisma:15)"),
    _review("**Ready to merge?** Yes", important="- Tests still failing after the fix."),
]


@pytest.mark.parametrize("text", BLOCKING)
def test_an_item_in_a_blocking_section_refuses_the_approval(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is F, verdict.reasons
    assert verdict.dialect == "spectacular"


# The field is binary: anything but Yes beside it is soft language (a scope, a condition, an
# extra), which spectacular re-reviews; so is an approving word other than Yes.
NOT_BINARY = [
    "**Ready to merge? Yes** (Phase 2 scope)",
    "**Ready to merge? Yes** – frontend only",
    "**Ready to merge? Yes** (backend)",
    "**Ready to merge? Yes** (contracts only; schema in Phase 3)",
    "**Ready to merge? Yes**, with nits",
    "**Ready to merge? Yes** — optional follow-ups below",
    "**Ready to merge? Yes (non-blocking: rename the flag)**",
    "**Ready to merge?** Approved",
    "**Ready to merge?** LGTM",
    "**Ready to merge?** Ship it",
    "**Ready to merge?**\n\nYes, for this repo",
]


@pytest.mark.parametrize("line", NOT_BINARY)
def test_an_answer_that_is_not_binary_is_malformed(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is M, verdict.reasons
    assert verdict.dialect == "spectacular"


# Without the field, spectacular retries the review: another approving form does not stand in.
MISSING_FIELD = [
    "**Verdict:** APPROVED",
    "## Verdict: PASS",
    "LGTM. Ship it.",
    "**Decision:** Approve",
]


@pytest.mark.parametrize("line", MISSING_FIELD)
def test_a_review_without_the_field_is_malformed(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is M, verdict.reasons
    assert verdict.dialect == "spectacular"
    assert "Ready to merge?" in verdict.reasons[0]


# A no stays the generic reader's no, issue list and all.
NO = [
    ("**Ready to merge? No**", R),
    ("**Ready to merge?** No - the scope includes Phase 3 work", R),
    ("**Ready to merge? With fixes**", F),
]


@pytest.mark.parametrize(("line", "expected"), NO)
def test_a_no_stays_a_no(line: str, expected: Decision) -> None:
    assert parse_verdict(_review(line)).decision is expected


def test_other_templates_are_not_claimed() -> None:
    # GSD's reviewer names the phase first; superpowers' own template keeps its reading (an
    # Important item beside Yes is weighed by the reviewer there).
    gsd = "# Phase 03: Code Review Report\n\n**Status:** clean\n\n### Assessment\n\nFine.\n"
    assert parse_verdict(gsd).dialect != "spectacular"
    superpowers = _review(heading="## Review of the contracts change", important="- Rename x.")
    verdict = parse_verdict(superpowers)
    assert (verdict.decision, verdict.dialect) == (A, "superpowers")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40).filter(lambda s: "\n" not in s and "\r" not in s))
def test_yes_approves_only_with_nothing_but_decoration_beside_it(extra: str) -> None:
    verdict = parse_verdict(_review(f"**Ready to merge? Yes** {extra}"))
    if verdict.decision is A:
        assert not any(ch.isalnum() for ch in extra), extra
