"""What an approval has not weighed (`mergegate.verdicts._unweighed`, `_scope`, `_defects`):
a part of the change named after the yes in any punctuation, a defect stated in the
reviewer's voice above (or after) the verdict, findings written after the approval, and the
classes found reading the parser as an attacker would (rendering tricks, Unicode, tables,
frontmatter, rounds, the reviewer's own callouts). Each class has several documents written
from the class, all approved by the parser before this change, and genuine twins that still
approve."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
INTRO = "## Summary\n\nThe change adds a retry cap to the HTTP client and tests for it.\n\n"
VERDICT = "## Verdict\n\n**Verdict:** APPROVE\n"

# A part of the change named after the yes, in punctuation the 'for X' / 'X only' readers
# did not look at.
SCOPE_AFTER_YES = [
    "**Ready to merge?** Yes; scope: frontend",
    "**Ready to merge?** Yes → merge the web package",
    "**Verdict:** Ship it: the CLI part",
    "**Verdict:** APPROVE — frontend changes",
    "**Verdict:** APPROVED [docs]",
    "**Ready to merge?** Yes: just the parser",
    "**Verdict:** Approve | backend",
    "**Verdict:** APPROVE; scope = packages/web",
    "**Verdict:** LGTM => the CLI changes",
    "**Ready to merge?** Yes (the frontend half)",
    "**Verdict:** APPROVED: scope limited to the docs",
    "**Verdict:** Approve, the backend portion",
    "**Verdict:** APPROVE – web package",
    "**Verdict:** Yes, merge the CLI part",
    "**Verdict:** APPROVED; covers the frontend",
    "Verdict: APPROVE (scope: backend)",
    "**Ready to merge?** Yes -> packages/web",
    "**Verdict:** LGTM; applies to the frontend",
    "**Verdict:** Approve: src/web/**",
    "**Verdict:** APPROVED (partial: the API layer)",
    "**Verdict:** Ship it — just the docs",
    "**Verdict:** APPROVE — changes in packages/web",
]
SCOPE_TWINS = [
    "**Ready to merge?** Yes",
    "**Verdict:** Approve (all of it)",
    "**Verdict:** LGTM, ship it!",
    "**Verdict:** APPROVE — nice work",
    "**Verdict:** Approve for merge",
    "**Verdict:** APPROVED with nits",
    "**Verdict:** APPROVED - Implementation is solid for long-term operation",
    "**Verdict:** APPROVE — ship the whole change",
    "**Verdict:** APPROVED — notable cleanup of the parser",
    "**Verdict:** APPROVED: Proceed to Week 5-6: DevOps and UI",
    "**Verdict:** `PASS` — Phase 1 fully closed. Phase 2 may begin.",
    "**Verdict:** APPROVE — src/app/core.py exists and is imported by the CLI",
]

# A defect stated in the reviewer's voice above the verdict, in or outside a section.
DEFECTS = [
    "Does not compile.",
    "The migration drops the users table.",
    "Tests fail on CI.",
    "The build is broken on main after this change.",
    "It crashes on startup when the config file is missing.",
    "The new endpoint returns 500 for every request.",
    "This leaks the API token into the logs.",
    "Compilation fails with a type error in `client.py`.",
    "The retry loop never terminates.",
    "Login is broken.",
    "Data loss: the script deletes the production bucket.",
    "The patch doesn't build.",
    "Tests fail on CI, fix pending.",
    "Tests fail on CI; a fix is needed.",
    # a command in a code span: its '.' ends no sentence, so nothing after it excuses it
    "`biome check .` still fails. It is pre-existing on other files, the rest is fine.",
]
DEFECT_PLACES = {
    "section": "## Review\n\n{d}\n\n{v}\n",
    "title": "# Review of PR 12\n\n{d}\n\n## Verdict\n\n{v}\n",
    "notes": "## Notes\n\n{d}\n\n## Verdict\n\n{v}\n",
    "summary": "## Summary\n\nAdds the retry cap. {d}\n\n{v}\n",
}
DEFECT_TWINS = [
    "## Summary\n\nThe change compiles and the tests pass.\n\n**Ready to merge?** Yes\n",
    "## Notes\n\nThe migration adds a column to the users table.\n\n" + VERDICT,
    "## Summary\n\nFixes the crash on startup when the config file is missing.\n\n" + VERDICT,
    "## Summary\n\nThe old code leaked the token into the logs; this change stops it.\n\n"
    "**Ready to merge?** Yes\n",
    "## Review\n\nAll 214 tests pass on CI.\n\n**Ready to merge?** Yes\n",
    "## Summary\n\nThe retry loop now terminates after three attempts.\n\n" + VERDICT,
    "## Summary\n\nThe new test fails without the fix and passes with it.\n\n" + VERDICT,
    "## Background\n\nLogin is broken on Safari when the cookie expires.\n\n## Review\n\n"
    "The change refreshes the cookie first.\n\n" + VERDICT,
    "## Summary\n\nThe login flow is broken when the session expires; this PR refreshes the "
    "token first and fixes it.\n\n" + VERDICT,
    # a failing check told as pre-existing in its own clause, after a command with a '.'
    "## Notes\n\n- Repo-wide `biome check .` still fails on generated JSON — pre-existing, "
    "out of scope.\n\n" + VERDICT,
]

# Findings written after the approval: the document's last word is not the verdict.
FINDINGS_AFTER = [
    "### Critical\n\n- SQL injection in `login.py:42`: the username is interpolated.\n",
    "**Issue:** the session token is written to the log in plain text.\n",
    "1. The migration drops the `users` table.\n2. The retry loop never terminates.\n",
    "## Security note\n\nThe token is logged in plain text at `auth.py:88`.\n",
    "### Issues\n\n- The cache is never invalidated, so stale prices are served.\n",
    "## Findings\n\n- `auth.py:88`: the password is compared with `==`, not in constant time.\n",
    "### Important\n\n- The retry loop has no upper bound.\n",
    "**Bug:** `parse()` returns None for empty input and the caller dereferences it.\n",
    "## Known issues\n\n1. Crashes on Windows paths.\n",
    "### Blocker\n\nThe migration is irreversible.\n",
    "## Concerns\n\nThe new endpoint has no authentication.\n",
    "- [ ] Fix the SQL injection in `login.py`\n",
    "**Warning:** this deletes every row of the sessions table on deploy.\n",
    "## Caveats\n\nThe change has not been tested against Postgres 16.\n",
]
FINDINGS_VERDICTS = {
    "verdict_section": INTRO + "## Verdict\n\n**Ready to merge?** Yes\n\n",
    "in_summary": INTRO + "Verdict: APPROVE\n\n",
}
FINDINGS_TWINS = [
    INTRO + "## Verdict\n\n**Ready to merge?** Yes\n\n— reviewer-bot\n",
    INTRO + VERDICT + "\n**Reasoning:** the cap is tested and documented.\n",
    INTRO + "### Critical\n\nNone.\n\n### Important\n\nNone.\n\n" + VERDICT,
    INTRO + VERDICT + "\n### Minor\n\n- Consider renaming `n` to `attempts` (optional).\n",
    INTRO + VERDICT + "\n## Issues\n\nNone found.\n",
    INTRO + VERDICT + "\n### Suggestions\n\n- Rename `n` to `attempts`.\n",
    INTRO + VERDICT + "\n## Security\n\nInputs are validated at the boundary.\n",
    INTRO + VERDICT + "\n**Security:** inputs are validated.\n",
    # The verdict opens the document: what follows is the body it sums up (graded findings).
    "# Review\n\n## Verdict\n\n**Verdict:** APPROVE\n\n## Findings\n\n### Critical\n\nNone.\n\n"
    "### Important\n\n- The retry loop could log its attempts.\n",
]

# Found reading the parser as an attacker would.
WHITE_BOX = {
    "rendering": [
        "## The migration drops the users table\n\n" + VERDICT,
        "Does not compile\n---\n\n" + VERDICT,
        INTRO
        + "<details><summary>Build log</summary>\n\nTests fail on CI.\n\n</details>\n\n"
        + VERDICT,
        INTRO + "<b>Tests fail on CI.</b>\n\n" + VERDICT,
        INTRO + "## Verdict\n\n**Verdict:** APPROVE<br>frontend only\n",
        INTRO + "## Verdict\n\n**Verdict:** APPROVE  \nfrontend only\n",
        INTRO + "## Verdict\n\n**Verdict:** APPROVE&nbsp;&mdash;&nbsp;frontend only\n",
        INTRO + "## Verdict\n\n**Verdict:** APPROVE <sub>backend only</sub>\n",
        INTRO + VERDICT + "\n> [!WARNING]\n> The migration drops the users table.\n",
        INTRO + VERDICT + "\n> [!CAUTION]\n> Only the frontend part is approved.\n",
        INTRO + "| Check | Result |\n|---|---|\n| Build | does not compile |\n\n" + VERDICT,
    ],
    "unicode": [
        INTRO + "## Verdict\n\n**Ready to merge?** Yes；scope：frontend\n",
        INTRO + "## Verdict\n\n**Verdict:** Approve ⟶ web package\n",
        INTRO + "## Verdict\n\n**Verdict:** Approve ⇒ web package\n",
        INTRO + "## Verdict\n\n**Verdict:** Approve » backend\n",
        INTRO + "## Verdict\n\n**Verdict:** Approve · backend\n",
        INTRO + "## Verdict\n\n**Verdict:** Approve • the CLI part\n",
        "## Notes\n\nDoes\u00a0not compile.\n\n" + VERDICT,
        "## Notes\n\n测试失败。\n\n" + VERDICT,
        "## Notas\n\nNo compila.\n\n" + VERDICT,
        "## Notizen\n\nKompiliert nicht.\n\n" + VERDICT,
        "## Notes\n\nＴｅｓｔｓ ｆａｉｌ ｏｎ ＣＩ．\n\n" + VERDICT,
    ],
    "tables": [
        INTRO + "## Verdict\n\n| Field | Value |\n|---|---|\n| Verdict | APPROVE |\n"
        "| Scope | frontend |\n",
        INTRO + "## Verdict\n\n| Verdict | Scope |\n|---|---|\n| APPROVE | backend |\n",
        INTRO + VERDICT + "\n| Severity | Finding |\n|---|---|\n| High | SQL injection |\n",
        INTRO + VERDICT + "\n| # | Issue |\n|---|---|\n| 1 | The token is logged in plain text |\n",
    ],
    "frontmatter": [
        "---\nverdict: approve\nscope: frontend\n---\n\n" + INTRO,
        "---\nstatus: passed\nscore: 5/5\n---\n\n# Verification\n\nDoes not compile.\n",
        "---\nverdict: approve\n---\n\n" + INTRO + "## Issues\n\n- The token is logged.\n",
    ],
    "rounds": [
        "## Round 1\n\nVerdict: REJECT\n\n## Round 2\n\nDoes not compile.\n\nVerdict: APPROVE\n",
        "## Re-review\n\nVerdict: APPROVE\n\n### Remaining issues\n\n"
        "- The lock is never released.\n",
        "## Round 2\n\n**Ready to merge?** Yes\n\n## Security note\n\nThe token is still logged.\n",
    ],
    "voice": [
        INTRO + VERDICT + "\n**Note:** the migration drops the users table.\n",
        INTRO + VERDICT + "\nP.S. Tests fail on CI.\n",
        INTRO + VERDICT + "\n_Caveat: the backend half does not build._\n",
        INTRO + VERDICT + "\n---\n\nThe CLI crashes on startup.\n",
    ],
}
WHITE_BOX_TWINS = [
    "## Round 1\n\nDoes not compile.\n\nVerdict: REJECT\n\n## Round 2\n\n"
    "All fixed; the build is green.\n\nVerdict: APPROVE\n",
    INTRO + "> The author wrote: tests fail on CI.\n\nThey pass now; I re-ran them.\n\n" + VERDICT,
    INTRO
    + "<details><summary>Build log</summary>\n\nAll 214 tests pass.\n\n</details>\n\n"
    + VERDICT,
    INTRO
    + "| Check | Result |\n|---|---|\n| Build | passes |\n| Tests | 214 passed |\n\n"
    + VERDICT,
    "---\nstatus: passed\nscore: 5/5\n---\n\n# Verification\n\nAll checks pass.\n",
    INTRO + "## Verdict\n\n**Verdict:** Approve · nice work\n",
    INTRO + VERDICT + "\n> [!NOTE]\n> The retry cap is documented in the README.\n",
]


def _refused(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is not A, text
    assert verdict.reasons, text


def _approved(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, (text, verdict.reasons)


@pytest.mark.parametrize("answer", SCOPE_AFTER_YES)
def test_a_part_named_after_the_yes_is_not_an_approval_of_the_change(answer: str) -> None:
    verdict = parse_verdict(INTRO + "## Verdict\n\n" + answer + "\n")
    assert verdict.decision is Decision.MALFORMED, (answer, verdict.reasons)


@pytest.mark.parametrize("answer", SCOPE_TWINS)
def test_an_answer_that_names_no_part_still_approves(answer: str) -> None:
    _approved(INTRO + "## Verdict\n\n" + answer + "\n")


@pytest.mark.parametrize("place", sorted(DEFECT_PLACES))
@pytest.mark.parametrize("defect", DEFECTS)
def test_a_defect_stated_above_the_verdict_stops_the_approval(defect: str, place: str) -> None:
    for verdict_line in ("**Ready to merge?** Yes", "Verdict: APPROVE"):
        _refused(DEFECT_PLACES[place].format(d=defect, v=verdict_line))


@pytest.mark.parametrize("text", DEFECT_TWINS)
def test_a_defect_told_as_fixed_past_or_background_still_approves(text: str) -> None:
    _approved(text)


@pytest.mark.parametrize("where", sorted(FINDINGS_VERDICTS))
@pytest.mark.parametrize("after", FINDINGS_AFTER)
def test_a_finding_after_the_approval_stops_it(after: str, where: str) -> None:
    _refused(FINDINGS_VERDICTS[where] + after)


@pytest.mark.parametrize("text", FINDINGS_TWINS)
def test_what_may_follow_an_approval_still_approves(text: str) -> None:
    _approved(text)


@pytest.mark.parametrize(
    "text", [t for docs in WHITE_BOX.values() for t in docs], ids=lambda t: t[-40:]
)
def test_white_box_hostile_document_is_not_approved(text: str) -> None:
    _refused(text)


@pytest.mark.parametrize("text", WHITE_BOX_TWINS, ids=lambda t: t[-40:])
def test_white_box_genuine_twin_approves(text: str) -> None:
    _approved(text)


def test_a_blocking_template_section_still_names_fixes() -> None:
    # A recogniser's blocking content (→ fixes) is settled before what the approval has not
    # weighed (→ malformed), so the fix prompt keeps its findings.
    text = (
        "## Code Review: Phase 2\n\n### Issues\n\n#### Critical (Must Fix)\n\n"
        "- Tests still failing in `auth.test.ts`\n\n### Assessment\n\n**Ready to merge?** Yes\n"
    )
    assert parse_verdict(text).decision is Decision.FIXES


@pytest.mark.parametrize(
    "after",
    [
        "## Findings: None\n\nNo critical, important, or minor issues found. It is complete.",
        "## Open findings\n\n- Minor: the test proves validation, not ordering.\n"
        "- Nit: `z.string().datetime()` is deprecated but consistent with the repository.",
    ],
    ids=["none-listed-with-commas", "minor-and-nit-labels"],
)
def test_non_blocking_notes_after_the_approval_still_approve(after: str) -> None:
    """Genuine approvals of the held-out real reviews: a none written with a list of
    severities, and items the reviewer labels Minor or Nit, are weighed by their label."""
    text = f"## Task quality: **Approved**\n\nAll requirements met.\n\n{after}\n"
    assert parse_verdict(text).decision is Decision.APPROVE


def test_a_blocking_label_after_the_approval_still_refuses() -> None:
    text = (
        "## Task quality: **Approved**\n\nAll requirements met.\n\n## Open findings\n\n"
        "- Bug: the retry loop never ends when the server is down.\n"
    )
    assert parse_verdict(text).decision is not Decision.APPROVE


def test_a_bmad_gate_files_comments_are_not_headings() -> None:
    text = (
        '# Quality Gate Decision - Story 2.1\nschema: 1\nstory: "2.1"\ngate: PASS\n'
        'status_reason: "All acceptance criteria met."\nreviewer: "Quinn"\n\n'
        "# No critical issues identified\ntop_issues: []\n\n# Risk assessment\n"
        "risk_summary:\n  totals: { critical: 0, high: 0, medium: 0, low: 0 }\n"
    )
    assert parse_verdict(text).decision is Decision.APPROVE
