"""A field in the verdict's own section whose key names work still open and whose value
names some (issue 23): `**Outstanding work:** the rollback script` under `Verdict: LGTM`
approved, as metadata that carries no decision. Such a field holding nothing, or naming
advice (nits, follow-ups), still approves."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nChecked the invoice mailer change.\n\n**Verdict:** APPROVED\n\n"


@pytest.mark.parametrize(
    "field",
    [
        "**Outstanding work:** the rollback script for the mailer queue",
        "- TODO: wire the bounce metric",
        "Unresolved threads: Sam's question on the retry budget",
        "Left to do: the DKIM key rotation",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_field_naming_open_work_refuses(field: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + field + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "field",
    [
        "Outstanding work: none",
        "Unresolved threads: 0",
        "Outstanding nits: rename `tmp` in mailer.py",
        "TODOs: none (all closed in round 2)",
    ],
)
def test_a_field_of_no_open_work_or_of_advice_approves(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved
