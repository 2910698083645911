"""A finding that looks like an instruction, a template or an example is still a finding.

Lines that look like instructions or examples ('placeholder', 'template', 'format:', a line
that ends in 'with' or 'such as') may not approve; before this rule they were also skipped
when blocking sections were read, so a Critical section whose only item happened to look
like one read as empty, and the document approved. Rendered, such an item is the
reviewer's text like any other."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = """## Summary

Adds retry with backoff to the webhook sender.

"""
_TAIL = """
### Minor

- `sender.py:42`: the log line could include the attempt number.

**Ready to merge? Yes**
"""

# Items a reader sees as blocking findings, each shaped like something the instruction or
# template reader recognises.
_LOOKALIKE_ITEMS = [
    "- `templates/email.html:14`: renders the display name unescaped (stored XSS).",
    "- `config.py:3`: the placeholder secret is the production API key, committed in clear.",
    "- `dates.py:10`: wrong timestamp format: the UTC offset is dropped from every invoice.",
    "- `db/migrate.py:12`: the migration replaces the `email` column with\n"
    "  a nullable one and drops every existing address.",
    "- For example `api.py:7` returns other tenants' rows to any signed-in user.",
    "- Reply with a 500 is what `upload.py` does on every file over 1 MB; uploads are lost.",
]


@pytest.mark.parametrize("heading", ["### Critical (Must Fix)", "**Critical:**", "### Blockers"])
@pytest.mark.parametrize("item", _LOOKALIKE_ITEMS, ids=range(len(_LOOKALIKE_ITEMS)))
def test_a_blocking_item_that_looks_like_an_example_still_blocks(heading: str, item: str) -> None:
    doc = f"{_HEAD}{heading}\n\n{item}\n\n### Important (Should Fix)\n\nNone.\n{_TAIL}"
    verdict = parse_verdict(doc)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("item", _LOOKALIKE_ITEMS[:3])
def test_the_same_item_under_minor_still_approves(item: str) -> None:
    doc = f"{_HEAD}### Critical (Must Fix)\n\nNone.\n\n### Important (Should Fix)\n\nNone.\n{_TAIL}"
    doc = doc.replace("- `sender.py:42`: the log line could include the attempt number.", item)
    verdict = parse_verdict(doc)
    assert verdict.decision is Decision.APPROVE, verdict.reasons
