"""Issue 23, deliver 3 (every blocking section empty, by allow-list): under a blocking heading
(`## Blockers`, `#### Critical (Must Fix)`) every line must say none. A plain paragraph,
`(1) …` numbered paragraphs or `• …` glyph bullets render as text the section holds — not as
nothing — though they are not Markdown list items. A "none" may be explained by what
appraises the change ('None. The branch breaks nothing.'), unless the explanation turns
('though', 'but', 'actually one') or asks for work. A plain statement after it ('None. The
change only renames a flag.') is text the section holds: it reads exactly like 'None. The
change drops the audit table.', so neither approves. Each hostile section beside a genuine
twin.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(section: str, heading: str = "### Blockers") -> str:
    return (
        "## Summary\n\nAdds the purge job for stale sessions.\n\n"
        f"{heading}\n\n{section}\n\n### Assessment\n\n**Ready to merge?** Yes\n"
    )


HOSTILE = [
    "The purge job runs without a tenant filter and deletes every tenant's sessions.",
    "(1) The export query drops the tenant filter.\n(2) The cron runs twice a minute.",
    "• `payments/client.py:141` retries POST /charges on timeout.",
    "None.\n\n• Actually one: `api/export.py:52` builds the SQL from the `sort` parameter.",
    "None. One thing to do first, though: regenerate the lockfile.",
    "None — but rotate the leaked key first.",
    "Nothing else. Revert the schema change before merging.",
    "None. The change only renames a flag.",
    "None. The change drops the audit table.",
]
GENUINE = [
    "None.",
    "None. The branch breaks nothing.",
    "No blocking issues were found in this diff.",
    "None. The final re-review confirmed the fix is in place (`purge.py:12-19`).",
    "Nothing blocking.",
    "None remaining. The job now filters by tenant and the test covers it.",
]


@pytest.mark.parametrize("heading", ["### Blockers", "#### Critical (Must Fix)"])
@pytest.mark.parametrize("section", HOSTILE)
def test_text_a_blocking_section_holds_keeps_the_yes_from_approving(
    section: str, heading: str
) -> None:
    verdict = parse_verdict(_review(section, heading))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("heading", ["### Blockers", "#### Critical (Must Fix)"])
@pytest.mark.parametrize("section", GENUINE)
def test_a_blocking_section_that_says_none_approves(section: str, heading: str) -> None:
    verdict = parse_verdict(_review(section, heading))
    assert verdict.decision is Decision.APPROVE, verdict.reasons
