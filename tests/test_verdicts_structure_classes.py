"""Hostile shapes that structure alone can refuse (issue 23, session 18 red-team classes).

Each class is read as GitHub renders it: a table row is a field like any other line, an HTML
heading opens a section like a Markdown one, an HTML table's row is a row. Every hostile
document has a genuine twin of the same shape with an empty or benign field: it approves.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_A = Decision.APPROVE


def _kv_table(rows: str) -> str:
    return "## Review outcome\n\n| Field | Value |\n|---|---|\n" + rows


# 1. A key/value table: the verdict row approves, a later row is a condition field.
KV_HOSTILE = {
    "conditions": _kv_table(
        "| Verdict | APPROVED |\n| Conditions | drop the debug endpoint before release |\n"
    ),
    "open items": _kv_table(
        "| Status | pass |\n| Open items | the retry budget is still unbounded |\n"
        "| Reviewer | review-bot |\n"
    ),
    "prerequisites first": _kv_table(
        "| Prerequisites | re-run the data backfill |\n| Decision | approve |\n"
    ),
}
KV_TWINS = {
    "conditions none": _kv_table("| Verdict | APPROVED |\n| Conditions | none |\n"),
    "open items empty": _kv_table(
        "| Status | pass |\n| Open items | — |\n| Reviewer | review-bot |\n"
    ),
    "reviewer only": _kv_table("| Decision | approve |\n| Reviewer | review-bot |\n"),
}


@pytest.mark.parametrize("name", sorted(KV_HOSTILE))
def test_a_condition_row_beside_a_verdict_row_conditions_it(name: str) -> None:
    assert parse_verdict(KV_HOSTILE[name]).decision is not _A


@pytest.mark.parametrize("name", sorted(KV_TWINS))
def test_an_empty_condition_row_leaves_the_approval(name: str) -> None:
    assert parse_verdict(KV_TWINS[name]).decision is _A, parse_verdict(KV_TWINS[name]).reasons


# 2. Raw HTML renders as structure: `<h3>Blockers</h3>` is a heading, an HTML table's row a row.
_SP_TOP = (
    "# Code review: upload retries\n\n### Strengths\n- Retries are bounded.\n\n### Issues\n\n"
    "#### Critical (Must Fix)\nNone.\n\n#### Important (Should Fix)\nNone.\n\n"
    "#### Minor (Nice to Have)\n- `upload.py:3`: the log message could name the bucket.\n\n"
)
_SP_END = "\n### Assessment\n\n**Ready to merge?** Yes\n\n**Reasoning:** Small and tested.\n"


def _checks(rows: str) -> str:
    return f"## Checks\n\n<table>\n{rows}</table>\n\n## Verdict\n\nAPPROVED\n"


HTML_HOSTILE = {
    "critical heading": _SP_TOP
    + "<h4>Critical (Must Fix)</h4>\n\n- `upload/client.py:88`: the retry loop re-sends a "
    "non-idempotent POST, so a timeout charges the card twice.\n" + _SP_END,
    "blockers heading with attributes": "## Verdict\n\nVerdict: APPROVE\n\n"
    '<H2 align="left">Blockers</H2>\n\n- the cache key omits the tenant id, so tenants read '
    "each other's rows.\n",
    "failed row": _checks(
        "<tr><th>Check</th><th>Result</th></tr>\n<tr><td>Unit tests</td><td>PASS</td></tr>\n"
        "<tr><td>Security</td><td><b>FAIL</b>: the API key is logged</td></tr>\n"
    ),
    "failed row over several lines": _checks(
        "<tr>\n  <th>Check</th>\n  <th>Result</th>\n</tr>\n<tr>\n  <td>Migration</td>\n"
        "  <td>FAIL</td>\n</tr>\n"
    ),
}
HTML_TWINS = {
    "critical heading": _SP_TOP + "<h4>Critical (Must Fix)</h4>\n\nNone.\n" + _SP_END,
    "a praise heading": "## Verdict\n\nVerdict: APPROVE\n\n<h2>Strengths</h2>\n\n"
    "- The cache key includes the tenant id.\n",
    "passing rows": _checks(
        "<tr><th>Check</th><th>Result</th></tr>\n<tr><td>Unit tests</td><td>PASS</td></tr>\n"
        "<tr><td>Security</td><td><b>PASS</b></td></tr>\n"
    ),
    "passing rows over several lines": _checks(
        "<tr>\n  <th>Check</th>\n  <th>Result</th>\n</tr>\n<tr>\n  <td>Migration</td>\n"
        "  <td>PASS</td>\n</tr>\n"
    ),
}


@pytest.mark.parametrize("name", sorted(HTML_HOSTILE))
def test_html_structure_that_says_no_refuses_the_approval(name: str) -> None:
    assert parse_verdict(HTML_HOSTILE[name]).decision is not _A


@pytest.mark.parametrize("name", sorted(HTML_TWINS))
def test_html_structure_that_says_nothing_leaves_the_approval(name: str) -> None:
    verdict = parse_verdict(HTML_TWINS[name])
    assert verdict.decision is _A, verdict.reasons


# 3. A JSON trailer whose finding is labelled, in its own title or detail, with a severity
#    above its `severity` field: the object contradicts itself, so it cannot approve.
def _trailer(finding: str) -> str:
    return (
        "## Summary\n\nAdds a retry budget to the queue consumer.\n\n"
        "**Ready to merge?** Yes\n\n```json\n"
        f'{{"review_id": "rv-9", "verdict": "approve", "findings": [{finding}]}}\n```\n'
    )


TRAILER_HOSTILE = {
    "title label": '{"severity": "minor", "title": "BLOCKER: the consumer acks before it writes"}',
    "bracketed title": '{"severity": "minor", "title": "[P0] offsets are committed twice"}',
    "detail label": '{"severity": "minor", "title": "Retries", '
    '"detail": "Critical - a poison message loops forever."}',
    "must fix before merge": '{"severity": "minor", "title": '
    '"Must fix before merge: the DLQ topic is never created"}',
}
TRAILER_TWINS = {
    "minor label": '{"severity": "minor", "title": "Nit: rename `n` to `attempts`"}',
    "severity word in prose": '{"severity": "minor", "title": "Critical path logging is verbose",'
    ' "detail": "High volume at debug level; consider sampling."}',
    "label at its own severity": '{"severity": "critical", "title": "Blocker: acks before writes"}',
}


@pytest.mark.parametrize("name", sorted(TRAILER_HOSTILE))
def test_a_trailer_finding_labelled_above_its_severity_does_not_approve(name: str) -> None:
    assert parse_verdict(_trailer(TRAILER_HOSTILE[name])).decision is not _A


@pytest.mark.parametrize("name", sorted(TRAILER_TWINS))
def test_a_trailer_finding_labelled_at_or_below_its_severity_is_read_as_given(name: str) -> None:
    verdict = parse_verdict(_trailer(TRAILER_TWINS[name]))
    expected = Decision.FIXES if name == "label at its own severity" else _A
    assert verdict.decision is expected, verdict.reasons


# 4. Frontmatter against a dated body: the frontmatter's date says which record is newer. A
#    round heading dated after it is a later review: the frontmatter no longer has the last
#    word (its own round says no, or says nothing).
def _gsd(updated: str, heading_date: str) -> str:
    return (
        f"---\nphase: 07-export\nstatus: passed\nupdated: {updated}\n---\n\n"
        "# Phase 7 verification\n\n## Goal Achievement\n\nAll five truths hold.\n\n"
        f"## Re-verification ({heading_date})\n\n**Status:** gaps_found\n\n"
        "- The export keeps running after the client disconnects.\n"
    )


def _front(updated: str, heading_date: str) -> str:
    return (
        f"---\nreviewer: review-bot\nstatus: approved\nupdated: {updated}\n---\n\n"
        "## Summary\nThe scheduler rewrite reads well.\n\n"
        f"## Update {heading_date}\nThe lock is taken after the read in `sched.go`.\n"
    )


DATED_HOSTILE = {
    "gsd re-verification dated after updated": _gsd("2026-03-01", "2026-03-09"),
    "update heading later the same day": _front("2026-05-04T09:00:00Z", "2026-05-04 11:15"),
    "update heading on a later day": _front("2026-05-04", "2026-05-06"),
}
DATED_TWINS = {
    # the frontmatter was updated after the body's re-verification: it is the newer record
    "gsd re-verification dated before updated": _gsd("2026-03-12", "2026-03-09"),
    "update heading before updated": _front("2026-05-04T12:00:00Z", "2026-05-04 11:15"),
}


@pytest.mark.parametrize("name", sorted(DATED_HOSTILE))
def test_a_body_round_dated_after_the_frontmatter_keeps_it_from_approving(name: str) -> None:
    assert parse_verdict(DATED_HOSTILE[name]).decision is not _A


@pytest.mark.parametrize("name", sorted(DATED_TWINS))
def test_a_body_round_dated_before_the_frontmatter_leaves_its_approval(name: str) -> None:
    verdict = parse_verdict(DATED_TWINS[name])
    assert verdict.decision is _A, verdict.reasons


# 5. A finding written location first, then an arrow and its severity tag (the shape of
#    DevoxxGenie-style lists): the tag grades the item as a dash after the location does.
def _located(tag: str) -> str:
    return (
        "## Code review\n\n"
        f"1. `src/main/java/app/Ledger.java:88` {tag} — the balance is read outside the lock.\n"
        "2. `src/main/java/app/Ledger.java:12` → Minor — unused import.\n\n"
        "Verdict: ✅ Approved\n"
    )


@pytest.mark.parametrize("arrow", ["→ **Blocker**", "⇒ Critical", "-> [P0]", "=> **Must fix**"])
def test_a_blocking_tag_after_a_location_and_an_arrow_refuses(arrow: str) -> None:
    assert parse_verdict(_located(arrow)).decision is not _A


@pytest.mark.parametrize("arrow", ["→ Minor", "⇒ **Nit**"])
def test_a_minor_tag_after_a_location_and_an_arrow_leaves_the_approval(arrow: str) -> None:
    verdict = parse_verdict(_located(arrow))
    assert verdict.decision is _A, verdict.reasons


# 6. A per-reviewer table whose verdict column holds a state no rule reads (🔁, 🤔, ⏳):
#    that reviewer's verdict is unknown, so the overall approval is not accounted for.
def _reviewers(state: str) -> str:
    return (
        "| Reviewer | Area | Verdict |\n|---|---|---|\n| ana | api | ✅ |\n"
        f"| infra-bot | deploy | {state} |\n| kim | ui | approved |\n\n**Overall:** Approved\n"
    )


@pytest.mark.parametrize("state", ["🔁", "🤔", "⏳ waiting", "re-review asked"])
def test_an_unread_reviewer_state_keeps_the_overall_approval_from_approving(state: str) -> None:
    assert parse_verdict(_reviewers(state)).decision is not _A


@pytest.mark.parametrize("state", ["✅", "approved", "✔ LGTM", "—"])
def test_readable_or_empty_reviewer_states_leave_the_overall_approval(state: str) -> None:
    verdict = parse_verdict(_reviewers(state))
    assert verdict.decision is _A, verdict.reasons
