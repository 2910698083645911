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
