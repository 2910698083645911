"""Issue 23, session 22: a verdict field named by its values, or by what it decides.

`**Go/No-Go:** GO` and `Pass/Fail: PASS` were read as templates (a `go/no-go` choice list on
the line), and `**Ship decision:** GO` / `**Release decision:** GO` named no field this
vocabulary knew: all `malformed`. A label that is the field's two values (`Go/No-Go`,
`Ship/No-Ship`, `Pass/Fail`, with an optional `decision`) names the field; only the value
after its separator can be a template's choices (`**Go/No-Go:** GO / NO-GO` still is one).
The value is read like any verdict's.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _review(line: str) -> str:
    return (
        "# Release review: billing v2\n\nThe migration is reversible and the suite is green "
        f"(412 passed).\n\n## Decision\n\n{line}\n"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("**Go/No-Go:** ✅ GO", Decision.APPROVE),
        ("**Go / No-Go decision:** GO", Decision.APPROVE),
        ("Pass/Fail: PASS", Decision.APPROVE),
        ("**Ship decision:** GO", Decision.APPROVE),
        ("**Release decision:** GO", Decision.APPROVE),
        ("**Go/No-Go:** NO-GO", Decision.REJECT),
        ("**Pass/Fail:** FAIL", Decision.REJECT),
    ],
)
def test_a_field_named_by_its_values_is_read(line: str, expected: Decision) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is expected, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "**Go/No-Go:** GO / NO-GO",
        "Pass/Fail: [PASS | FAIL]",
        "**Go/No-Go:** GO once the DBA signs off",
        "**Release decision:** GO for the docs only",
    ],
)
def test_choices_or_a_qualified_value_do_not_approve(line: str) -> None:
    assert parse_verdict(_review(line)).decision is not Decision.APPROVE
