"""A negation whose object is a code name (issue 23): 'No `aps-environment`.' in a GSD review's
scope checks says a key is absent. Names from the code are taken out of prose before it is
read (`_names.prose_of`), which left a bare 'No.' that withdrew the approval. The name stays
the clause's object; a 'No' that ends its own clause is still a no, and so is one before a
name that holds a verdict word (`merge`, `REJECTED`), which renders as that word."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(line: str) -> str:
    return f"# Review\n\n**Verdict:** APPROVE\n\n## Scope checks\n\n{line}\n"


@pytest.mark.parametrize(
    "line",
    [
        "- **Entitlements:** present in DebugProfile only. No `aps-environment`.",
        "No `NSAllowsArbitraryLoads`.",
        "Forbidden imports: no `src/legacy/auth.py`.",
        "No app/config.yaml.",
    ],
)
def test_a_no_with_a_code_name_as_its_object_is_a_statement(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "No. `auth.py` still leaks the token.",
        "No, `auth.py` still leaks the token.",
        "No — `auth.py` still leaks the token.",
        "`auth.py` fails the tests, so no.",
        # a name that holds a verdict word renders as that word: 'No merge.', 'No REJECTED'
        "No `merge`.",
        "No `REJECTED`",
    ],
)
def test_a_no_that_ends_its_clause_still_refuses(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
